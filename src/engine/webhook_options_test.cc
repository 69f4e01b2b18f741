// [[webhooks]] in the configuration (EngineOptions::webhooks), read by engine_options.cc through
// webhooks::ParseWebhookTables (whose own tests cover every key).
#include <gtest/gtest.h>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(WebhookOptionsTest, NoneByDefault) {
  auto options = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->webhooks.empty());
}

TEST(WebhookOptionsTest, ReadsTheArrayOfTablesBesideTheSections) {
  auto options = ParseEngineOptions(
      "[server]\nio_threads = 1\n\n[[webhooks]]\nurl = \"http://127.0.0.1:9000/h\"\n"
      "events = [\"decision.flagged\"]\nsecret = \"s\"\n\n[[webhooks]]\n"
      "url = \"http://127.0.0.1:9001/h\"\nevents = [\"case.disposed\"]\nsecret = \"t\"\n"
      "tenant = \"bank-a\"\n",
      "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  ASSERT_EQ(options->webhooks.size(), 2u);
  EXPECT_EQ(options->webhooks[1].tenant, "bank-a");
}

TEST(WebhookOptionsTest, AnErrorNamesTheFileAndTheKey) {
  auto options = ParseEngineOptions(
      "[[webhooks]]\nurl = \"http://127.0.0.1:9000/h\"\nevents = [\"decision.flagged\"]\n",
      "t.toml");
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().field(), "webhooks[0].secret");
  EXPECT_NE(options.status().message().find("t.toml"), std::string::npos);
}

}  // namespace
}  // namespace verdict
