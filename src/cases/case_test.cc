#include "cases/case.h"

#include <gtest/gtest.h>

#include "cases/case_json.h"

namespace verdict::cases {
namespace {

Case OpenCase() {
  Case c;
  c.case_id = "c1";
  c.tenant = "bank-a";
  c.transaction_id = "tx-1";
  c.opened_at_us = 1000;
  c.updated_at_us = 1000;
  return c;
}

TEST(CaseTest, AssignMovesOpenToInReview) {
  Case c = OpenCase();
  ASSERT_TRUE(Assign(c, "alice", "alice", 2000).ok());
  EXPECT_EQ(c.status, CaseStatus::kInReview);
  EXPECT_EQ(c.assignee, "alice");
  EXPECT_EQ(c.updated_at_us, 2000);
  ASSERT_EQ(c.history.size(), 1u);
  EXPECT_EQ(c.history[0].action, "assign");
  EXPECT_EQ(c.history[0].detail, "alice");
}

TEST(CaseTest, ReassignWhileInReview) {
  Case c = OpenCase();
  ASSERT_TRUE(Assign(c, "lead", "alice", 2000).ok());
  ASSERT_TRUE(Assign(c, "lead", "bob", 3000).ok());
  EXPECT_EQ(c.status, CaseStatus::kInReview);
  EXPECT_EQ(c.assignee, "bob");
}

TEST(CaseTest, AssignRefusesEmptyAssigneeAndClosedCase) {
  Case c = OpenCase();
  Status s = Assign(c, "alice", "", 2000);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.field(), "assignee");
  EXPECT_EQ(c.status, CaseStatus::kOpen);
  EXPECT_TRUE(c.history.empty());

