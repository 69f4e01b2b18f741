#include "policy/name_normalizer.h"

#include <unicode/translit.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <memory>

namespace verdict {
namespace {

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// One prototype built once; each thread clones it, since ICU transliterators are not
// documented as safe for concurrent use.
const icu::Transliterator* Prototype() {
  static const icu::Transliterator* prototype = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::Transliterator* t = icu::Transliterator::createInstance(
        icu::UnicodeString::fromUTF8("Any-Latin; Latin-ASCII"), UTRANS_FORWARD, status);
    if (U_FAILURE(status)) {
      delete t;
      return static_cast<icu::Transliterator*>(nullptr);
    }
    return t;
  }();
  return prototype;
}

std::string ToAscii(std::string_view name) {
  thread_local std::unique_ptr<icu::Transliterator> local;
  if (!local) {
    const icu::Transliterator* prototype = Prototype();
    if (prototype == nullptr) return std::string(name);
    local.reset(prototype->clone());
  }
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size())));
  local->transliterate(text);
  std::string out;
  text.toUTF8String(out);
  return out;
}

}  // namespace

std::vector<std::string> NormalizeNameTokens(std::string_view name) {
  if (name.size() > kMaxNameBytes) name = name.substr(0, kMaxNameBytes);
  std::string converted;
  if (!IsAscii(name)) {
    converted = ToAscii(name);
    name = converted;
  }
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty() && tokens.size() < kMaxNameTokens) tokens.push_back(current);
    current.clear();
  };
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      current += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      current += c;
    } else if (c == '\'' || c == '`') {
      // joins: O'Brien → obrien
    } else {
      flush();
    }
  }
  flush();
  std::sort(tokens.begin(), tokens.end());
  return tokens;
}

std::string NormalizeName(std::string_view name) {
  std::string out;
  for (const std::string& t : NormalizeNameTokens(name)) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

}  // namespace verdict
