// DriftRecorder: where drift monitors put on record what they decide on their own (a level-3
// alert, a freeze) and find a freeze an earlier run left in force, so that a freeze lasts until
// an operator's journaled clear, across restarts. The engine's implementation journals admin
// events and keeps the freeze in the registry. Implementations must be thread-safe: every
// monitor's thread and the clear route call them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/status.h"

namespace verdict::monitor {

// One model version's monitor, in one scope ("" for the deployment's models, else a tenant).
struct DriftSubject {
  std::string_view scope;
  std::string_view model_name;
  std::string_view model_version;
};

// A level-3 alert ("drift.alert") or a freeze ("drift.freeze").
struct DriftRecord {
  std::string action;
  int level = 0;
  double drift_score = 0;
  int64_t time_us = 0;
  std::string message;
};

// A freeze kept for the next start.
struct PersistedFreeze {
  int64_t since_us = 0;
  double drift_score = 0;
};

class DriftRecorder {
 public:
  virtual ~DriftRecorder() = default;
  // Journals the record; a freeze is also kept (FindFreeze finds it from then on).
  virtual Status Record(const DriftSubject& subject, const DriftRecord& record) = 0;
  // The freeze in force for the subject, if any.
  virtual Result<std::optional<PersistedFreeze>> FindFreeze(const DriftSubject& subject) = 0;
  // Drops the kept freeze (the clear itself is journaled by whoever clears).
  virtual Status ForgetFreeze(const DriftSubject& subject) = 0;
};

}  // namespace verdict::monitor
