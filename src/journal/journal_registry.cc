// The journal's registry: a key/value space beside the records (the model and policy registry,
// cases), kept by the backend.
#include "journal/journal.h"
#include "journal/journal_backend.h"

namespace verdict::journal {

// A damaged journal is opened for reading only: nothing is added to what is under investigation.
// An unsynced write is of what can be derived again from the records (cases opened from
// decisions, their high-water mark), which a crash may drop too: it is dropped, so that the
// engine can still derive it in memory; a synced one is refused.
Status Journal::PutRegistry(std::string_view key, std::string_view value, bool sync) {
  if (integrity().state == IntegrityState::kDamaged) return sync ? health() : Status::Ok();
  return backend_->PutRegistry(key, value, sync);
}

Status Journal::DeleteRegistry(std::string_view key) {
  if (integrity().state == IntegrityState::kDamaged) return health();
  return backend_->DeleteRegistry(key);
}

Result<std::optional<std::string>> Journal::GetRegistry(std::string_view key) const {
  return backend_->GetRegistry(key);
}

Result<std::vector<std::pair<std::string, std::string>>> Journal::ListRegistry(
    std::string_view prefix) const {
  return backend_->ListRegistry(prefix);
}

}  // namespace verdict::journal
