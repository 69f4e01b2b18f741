#include "webhooks/endpoint_worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "webhooks/webhook_signature.h"
#include "webhooks/webhook_test_util.h"

namespace verdict::webhooks {
namespace {

using journal::testing_util::TempDir;
using journal::testing_util::WriteEntries;
using testing_util::OpenTestJournal;
using testing_util::ScriptedSender;
using testing_util::SenderLog;

EndpointOptions Endpoint() {
  EndpointOptions e;
  e.url = "http://127.0.0.1:9/hooks";
  e.events = {"decision.flagged", "case.opened", "case.disposed", "drift.alert",
              "model.rolled_back"};
  e.secret = "s3cret";
  e.retry_initial_ms = 1;
  e.retry_max_ms = 4;
  return e;
}

std::unique_ptr<EndpointWorker> StartWorker(journal::Journal& j, std::shared_ptr<SenderLog> log,
                                            EndpointOptions e = Endpoint()) {
  EndpointWorker::Tuning tuning;
  tuning.idle_poll = std::chrono::milliseconds(5);
  auto worker = EndpointWorker::Start(std::move(e), j, std::make_unique<ScriptedSender>(log),
                                      SystemClock::Instance(), nullptr, tuning);
  EXPECT_TRUE(worker.ok()) << worker.status().message();
  return worker.ok() ? std::move(worker).value() : nullptr;
}

void RecordAdmin(journal::Journal& j, const std::string& action) {
  ASSERT_TRUE(j.RecordAdminEvent({"bank-a", "someone", action, "aml/4", "{}"}).ok());
}

TEST(EndpointWorkerTest, RetriesUntilDeliveredAndSignsEveryAttempt) {
  TempDir dir;
  auto j = OpenTestJournal(dir);
  auto log = std::make_shared<SenderLog>();
  log->Script({500, 0, 503});  // a failure, no answer, a failure; then 200s
  auto worker = StartWorker(*j, log);
  WriteEntries(*j, 1, 6);  // review, block, allow, review, block, allow: 4 flagged
  RecordAdmin(*j, "models.rollback");
  RecordAdmin(*j, "drift.alert");
  RecordAdmin(*j, "cases.dispose");
  RecordAdmin(*j, "keys.create");          // raises nothing
  ASSERT_TRUE(log->WaitForDelivered(11));  // 4 x (flagged + opened) + 3 admin events

  const std::vector<std::string> delivered = log->Delivered();
  EXPECT_EQ(std::set<std::string>(delivered.begin(), delivered.end()).size(), 11u);
  const std::vector<testing_util::SentRequest> sent = log->sent();
  ASSERT_EQ(sent.size(), 14u);
  // The three failures were the first event's attempts: the same delivery id each time.
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(sent[i].headers.at("Verdict-Delivery"), sent[0].headers.at("Verdict-Delivery"));
  }
  for (const testing_util::SentRequest& r : sent) {
    const std::string& signature = r.headers.at("Verdict-Signature");
    const size_t comma = signature.find(",v1=");
    ASSERT_EQ(signature.rfind("t=", 0), 0u);
    ASSERT_NE(comma, std::string::npos);
    const std::string timestamp = signature.substr(2, comma - 2);
    EXPECT_EQ(signature.substr(comma + 4), HmacSha256Hex("s3cret", timestamp + "." + r.body));
  }
  EXPECT_EQ(sent.back().headers.at("Verdict-Event"), "case.disposed");

  const EndpointStatus status = worker->status();
  EXPECT_EQ(status.delivered_total, 11u);
  EXPECT_EQ(status.failed_attempts_total, 3u);
  EXPECT_EQ(status.consecutive_failures, 0u);
  EXPECT_EQ(status.last_status, 200);
}

TEST(EndpointWorkerTest, ARestartResendsWhatWasNotDelivered) {
  TempDir dir;
  auto j = OpenTestJournal(dir);
  auto first_log = std::make_shared<SenderLog>();
  // Two deliveries succeed (record 1's flagged and opened), then the endpoint is down.
  first_log->Script({200, 200}, 500);
  auto worker = StartWorker(*j, first_log);
  WriteEntries(*j, 1, 5);  // flagged: 1, 2, 4, 5
  ASSERT_TRUE(first_log->WaitForDelivered(2));
  // Until it has failed at least once on record 2: then record 1's cursor is saved.
  for (int i = 0; i < 1000 && first_log->sent().size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  worker.reset();  // the process stops with six events undelivered

  auto second_log = std::make_shared<SenderLog>();
  worker = StartWorker(*j, second_log);
  ASSERT_TRUE(second_log->WaitForDelivered(6));
  const std::vector<std::string> first = first_log->Delivered();
  const std::vector<std::string> second = second_log->Delivered();
  // Nothing delivered before is sent again (record 1's cursor was saved), nothing is lost.
  for (const std::string& id : second) {
    EXPECT_EQ(std::count(first.begin(), first.end(), id), 0) << id;
  }
  EXPECT_EQ(worker->status().delivered_through_seq, 5u);
}

TEST(EndpointWorkerTest, ANewEndpointStartsAtTheHeadAndFiltersByTenantAndEvent) {
  TempDir dir;
  auto j = OpenTestJournal(dir);
  WriteEntries(*j, 1, 2);  // before the endpoint existed: not delivered
  auto log = std::make_shared<SenderLog>();
  EndpointOptions e = Endpoint();
  e.tenant = "bank-b";
  e.events = {"decision.flagged"};
  auto worker = StartWorker(*j, log, e);
  WriteEntries(*j, 3, 5, "bank-a");  // another tenant's
  WriteEntries(*j, 6, 8, "bank-b");  // 7 (review) and 8 (block) flagged
  ASSERT_TRUE(log->WaitForDelivered(2));
  for (int i = 0; i < 1000 && worker->status().delivered_through_seq < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(worker->status().delivered_through_seq, 8u);
  ASSERT_EQ(log->sent().size(), 2u);
  for (const testing_util::SentRequest& r : log->sent()) {
    EXPECT_EQ(r.headers.at("Verdict-Event"), "decision.flagged");
    EXPECT_NE(r.body.find(R"("tenant":"bank-b")"), std::string::npos);
  }
}

TEST(EndpointWorkerTest, RetryDelayDoublesUpToTheCap) {
  EndpointOptions e;
  e.retry_initial_ms = 100;
  e.retry_max_ms = 1000;
  EXPECT_EQ(RetryDelay(e, 1).count(), 100);
  EXPECT_EQ(RetryDelay(e, 2).count(), 200);
  EXPECT_EQ(RetryDelay(e, 4).count(), 800);
  EXPECT_EQ(RetryDelay(e, 5).count(), 1000);
  EXPECT_EQ(RetryDelay(e, 200).count(), 1000);
}

}  // namespace
}  // namespace verdict::webhooks
