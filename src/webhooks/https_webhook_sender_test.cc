// https webhook URLs: host, port (443 by default), target; and a ca_file that is not PEM
// certificates is refused naming the key.
#include "webhooks/https_webhook_sender.h"

#include <gtest/gtest.h>

namespace verdict::webhooks {
namespace {

TEST(HttpsUrlTest, ReadsHostPortAndTarget) {
  Result<HttpsUrl> url = ParseHttpsUrl("https://hooks.example.com/v1/in?x=1");
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(url->host, "hooks.example.com");
  EXPECT_EQ(url->port, "443");
  EXPECT_EQ(url->target, "/v1/in?x=1");
  url = ParseHttpsUrl("https://127.0.0.1:8443");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, "8443");
  EXPECT_EQ(url->target, "/");
  url = ParseHttpsUrl("https://[::1]:9443/h");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, "9443");
  url = ParseHttpsUrl("https://[::1]/h");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, "443");
}

TEST(HttpsUrlTest, RefusesWhatIsNotAnHttpsUrl) {
  for (const char* bad : {"http://a:1/", "https://", "https:///x", "https://a:/x", "https://a:b/",
                          "https://user@a/"}) {
    Result<HttpsUrl> url = ParseHttpsUrl(bad);
    EXPECT_FALSE(url.ok()) << bad;
    if (!url.ok()) {
      EXPECT_EQ(url.status().field(), "url") << bad;
    }
  }
}

TEST(HttpsSenderTest, ACaFileThatIsNotCertificatesIsRefused) {
  Result<std::unique_ptr<WebhookSender>> sender =
      MakeHttpsWebhookSender("https://127.0.0.1:9/", "/etc/hostname");
  ASSERT_FALSE(sender.ok());
  EXPECT_EQ(sender.status().field(), "ca_file");
}

}  // namespace
}  // namespace verdict::webhooks
