// Case: one flagged decision (outcome review or block) on an analyst's desk, and the state
// machine that moves it open -> in_review -> closed. Value type; not synchronized (CaseStore
// serializes changes). Every transition is a function that checks, then changes, or refuses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::cases {

enum class CaseStatus { kOpen = 0, kInReview = 1, kClosed = 2 };
std::string_view CaseStatusName(CaseStatus status);
Result<CaseStatus> ParseCaseStatus(std::string_view name);

enum class Disposition {
  kNone = 0,
  kTruePositive,    // the flag was right: suspicious activity
  kFalsePositive,   // the flag was wrong
  kEscalated,       // suspicious enough to file a SAR
  kClosedNoAction,  // looked at, nothing to do
};
std::string_view DispositionName(Disposition disposition);  // "" for kNone
// Only the four dispositions an analyst can record; "none" and others are refused.
Result<Disposition> ParseDisposition(std::string_view name);
// The training label a disposition stands for: 1 suspicious (true_positive, escalated),
// 0 not (false_positive, closed_no_action); nullopt for kNone.
std::optional<int> LabelOf(Disposition disposition);

struct CaseComment {
  int64_t at_us = 0;
  std::string principal;
  std::string text;
};

// One change, as the case keeps it (the journal keeps the same as an admin event).
struct CaseEvent {
  int64_t at_us = 0;
  std::string principal;
  std::string action;  // "open", "assign", "comment", "dispose"
  std::string detail;  // the assignee, the disposition; empty for comments and open
};

// A reason the decision gave, as journaled: its code (a typology) and its words.
struct CaseReason {
  std::string code;
  std::string message;
};

struct Case {
  std::string case_id;  // the decision id (one case per flagged decision)
  std::string tenant;
  CaseStatus status = CaseStatus::kOpen;
  // From the decision's journal record.
  std::string decision_id;
  std::string transaction_id;
  uint64_t journal_seq = 0;
  std::string outcome;  // "review" or "block"
  double score = 0;
  // The risk the decision ranks by (decision.h); absent for records journaled without one.
  std::optional<double> risk;
  std::vector<std::string> typologies;  // distinct reason codes, in the decision's order
  std::vector<CaseReason> reasons;      // every reason, in the decision's order
  std::string sender_account;
  std::string receiver_account;
  std::string amount;  // decimal text, as in the transaction
  std::string currency;
  int64_t transaction_at_us = 0;  // the transaction's event time
  int64_t opened_at_us = 0;       // when the decision was made
  int64_t updated_at_us = 0;
  // Analyst work.
  std::string assignee;  // empty: unassigned
  Disposition disposition = Disposition::kNone;
  std::string disposition_note;
  int64_t closed_at_us = 0;
  std::vector<CaseComment> comments;
  std::vector<CaseEvent> history;
};

// Limits on what an analyst may write into a case.
inline constexpr size_t kMaxPrincipalBytes = 256;
inline constexpr size_t kMaxCommentBytes = 8192;
inline constexpr size_t kMaxComments = 1000;
// Assignments recorded in a case's history: with kMaxComments and the one disposition, this
// bounds the history that every change of the case rewrites.
inline constexpr size_t kMaxAssignments = 1000;

// Transitions. Each validates its input and the case's status and either changes `c` (adding
// a history entry) or returns kInvalidArgument / kFailedPrecondition and leaves it unchanged.
// assign: open or in_review -> in_review; `assignee` 1 to kMaxPrincipalBytes printable ASCII
// characters (what a principal may be). Refused when closed, or after kMaxAssignments; assigning
// an in-review case to its assignee again changes nothing and records nothing.
Status Assign(Case& c, std::string_view principal, std::string_view assignee, int64_t now_us);
// comment: any status (notes may follow a closure); text non-empty, at most kMaxCommentBytes.
Status AddComment(Case& c, std::string_view principal, std::string_view text, int64_t now_us);
// dispose: in_review -> closed, only by the assignee; refused when open (assign first) or
// closed (a disposition is final).
Status Dispose(Case& c, std::string_view principal, Disposition disposition, std::string_view note,
               int64_t now_us);

}  // namespace verdict::cases