  ASSERT_TRUE(Assign(c, "alice", "alice", 2000).ok());
  ASSERT_TRUE(Dispose(c, "alice", Disposition::kFalsePositive, "", 3000).ok());
  s = Assign(c, "bob", "bob", 4000);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(c.assignee, "alice");
  EXPECT_EQ(c.status, CaseStatus::kClosed);
}

// An assignee no principal could be (a line break, say) could never dispose the case.
TEST(CaseTest, AssignRefusesAnAssigneeThatIsNoPrincipal) {
  Case c = OpenCase();
  for (const char* bad : {"bob\n", "bob\tsmith",
                          "b\xc3\xb6"
                          "b"}) {
    Status s = Assign(c, "lead", bad, 2000);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(s.field(), "assignee");
  }
  EXPECT_EQ(c.status, CaseStatus::kOpen);
  EXPECT_TRUE(c.history.empty());
}

// Every change rewrites the whole case, history and all: assignments are bounded, and a
// repeated one (a client's retry) records nothing.
TEST(CaseTest, AssignmentsAreBoundedAndARepeatRecordsNothing) {
  Case c = OpenCase();
  ASSERT_TRUE(Assign(c, "lead", "alice", 2000).ok());
  ASSERT_TRUE(Assign(c, "lead", "alice", 2001).ok());
  EXPECT_EQ(c.history.size(), 1u);
  EXPECT_EQ(c.updated_at_us, 2000);
  for (size_t i = 1; i < kMaxAssignments; ++i) {
    ASSERT_TRUE(Assign(c, "lead", i % 2 ? "bob" : "alice", 3000).ok()) << i;
  }
  ASSERT_EQ(c.history.size(), kMaxAssignments);
  const std::string assignee = c.assignee;
  Status s = Assign(c, "lead", assignee == "bob" ? "alice" : "bob", 4000);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(c.history.size(), kMaxAssignments);
  EXPECT_EQ(c.assignee, assignee);
  // The assignee can still dispose it.
  EXPECT_TRUE(Dispose(c, assignee, Disposition::kFalsePositive, "", 5000).ok());
}

TEST(CaseTest, AssignRefusesMissingPrincipal) {
  Case c = OpenCase();
  EXPECT_EQ(Assign(c, "", "alice", 2000).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status, CaseStatus::kOpen);
}

TEST(CaseTest, DisposeRequiresAssignmentFirst) {
  Case c = OpenCase();
  Status s = Dispose(c, "alice", Disposition::kTruePositive, "", 2000);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(c.status, CaseStatus::kOpen);
  EXPECT_EQ(c.disposition, Disposition::kNone);
}

TEST(CaseTest, OnlyTheAssigneeDisposes) {
  Case c = OpenCase();
  ASSERT_TRUE(Assign(c, "alice", "alice", 2000).ok());
  Status s = Dispose(c, "bob", Disposition::kTruePositive, "", 3000);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(c.status, CaseStatus::kInReview);
}

TEST(CaseTest, DisposeClosesWithEachDisposition) {
  for (Disposition d : {Disposition::kTruePositive, Disposition::kFalsePositive,
                        Disposition::kEscalated, Disposition::kClosedNoAction}) {
    Case c = OpenCase();
    ASSERT_TRUE(Assign(c, "alice", "alice", 2000).ok());
    ASSERT_TRUE(Dispose(c, "alice", d, "checked invoices", 3000).ok());
    EXPECT_EQ(c.status, CaseStatus::kClosed);
    EXPECT_EQ(c.disposition, d);
    EXPECT_EQ(c.disposition_note, "checked invoices");
    EXPECT_EQ(c.closed_at_us, 3000);
    EXPECT_EQ(c.history.back().action, "dispose");
    EXPECT_EQ(c.history.back().detail, DispositionName(d));
  }
}

TEST(CaseTest, DispositionIsFinal) {
  Case c = OpenCase();
  ASSERT_TRUE(Assign(c, "alice", "alice", 2000).ok());
  ASSERT_TRUE(Dispose(c, "alice", Disposition::kFalsePositive, "", 3000).ok());
  Status s = Dispose(c, "alice", Disposition::kTruePositive, "", 4000);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(c.disposition, Disposition::kFalsePositive);
  EXPECT_EQ(c.closed_at_us, 3000);
}

TEST(CaseTest, DisposeRefusesNoneAndLongNote) {
  Case c = OpenCase();
  ASSERT_TRUE(Assign(c, "alice", "alice", 2000).ok());
  EXPECT_EQ(Dispose(c, "alice", Disposition::kNone, "", 3000).field(), "disposition");
  EXPECT_EQ(Dispose(c, "alice", Disposition::kEscalated, std::string(9000, 'x'), 3000).field(),
            "note");
  EXPECT_EQ(c.status, CaseStatus::kInReview);
}

TEST(CaseTest, CommentsInAnyStatusButNotEmptyOrHuge) {
  Case c = OpenCase();
  ASSERT_TRUE(AddComment(c, "alice", "looking", 2000).ok());
  EXPECT_EQ(c.status, CaseStatus::kOpen);  // a comment does not start the review
  ASSERT_TRUE(Assign(c, "alice", "alice", 2500).ok());
  ASSERT_TRUE(Dispose(c, "alice", Disposition::kEscalated, "", 3000).ok());
  ASSERT_TRUE(AddComment(c, "bob", "SAR filed", 4000).ok());
  ASSERT_EQ(c.comments.size(), 2u);
  EXPECT_EQ(c.comments[1].principal, "bob");
  EXPECT_EQ(AddComment(c, "bob", "", 5000).field(), "text");
  EXPECT_EQ(AddComment(c, "bob", std::string(kMaxCommentBytes + 1, 'x'), 5000).field(), "text");
  EXPECT_EQ(c.comments.size(), 2u);
}

TEST(CaseTest, ParsesNames) {
  EXPECT_EQ(*ParseCaseStatus("in_review"), CaseStatus::kInReview);
  EXPECT_FALSE(ParseCaseStatus("pending").ok());
  EXPECT_EQ(*ParseDisposition("closed_no_action"), Disposition::kClosedNoAction);
  EXPECT_FALSE(ParseDisposition("").ok());
  EXPECT_FALSE(ParseDisposition("none").ok());
  EXPECT_EQ(LabelOf(Disposition::kEscalated), 1);
  EXPECT_EQ(LabelOf(Disposition::kTruePositive), 1);
  EXPECT_EQ(LabelOf(Disposition::kFalsePositive), 0);
  EXPECT_EQ(LabelOf(Disposition::kClosedNoAction), 0);
  EXPECT_FALSE(LabelOf(Disposition::kNone).has_value());
}

TEST(CaseJsonTest, RoundTrips) {
  Case c = OpenCase();
  c.decision_id = "d1";
  c.journal_seq = 42;
  c.outcome = "block";
  c.score = 0.8125;
  c.typologies = {"STRUCTURING", "FAN_IN"};
  c.sender_account = "A";
  c.receiver_account = "B";
  c.amount = "9950.00";
  c.currency = "USD";
  c.transaction_at_us = 1'764'670'530'123'456;
  ASSERT_TRUE(Assign(c, "alice", "alice", 1'764'670'531'000'000).ok());
  ASSERT_TRUE(AddComment(c, "alice", "quote \" and \n newline", 1'764'670'532'000'000).ok());
  ASSERT_TRUE(Dispose(c, "alice", Disposition::kEscalated, "SAR", 1'764'670'533'000'000).ok());
  auto back = CaseFromJson(CaseToJson(c));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(CaseToJson(*back), CaseToJson(c));
  EXPECT_EQ(back->comments[0].text, "quote \" and \n newline");
  EXPECT_EQ(back->disposition, Disposition::kEscalated);
  EXPECT_EQ(back->score, 0.8125);
}

TEST(CaseJsonTest, RefusesBadStoredCase) {
  EXPECT_FALSE(CaseFromJson("[]").ok());
  EXPECT_FALSE(CaseFromJson(R"({"case_id":"c","status":"weird"})").ok());
  EXPECT_FALSE(CaseFromJson(R"({"case_id":"c","journal_seq":"x"})").ok());
  EXPECT_FALSE(CaseFromJson(R"({"status":"open"})").ok());
}

}  // namespace
}  // namespace verdict::cases
