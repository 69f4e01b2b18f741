#include "webhooks/webhook_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "journal/test_util.h"

namespace verdict::webhooks {
namespace {

Result<std::vector<EndpointOptions>> Parse(std::string_view text, const std::string& dir = "") {
  const toml::table root = toml::parse(text);
  return ParseWebhookTables(root.get("webhooks"), dir);
}

// The field of the error parsing `text` gives.
std::string ErrorField(std::string_view text) {
  auto parsed = Parse(text);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : parsed.status().field();
}

TEST(WebhookConfigTest, ReadsEndpointsWithDefaults) {
  auto parsed = Parse(R"(
[[webhooks]]
url = "http://127.0.0.1:9000/hooks"
events = ["decision.flagged", "case.opened"]
secret = "s3cret"

[[webhooks]]
url = "http://127.0.0.1:9001/"
events = ["model.rolled_back"]
secret = "other"
tenant = "bank-a"
timeout_ms = 250
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].tenant, "");
  EXPECT_TRUE((*parsed)[0].Wants("case.opened"));
  EXPECT_FALSE((*parsed)[0].Wants("drift.alert"));
  EXPECT_EQ((*parsed)[0].timeout_ms, 5000);
  EXPECT_EQ((*parsed)[1].tenant, "bank-a");
  EXPECT_EQ((*parsed)[1].timeout_ms, 250);
}

TEST(WebhookConfigTest, NoTablesNoEndpoints) {
  auto parsed = Parse("[server]\n");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
}

TEST(WebhookConfigTest, ErrorsNameTheKey) {
  constexpr std::string_view kHead = "[[webhooks]]\nurl = \"http://127.0.0.1:9/\"\n";
  EXPECT_EQ(ErrorField("[webhooks]\nurl = \"http://127.0.0.1:9/\"\n"), "webhooks");
  EXPECT_EQ(ErrorField("[[webhooks]]\nevents = [\"drift.alert\"]\nsecret = \"s\"\n"),
            "webhooks[0].url");
  EXPECT_EQ(ErrorField(std::string(kHead) + "events = [\"decision.made\"]\nsecret = \"s\"\n"),
            "webhooks[0].events");
  EXPECT_EQ(ErrorField(std::string(kHead) + "secret = \"s\"\n"), "webhooks[0].events");
  EXPECT_EQ(ErrorField(std::string(kHead) + "events = [\"drift.alert\"]\n"), "webhooks[0].secret");
  EXPECT_EQ(ErrorField(std::string(kHead) +
                       "events = [\"drift.alert\"]\nsecret = \"s\"\nsecret_file = \"f\"\n"),
            "webhooks[0].secret");
  EXPECT_EQ(ErrorField(std::string(kHead) + "events = [\"drift.alert\"]\nsecret = \"s\"\nx = 1\n"),
            "webhooks[0].x");
  EXPECT_EQ(ErrorField("[[webhooks]]\nurl = \"https:///hooks\"\nevents = "
                       "[\"drift.alert\"]\nsecret = \"s\"\n"),
            "webhooks[0].url");
  EXPECT_EQ(ErrorField("[[webhooks]]\nurl = \"https://example.com:x/\"\nevents = "
                       "[\"drift.alert\"]\nsecret = \"s\"\n"),
            "webhooks[0].url");
  EXPECT_EQ(ErrorField(std::string(kHead) +
                       "events = [\"drift.alert\"]\nsecret = \"s\"\nca_file = \"/etc/hostname\"\n"),
            "webhooks[0].ca_file");
  EXPECT_EQ(ErrorField("[[webhooks]]\nurl = \"https://example.com/\"\nevents = "
                       "[\"drift.alert\"]\nsecret = \"s\"\nca_file = \"/nonexistent/ca.pem\"\n"),
            "webhooks[0].ca_file");
  EXPECT_EQ(ErrorField(std::string(kHead) +
                       "events = [\"drift.alert\"]\nsecret = \"s\"\nretry_initial_ms = 10\n"
                       "retry_max_ms = 5\n"),
            "webhooks[0].retry_max_ms");
  EXPECT_EQ(ErrorField(std::string(kHead) + "events = [\"drift.alert\"]\nsecret_file = "
                                            "\"/nonexistent/secret\"\n"),
            "webhooks[0].secret_file");
  const std::string twice = std::string(kHead) + "events = [\"drift.alert\"]\nsecret = \"s\"\n";
  EXPECT_EQ(ErrorField(twice + twice), "webhooks[1].url");
}

TEST(WebhookConfigTest, SecretFileIsReadRelativeToTheConfigurationWithoutItsNewline) {
  journal::testing_util::TempDir dir;
  std::ofstream(dir.Sub("hook.secret")) << "from-a-file\n";
  auto parsed = Parse(
      "[[webhooks]]\nurl = \"http://127.0.0.1:9/\"\nevents = [\"drift.alert\"]\n"
      "secret_file = \"hook.secret\"\n",
      dir.path());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ((*parsed)[0].secret, "from-a-file");
}

TEST(WebhookConfigTest, AnErrorNeverQuotesTheSecret) {
  auto parsed = Parse(
      "[[webhooks]]\nurl = \"http://127.0.0.1:9/\"\nevents = [\"nope\"]\nsecret = \"hunter2\"\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message().find("hunter2"), std::string::npos);
}

}  // namespace
}  // namespace verdict::webhooks
