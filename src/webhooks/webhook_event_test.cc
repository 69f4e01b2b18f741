#include "webhooks/webhook_event.h"

#include <gtest/gtest.h>

#include "journal/test_util.h"

namespace verdict::webhooks {
namespace {

using journal::testing_util::MakeRecord;

journal::JournalRecord Admin(std::string action, std::string object, std::string details) {
  journal::JournalRecord r;
  r.kind = journal::RecordKind::kAdminEvent;
  r.seq = 9;
  r.tenant = "bank-a";
  r.principal = "analyst-1";
  r.decided_at_us = 1'700'000'000'000'000;
  r.record_hash[0] = 9;
  r.admin = {std::move(action), std::move(object), std::move(details)};
  return r;
}

TEST(WebhookEventTest, FlaggedDecisionRaisesFlaggedAndCaseOpened) {
  journal::JournalRecord review = MakeRecord(1);  // outcome 1 % 3: review
  review.seq = 1;
  const std::vector<WebhookEvent> events = EventsFromRecord(review);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "decision.flagged");
  EXPECT_EQ(events[1].name, "case.opened");
  EXPECT_EQ(events[0].tenant, "bank-a");
  EXPECT_EQ(events[0].delivery_id.size(), 32u);
  EXPECT_NE(events[0].delivery_id, events[1].delivery_id);
  EXPECT_NE(events[0].body.find(R"("type":"decision.flagged")"), std::string::npos);
  EXPECT_NE(events[0].body.find(R"("outcome":"review")"), std::string::npos);
  EXPECT_NE(events[0].body.find(R"("id":")" + events[0].delivery_id + "\""), std::string::npos);
  // The same record gives the same ids: a redelivery carries the id the first attempt did.
  EXPECT_EQ(EventsFromRecord(review)[0].delivery_id, events[0].delivery_id);

  journal::JournalRecord allow = MakeRecord(3);  // outcome 0: allow
  EXPECT_TRUE(EventsFromRecord(allow).empty());
}

TEST(WebhookEventTest, AdminEventsRaiseTheirEvents) {
  auto disposed = EventsFromRecord(Admin("cases.dispose", "case-1", R"({"disposition":"fraud"})"));
  ASSERT_EQ(disposed.size(), 1u);
  EXPECT_EQ(disposed[0].name, "case.disposed");
  EXPECT_NE(disposed[0].body.find(R"("details":{"disposition":"fraud"})"), std::string::npos);
  EXPECT_EQ(EventsFromRecord(Admin("drift.alert", "aml/3", "{}"))[0].name, "drift.alert");
  EXPECT_EQ(EventsFromRecord(Admin("models.rollback", "aml/4", ""))[0].name, "model.rolled_back");
  EXPECT_TRUE(EventsFromRecord(Admin("keys.create", "k1", "{}")).empty());
  EXPECT_TRUE(EventsFromRecord(Admin("cases.assign", "case-1", "{}")).empty());
}

}  // namespace
}  // namespace verdict::webhooks
