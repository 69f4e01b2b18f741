#include "webhooks/webhook_dispatcher.h"

#include <gtest/gtest.h>

#include "webhooks/webhook_routes.h"
#include "webhooks/webhook_test_util.h"

namespace verdict::webhooks {
namespace {

using journal::testing_util::TempDir;
using journal::testing_util::WriteEntries;
using testing_util::OpenTestJournal;
using testing_util::ScriptedSender;
using testing_util::SenderLog;

EndpointOptions Hook(std::string url, std::string tenant) {
  EndpointOptions e;
  e.url = std::move(url);
  e.tenant = std::move(tenant);
  e.events = {"decision.flagged"};
  e.secret = "s3cret";
  e.retry_initial_ms = 1;
  e.retry_max_ms = 4;
  return e;
}

TEST(WebhookDispatcherTest, AnEndpointThatIsDownHoldsUpNoOther) {
  TempDir dir;
  auto j = OpenTestJournal(dir);
  auto down = std::make_shared<SenderLog>();
  down->Script({}, 500);
  auto up = std::make_shared<SenderLog>();
  DispatcherOptions options;
  options.endpoints = {Hook("http://127.0.0.1:9/down", ""), Hook("http://127.0.0.1:9/up", "")};
  options.tuning.idle_poll = std::chrono::milliseconds(5);
  options.make_sender = [&](const EndpointOptions& e) -> Result<std::unique_ptr<WebhookSender>> {
    return std::unique_ptr<WebhookSender>(
        std::make_unique<ScriptedSender>(e.url.ends_with("/down") ? down : up));
  };
  auto dispatcher = WebhookDispatcher::Create(options, *j, SystemClock::Instance(), nullptr);
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status().message();
  WriteEntries(*j, 1, 6);  // 4 flagged
  ASSERT_TRUE(up->WaitForDelivered(4));
  EXPECT_TRUE(down->Delivered().empty());
  // Two attempts sent: the first one's failure is in the status.
  for (int i = 0; i < 1000 && down->sent().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  const std::vector<EndpointStatus> status = (*dispatcher)->StatusFor("bank-a");
  ASSERT_EQ(status.size(), 2u);
  const EndpointStatus& stuck = status[0];
  EXPECT_EQ(stuck.delivered_through_seq, 0u);
  EXPECT_GT(stuck.failed_attempts_total, 0u);
  EXPECT_FALSE(stuck.retrying_delivery.empty());
  EXPECT_EQ(stuck.last_error, "answered HTTP 500");
  const std::string json = EndpointsToJson(status);
  EXPECT_NE(json.find(R"("last_status":500)"), std::string::npos) << json;
  EXPECT_EQ(json.find("s3cret"), std::string::npos) << json;
}

TEST(WebhookDispatcherTest, ATenantSeesItsOwnEndpointsAndTheDeployments) {
  TempDir dir;
  auto j = OpenTestJournal(dir);
  auto log = std::make_shared<SenderLog>();
  DispatcherOptions options;
  options.endpoints = {Hook("http://127.0.0.1:9/all", ""), Hook("http://127.0.0.1:9/a", "bank-a"),
                       Hook("http://127.0.0.1:9/b", "bank-b")};
  options.make_sender = [&](const EndpointOptions&) -> Result<std::unique_ptr<WebhookSender>> {
    return std::unique_ptr<WebhookSender>(std::make_unique<ScriptedSender>(log));
  };
  auto dispatcher = WebhookDispatcher::Create(options, *j, SystemClock::Instance(), nullptr);
  ASSERT_TRUE(dispatcher.ok()) << dispatcher.status().message();
  const std::vector<EndpointStatus> seen = (*dispatcher)->StatusFor("bank-a");
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].url, "http://127.0.0.1:9/all");
  EXPECT_EQ(seen[1].url, "http://127.0.0.1:9/a");
}

}  // namespace
}  // namespace verdict::webhooks
