#include "journal/envelope.h"

#include <gtest/gtest.h>

namespace verdict::journal {
namespace {

TEST(EnvelopeTest, RoundTripsAndBindsTheSequenceNumber) {
  auto cipher = PayloadCipher::Create(std::string(32, 'k'));
  ASSERT_TRUE(cipher.ok());
  Result<std::string> wrapped = (*cipher)->NewDataKey(1);
  ASSERT_TRUE(wrapped.ok());
  Result<std::string> sealed = (*cipher)->Encrypt(9, "secret payload");
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(sealed->find("secret"), std::string::npos);
  Result<std::string> plain = (*cipher)->Decrypt(9, *sealed);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, "secret payload");
  EXPECT_FALSE((*cipher)->Decrypt(10, *sealed).ok());
  for (size_t i = 0; i < sealed->size(); ++i) {
    std::string m = *sealed;
    m[i] = static_cast<char>(m[i] ^ 1);
    EXPECT_FALSE((*cipher)->Decrypt(9, m).ok()) << i;
  }

  // A second process with the same KEK unwraps the data key; a wrong KEK cannot.
  auto reader = PayloadCipher::Create(std::string(32, 'k'));
  ASSERT_TRUE((*reader)->AddWrappedKey(1, *wrapped).ok());
  EXPECT_EQ(*(*reader)->Decrypt(9, *sealed), "secret payload");
  auto wrong = PayloadCipher::Create(std::string(32, 'x'));
  EXPECT_FALSE((*wrong)->AddWrappedKey(1, *wrapped).ok());
  EXPECT_FALSE((*reader)->AddWrappedKey(2, *wrapped).ok());  // id is authenticated
}

TEST(EnvelopeTest, NeedsAnActiveKeyAndA32ByteKek) {
  EXPECT_FALSE(PayloadCipher::Create("short").ok());
  auto cipher = PayloadCipher::Create(std::string(32, 'k'));
  EXPECT_FALSE((*cipher)->Encrypt(1, "x").ok());
  EXPECT_FALSE((*cipher)->Decrypt(1, "tiny").ok());
}

}  // namespace
}  // namespace verdict::journal
