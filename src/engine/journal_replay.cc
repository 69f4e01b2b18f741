#include "engine/journal_replay.h"

#include <cstring>
#include <map>

#include "api/transaction_json.h"
#include "common/json_writer.h"
#include "engine/caller.h"
#include "features/account_state_codec.h"
#include "features/feature_extractor.h"
#include "journal/exporter.h"

namespace verdict {
namespace {

// The state key the engine journals for an account (engine.cc's state updates).
std::string StateKey(const journal::JournalRecord& record, const std::string& account) {
  return TenantAccountKey(record.tenant, account);
}

bool SameBits(const FeatureVector& computed, const std::vector<double>& journaled) {
  return computed.size() == journaled.size() &&
         std::memcmp(computed.data(), journaled.data(), computed.size() * sizeof(double)) == 0;
}

}  // namespace

Result<JournalReplayReport> ReplayJournal(const std::string& journal_dir,
                                          const std::string& kek_file) {
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<journal::JournalReader> reader,
                           journal::JournalReader::Open(journal_dir, kek_file));
  return ReplayJournal(*reader);
}

Result<JournalReplayReport> ReplayJournal(const journal::JournalReader& reader) {
  JournalReplayReport report;
  std::map<std::string, AccountState> states;  // ordered, to compare with the store's order
  TransactionDecoder decoder;
  FeatureVector features{};
  VERDICT_RETURN_IF_ERROR(reader.ForEachRecord([&](const journal::JournalRecord& record) {
    if (record.kind == journal::RecordKind::kAdminEvent) {
      ++report.admin_events;
      return Status::Ok();
    }
    const bool history = record.kind == journal::RecordKind::kHistory;
    ++(history ? report.history : report.decisions);
    Result<Transaction> txn = decoder.DecodeOne(record.canonical_input);
    if (!txn.ok()) {
      return Internal("record " + std::to_string(record.seq) +
                      ": the journaled input does not decode: " + txn.status().ToString());
    }
    AccountState& sender = states[StateKey(record, txn->sender.ref.account)];
    AccountState& receiver = states[StateKey(record, txn->receiver.ref.account)];
    // History was applied without a decision: there is no feature vector to compare.
    if (history) {
      ApplyTransaction(*txn, sender, receiver);
      return Status::Ok();
    }
    ExtractFeatures(*txn, sender, receiver, &features);
    if (!SameBits(features, record.features)) {
      if (report.feature_mismatches++ == 0) report.first_feature_mismatch_seq = record.seq;
    }
    ApplyTransaction(*txn, sender, receiver);
    return Status::Ok();
  }));
  report.accounts = states.size();

  auto mismatch = [&report](std::string what) {
    if (report.state_mismatches++ == 0) report.first_state_mismatch = std::move(what);
  };
  auto next = states.begin();
  VERDICT_RETURN_IF_ERROR(reader.ForEachState([&](std::string_view key, std::string_view value) {
    for (; next != states.end() && next->first < key; ++next) {
      mismatch(next->first + ": recomputed but not stored");
    }
    if (next == states.end() || next->first != key) {
      mismatch(std::string(key) + ": stored but no journaled transaction touches it");
      return Status::Ok();
    }
    if (EncodeAccountState(next->second) != value) mismatch(next->first + ": stored state differs");
    ++next;
    return Status::Ok();
  }));
  for (; next != states.end(); ++next) mismatch(next->first + ": recomputed but not stored");
  return report;
}

std::string JournalReplayReportToJson(const JournalReplayReport& report) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("ok").Bool(report.ok());
  w.Key("decisions").Uint(report.decisions);
  w.Key("history").Uint(report.history);
  w.Key("admin_events").Uint(report.admin_events);
  w.Key("accounts").Uint(report.accounts);
  w.Key("feature_mismatches").Uint(report.feature_mismatches);
  w.Key("first_feature_mismatch_seq").Uint(report.first_feature_mismatch_seq);
  w.Key("state_mismatches").Uint(report.state_mismatches);
  w.Key("first_state_mismatch").String(report.first_state_mismatch);
  w.EndObject();
  return out;
}

}  // namespace verdict
