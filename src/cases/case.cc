#include "cases/case.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace verdict::cases {
namespace {

constexpr std::array<std::string_view, 3> kStatusNames = {"open", "in_review", "closed"};
constexpr std::array<std::string_view, 5> kDispositionNames = {
    "", "true_positive", "false_positive", "escalated", "closed_no_action"};

Status FailedPrecondition(std::string message) {
  return Status(StatusCode::kFailedPrecondition, std::move(message));
}

Status CheckPrincipal(std::string_view principal) {
  if (principal.empty()) return InvalidArgument("the caller has no principal", "principal");
  if (principal.size() > kMaxPrincipalBytes) {
    return InvalidArgument("principal is longer than 256 bytes", "principal");
  }
  return Status::Ok();
}

void Record(Case& c, std::string_view principal, std::string_view action, std::string_view detail,
            int64_t now_us) {
  c.history.push_back({now_us, std::string(principal), std::string(action), std::string(detail)});
  c.updated_at_us = now_us;
}

}  // namespace

std::string_view CaseStatusName(CaseStatus status) {
  return kStatusNames[static_cast<size_t>(status)];
}

Result<CaseStatus> ParseCaseStatus(std::string_view name) {
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (kStatusNames[i] == name) return static_cast<CaseStatus>(i);
  }
  return InvalidArgument(
      "status must be open, in_review or closed, not '" + std::string(name) + "'", "status");
}

std::string_view DispositionName(Disposition disposition) {
  return kDispositionNames[static_cast<size_t>(disposition)];
}

Result<Disposition> ParseDisposition(std::string_view name) {
  for (size_t i = 1; i < kDispositionNames.size(); ++i) {
    if (kDispositionNames[i] == name) return static_cast<Disposition>(i);
  }
  return InvalidArgument(
      "disposition must be true_positive, false_positive, escalated or closed_no_action, not '" +
          std::string(name) + "'",
      "disposition");
}

std::optional<int> LabelOf(Disposition disposition) {
  switch (disposition) {
    case Disposition::kTruePositive:
    case Disposition::kEscalated:
      return 1;
    case Disposition::kFalsePositive:
    case Disposition::kClosedNoAction:
      return 0;
    case Disposition::kNone:
      break;
  }
  return std::nullopt;
}

Status Assign(Case& c, std::string_view principal, std::string_view assignee, int64_t now_us) {
  VERDICT_RETURN_IF_ERROR(CheckPrincipal(principal));
  if (assignee.empty()) return InvalidArgument("assignee must not be empty", "assignee");
  if (assignee.size() > kMaxPrincipalBytes) {
    return InvalidArgument("assignee is longer than 256 bytes", "assignee");
  }
  // The rule for principals (security::ValidatePrincipal): anything else could never dispose.
  for (char ch : assignee) {
    if (ch < 0x20 || ch >= 0x7f) {
      return InvalidArgument("assignee must be printable ASCII characters", "assignee");
    }
  }
  if (c.status == CaseStatus::kClosed) {
    return FailedPrecondition("case " + c.case_id + " is closed; it cannot be reassigned");
  }
  if (c.status == CaseStatus::kInReview && c.assignee == assignee) return Status::Ok();
  const auto assignments = std::count_if(c.history.begin(), c.history.end(),
                                         [](const CaseEvent& e) { return e.action == "assign"; });
  if (static_cast<size_t>(assignments) >= kMaxAssignments) {
    return FailedPrecondition("case " + c.case_id + " was assigned " +
                              std::to_string(kMaxAssignments) + " times already");
  }
  c.assignee = std::string(assignee);
  c.status = CaseStatus::kInReview;
  Record(c, principal, "assign", assignee, now_us);
  return Status::Ok();
}

Status AddComment(Case& c, std::string_view principal, std::string_view text, int64_t now_us) {
  VERDICT_RETURN_IF_ERROR(CheckPrincipal(principal));
  if (text.empty()) return InvalidArgument("text must not be empty", "text");
  if (text.size() > kMaxCommentBytes) {
    return InvalidArgument("text is longer than 8192 bytes", "text");
  }
  if (c.comments.size() >= kMaxComments) {
    return FailedPrecondition("case " + c.case_id + " already has 1000 comments");
  }
  c.comments.push_back({now_us, std::string(principal), std::string(text)});
  Record(c, principal, "comment", "", now_us);
  return Status::Ok();
}

Status Dispose(Case& c, std::string_view principal, Disposition disposition, std::string_view note,
               int64_t now_us) {
  VERDICT_RETURN_IF_ERROR(CheckPrincipal(principal));
  if (disposition == Disposition::kNone) {
    return InvalidArgument("a disposition is required", "disposition");
  }
  if (note.size() > kMaxCommentBytes) {
    return InvalidArgument("note is longer than 8192 bytes", "note");
  }
  if (c.status == CaseStatus::kOpen) {
    return FailedPrecondition("case " + c.case_id + " is open; assign it before disposing");
  }
  if (c.status == CaseStatus::kClosed) {
    return FailedPrecondition("case " + c.case_id + " is already closed as " +
                              std::string(DispositionName(c.disposition)));
  }
  if (c.assignee != principal) {
    return Status(StatusCode::kPermissionDenied, "case " + c.case_id + " is assigned to " +
                                                     c.assignee +
                                                     "; only the assignee may dispose it");
  }
  c.disposition = disposition;
  c.disposition_note = std::string(note);
  c.status = CaseStatus::kClosed;
  c.closed_at_us = now_us;
  Record(c, principal, "dispose", DispositionName(disposition), now_us);
  return Status::Ok();
}

}  // namespace verdict::cases
