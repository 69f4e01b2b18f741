// ReportData: everything a suspicious transaction report says about one case, gathered from the
// case and its decision's journal record (the transaction exactly as journaled, the reasons,
// the contributions, the journal proof) and the account's recent journaled activity. The goAML
// and HTML writers only format it. Value type; GatherReportData reads the journal and is
// thread-safe as the journal's reads are.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cases/case.h"
#include "common/result.h"
#include "core/decision.h"
#include "journal/journal.h"
#include "reports/journal_proof.h"

namespace verdict::reports {

// One side of the transaction, as the transaction's JSON carried it (empty: not given).
struct Party {
  std::string account;
  std::string bank;  // BIC
  std::string country;
  std::string name;
};

struct ReportTransaction {
  std::string transaction_id;
  int64_t timestamp_us = 0;  // the transaction's event time, UTC
  std::string amount;        // decimal text with the currency's fraction digits
  std::string currency;
  std::string channel;
  std::string type;
  std::string remittance;
  Party sender;
  Party receiver;
};

// One journaled decision of the case's account, for the narrative's context.
struct ActivityRow {
  std::string transaction_id;
  int64_t timestamp_us = 0;
  std::string direction;  // "out" or "in", seen from the case's account
  std::string counterparty;
  std::string amount;
  std::string currency;
  std::string outcome;
  std::vector<std::string> reasons;
};

struct ReportData {
  cases::Case case_file;
  ReportTransaction transaction;
  Decision decision;  // as journaled (contributions possibly recomputed, see below)
  // "journal": the record carried them; "recomputed": by the model that decided, from the
  // record's features; "none": rules decided, or that model is no longer loaded.
  std::string contributions_source = "none";
  int64_t decided_at_us = 0;
  JournalProof proof;
  std::vector<ActivityRow> activity;  // newest first
};

// Recomputes a record's contributions when it carries none (empty: cannot).
using Explainer = std::function<std::vector<Contribution>(const journal::JournalRecord&)>;

// How many of the account's latest records the narrative shows.
inline constexpr size_t kActivityRows = 25;

// Reads the case's decision record (kDataLoss naming the case when it is missing, of another
// tenant, or holds no transaction) and the rest. `explain` may be empty.
Result<ReportData> GatherReportData(const journal::Journal& journal, const cases::Case& c,
                                    const Explainer& explain);

// The transaction as journaled (canonical JSON); kDataLoss when it cannot be read.
Result<ReportTransaction> ParseJournaledTransaction(std::string_view canonical_json);

}  // namespace verdict::reports
