#include "webhooks/webhook_signature.h"

#include <gtest/gtest.h>

namespace verdict::webhooks {
namespace {

TEST(WebhookSignatureTest, HmacMatchesRfc4231TestCase2) {
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(WebhookSignatureTest, HeaderSignsTimestampDotBody) {
  const std::string body = R"({"id":"x"})";
  EXPECT_EQ(SignatureHeaderValue("s3cret", 1765000000, body),
            "t=1765000000,v1=" + HmacSha256Hex("s3cret", "1765000000." + body));
  EXPECT_NE(SignatureHeaderValue("s3cret", 1765000000, body),
            SignatureHeaderValue("s3cret", 1765000001, body));
}

}  // namespace
}  // namespace verdict::webhooks
