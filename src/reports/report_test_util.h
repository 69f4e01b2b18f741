// Helpers shared by the reports tests (one translation unit under VERDICT_UNITY_TESTS): a
// hand-made escalated case's report data and a fully configured reporting entity. Test-only.
#pragma once

#include <string>

#include "reports/report_data.h"
#include "reports/report_options.h"

namespace verdict::reports::testing_util {

// 2026-12-02T10:15:30Z in UTC microseconds.
inline constexpr int64_t kTransactionAt = 1'796'206'530'000'000;

inline ReportData EscalatedReportData() {
  ReportData d;
  cases::Case& c = d.case_file;
  c.case_id = "01a2528b-eec8-715d-a4d8-d60ea12c62a1";
  c.decision_id = c.case_id;
  c.tenant = "bank-a";
  c.transaction_id = "tx-1";
  c.status = cases::CaseStatus::kClosed;
  c.disposition = cases::Disposition::kEscalated;
  c.disposition_note = "Same-day pass-through to a new counterparty.";
  c.assignee = "key:analyst";
  c.outcome = "review";
  c.sender_account = "ACC-1";
  c.closed_at_us = kTransactionAt + 3'600'000'000;
  c.history = {{kTransactionAt, "engine", "open", "review"},
               {kTransactionAt + 1, "key:analyst", "dispose", "escalated"}};
  c.comments = {{kTransactionAt + 2, "key:analyst", "Called the customer."}};
  ReportTransaction& t = d.transaction;
  t.transaction_id = "tx-1";
  t.timestamp_us = kTransactionAt;
  t.amount = "9950.00";
  t.currency = "USD";
  t.channel = "wire";
  t.type = "transfer";
  t.remittance = "invoice 4411";
  t.sender = {"ACC-1", "BANKUS33", "US", "John Smith"};
  t.receiver = {"ACC-2", "BANKGB22", "GB", "Acme Ltd"};
  d.decision.transaction_id = "tx-1";
  d.decision.outcome = Outcome::kReview;
  d.decision.score = 0.87;
  d.decision.reasons = {{"STRUCTURING", "structuring_24h", "4 amounts within 10% below 10,000"},
                        {"AMOUNT_THRESHOLD", "amount_threshold", "at or above 9,000"}};
  d.decision.contributions = {{"sender_near_threshold_count_24h", 4, 1.42}};
  d.contributions_source = "journal";
  d.proof.seq = 4;
  d.proof.record_hash = std::string(64, 'e');
  d.proof.input_sha256 = std::string(64, 'f');
  d.proof.anchor = ProofAnchor::kCheckpoint;
  d.proof.tree_size = 8;
  d.proof.root = std::string(64, 'a');
  d.proof.path = {std::string(64, '1'), std::string(64, '2')};
  d.proof.verified = true;
  d.proof.checkpoint_size = 8;
  d.proof.signature_valid = true;
  return d;
}

inline ReportingEntity ConfiguredEntity() {
  ReportingEntity e;
  e.tenant = "bank-a";
  ReportingEntitySettings& s = e.settings;
  s.rentity_id = 4711;
  s.institution_name = "Example Bank";
  s.institution_swift = "BANKUS33";
  s.currency_code_local = "USD";
  s.funds_code = "K";
  s.default_transmode_code = "E";
  s.default_indicator = "OTHER";
  s.person_first_name = "Maria";
  s.person_last_name = "Lopez";
  s.indicators = {{"STRUCTURING", "SA-STRUCT"}, {"AMOUNT_THRESHOLD", "SA-STRUCT"}};
  return e;
}

}  // namespace verdict::reports::testing_util
