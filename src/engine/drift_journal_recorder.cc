#include "engine/drift_journal_recorder.h"

#include <simdjson.h>

#include "common/json_writer.h"
#include "journal/admin_event.h"

namespace verdict {
namespace {

constexpr std::string_view kFreezePrefix = "drift-freeze/";
constexpr std::string_view kPrincipal = "drift-monitor";

std::string ModelObject(const monitor::DriftSubject& subject) {
  return std::string(subject.model_name) + "/" + std::string(subject.model_version);
}

}  // namespace

std::string DriftJournalRecorder::FreezeKey(const monitor::DriftSubject& subject) {
  // Scope, name and version each end in a NUL, which none of them can hold: no two subjects
  // share a key.
  std::string key(kFreezePrefix);
  for (std::string_view part : {subject.scope, subject.model_name, subject.model_version}) {
    key.append(part);
    key.push_back('\0');
  }
  return key;
}

Status DriftJournalRecorder::Record(const monitor::DriftSubject& subject,
                                    const monitor::DriftRecord& record) {
  std::string details;
  JsonWriter d(details);
  d.BeginObject()
      .Key("level")
      .Int(record.level)
      .Key("drift_score")
      .Double(record.drift_score)
      .Key("time_us")
      .Int(record.time_us)
      .Key("message")
      .String(record.message)
      .EndObject();
  // On record first: a freeze is kept only once the journal says it happened.
  VERDICT_RETURN_IF_ERROR(journal_.RecordAdminEvent(journal::AdminEvent{
      subject.scope.empty() ? std::string("default") : std::string(subject.scope),
      std::string(kPrincipal), record.action, ModelObject(subject), details}));
  if (record.action != "drift.freeze") return Status::Ok();
  std::string kept;
  JsonWriter k(kept);
  k.BeginObject()
      .Key("since_us")
      .Int(record.time_us)
      .Key("drift_score")
      .Double(record.drift_score)
      .EndObject();
  return journal_.PutRegistry(FreezeKey(subject), kept);
}

Result<std::optional<monitor::PersistedFreeze>> DriftJournalRecorder::FindFreeze(
    const monitor::DriftSubject& subject) {
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> kept,
                           journal_.GetRegistry(FreezeKey(subject)));
  if (!kept.has_value()) return std::optional<monitor::PersistedFreeze>();
  const std::string where = "the kept drift freeze of " + ModelObject(subject);
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(*kept).get(object) != simdjson::SUCCESS) {
    return Status(StatusCode::kDataLoss, where + " is not a JSON object", "drift");
  }
  monitor::PersistedFreeze freeze;
  if (object["since_us"].get(freeze.since_us) != simdjson::SUCCESS ||
      object["drift_score"].get(freeze.drift_score) != simdjson::SUCCESS) {
    return Status(StatusCode::kDataLoss, where + " lacks since_us or drift_score", "drift");
  }
  return std::optional<monitor::PersistedFreeze>(freeze);
}

Status DriftJournalRecorder::ForgetFreeze(const monitor::DriftSubject& subject) {
  return journal_.DeleteRegistry(FreezeKey(subject));
}

}  // namespace verdict
