#include "policy/pattern_set.h"

#include <hs/hs.h>

#include <atomic>

namespace verdict {
namespace {

std::atomic<uint64_t> next_id{1};

// One scratch per thread, grown to fit every database this thread has scanned with.
struct ThreadScratch {
  hs_scratch_t* scratch = nullptr;
  uint64_t fitted_for = 0;  // id of the last database the scratch was checked against
  ~ThreadScratch() {
    if (scratch != nullptr) hs_free_scratch(scratch);
  }
};

int OnMatch(unsigned int id, unsigned long long /*from*/, unsigned long long /*to*/,
            unsigned int /*flags*/, void* context) {
  int* first = static_cast<int*>(context);
  if (*first < 0 || static_cast<int>(id) < *first) *first = static_cast<int>(id);
  return 0;  // keep scanning: a lower-numbered pattern may match later
}

}  // namespace

Result<std::unique_ptr<const PatternSet>> PatternSet::Compile(
    const std::vector<std::string>& patterns, int* bad_index) {
  std::unique_ptr<PatternSet> set(new PatternSet());
  set->patterns_ = patterns;
  set->id_ = next_id.fetch_add(1);
  if (patterns.empty()) return std::unique_ptr<const PatternSet>(std::move(set));
  std::vector<const char*> expressions;
  std::vector<unsigned int> flags;
  std::vector<unsigned int> ids;
  for (size_t i = 0; i < patterns.size(); ++i) {
    expressions.push_back(set->patterns_[i].c_str());
    flags.push_back(HS_FLAG_CASELESS | HS_FLAG_DOTALL | HS_FLAG_SINGLEMATCH);
    ids.push_back(static_cast<unsigned int>(i));
  }
  hs_compile_error_t* error = nullptr;
  hs_error_t rc = hs_compile_multi(expressions.data(), flags.data(), ids.data(),
                                   static_cast<unsigned int>(expressions.size()), HS_MODE_BLOCK,
                                   nullptr, &set->database_, &error);
  if (rc != HS_SUCCESS) {
    std::string message =
        error != nullptr && error->message != nullptr ? error->message : "compile failed";
    int index = error != nullptr ? error->expression : -1;
    if (error != nullptr) hs_free_compile_error(error);
    if (bad_index != nullptr) *bad_index = index;
    return InvalidArgument("pattern " + std::to_string(index + 1) + ": " + message);
  }
  return std::unique_ptr<const PatternSet>(std::move(set));
}

PatternSet::~PatternSet() {
  if (database_ != nullptr) hs_free_database(database_);
}

int PatternSet::FirstMatch(std::string_view text) const {
  if (database_ == nullptr) return -1;
  thread_local ThreadScratch local;
  if (local.fitted_for != id_) {
    if (hs_alloc_scratch(database_, &local.scratch) != HS_SUCCESS) return -1;
    local.fitted_for = id_;
  }
  if (text.size() > kMaxTextBytes) text = text.substr(0, kMaxTextBytes);
  int first = -1;
  hs_scan(database_, text.data(), static_cast<unsigned int>(text.size()), 0, local.scratch, OnMatch,
          &first);
  return first;
}

}  // namespace verdict
