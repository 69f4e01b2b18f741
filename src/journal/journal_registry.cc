// The journal's registry: a key/value space beside the records (the model and policy registry,
// cases), kept by the backend.
#include "journal/journal.h"
#include "journal/journal_backend.h"

namespace verdict::journal {

// A damaged journal is opened for reading only: nothing is added to what is under investigation.
Status Journal::PutRegistry(std::string_view key, std::string_view value, bool sync) {
  if (integrity().state == IntegrityState::kDamaged) return health();
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
