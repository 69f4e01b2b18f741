// DriftJournalRecorder: the engine's DriftRecorder. A drift monitor's level-3 alert or freeze
// is journaled as an admin event ("drift.alert", "drift.freeze" on "name/version", principal
// "drift-monitor", the tenant of the monitor's scope or "default"), and a freeze is also kept in
// the journal's registry until a journaled drift.clear drops it, so that it survives a restart.
// Thread-safe (the journal is); the journal must outlive it.
#pragma once

#include <optional>
#include <string>

#include "journal/journal.h"
#include "monitor/drift_recorder.h"

namespace verdict {

class DriftJournalRecorder final : public monitor::DriftRecorder {
 public:
  explicit DriftJournalRecorder(journal::Journal& journal) : journal_(journal) {}

  Status Record(const monitor::DriftSubject& subject, const monitor::DriftRecord& record) override;
  Result<std::optional<monitor::PersistedFreeze>> FindFreeze(
      const monitor::DriftSubject& subject) override;
  Status ForgetFreeze(const monitor::DriftSubject& subject) override;

  // The registry key of a subject's kept freeze.
  static std::string FreezeKey(const monitor::DriftSubject& subject);

 private:
  journal::Journal& journal_;
};

}  // namespace verdict
