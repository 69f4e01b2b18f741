#include "journal/envelope.h"

#include <gtest/gtest.h>

namespace verdict::journal {
namespace {

class EnvelopeTest : public ::testing::TestWithParam<PayloadCipherKind> {};

TEST_P(EnvelopeTest, RoundTripsAndBindsTheSequenceNumber) {
  auto cipher = PayloadCipher::Create(std::string(32, 'k'), GetParam());
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
  // Every byte: data key id, cipher id, nonce or IV, ciphertext, tag or MAC.
  for (size_t i = 0; i < sealed->size(); ++i) {
    std::string m = *sealed;
    m[i] = static_cast<char>(m[i] ^ 1);
    EXPECT_FALSE((*cipher)->Decrypt(9, m).ok()) << i;
  }
  EXPECT_FALSE((*cipher)->Decrypt(9, sealed->substr(0, sealed->size() - 1)).ok());

  // A second process with the same KEK unwraps the data key; a wrong KEK cannot.
  auto reader = PayloadCipher::Create(std::string(32, 'k'));
  ASSERT_TRUE((*reader)->AddWrappedKey(1, *wrapped).ok());
  EXPECT_EQ(*(*reader)->Decrypt(9, *sealed), "secret payload");
  auto wrong = PayloadCipher::Create(std::string(32, 'x'));
  EXPECT_FALSE((*wrong)->AddWrappedKey(1, *wrapped).ok());
  EXPECT_FALSE((*reader)->AddWrappedKey(2, *wrapped).ok());  // id is authenticated
  EXPECT_FALSE((*reader)->AddWrappedKey(kIndexKeyId, *wrapped).ok());
}

TEST_P(EnvelopeTest, NeedsAnActiveKeyAndA32ByteKek) {
  EXPECT_FALSE(PayloadCipher::Create("short", GetParam()).ok());
  auto cipher = PayloadCipher::Create(std::string(32, 'k'), GetParam());
  EXPECT_FALSE((*cipher)->Encrypt(1, "x").ok());
  EXPECT_FALSE((*cipher)->Decrypt(1, "tiny").ok());
  EXPECT_FALSE((*cipher)->NewDataKey(kIndexKeyId).ok());
}

INSTANTIATE_TEST_SUITE_P(Ciphers, EnvelopeTest,
                         ::testing::Values(PayloadCipherKind::kAes256Gcm,
                                           PayloadCipherKind::kSm4CtrHmacSm3),
                         [](const auto& info) {
                           return info.param == PayloadCipherKind::kAes256Gcm ? "Aes256Gcm"
                                                                              : "Sm4CtrHmacSm3";
                         });

TEST(EnvelopeSm4Test, NamesItsCipherAndTheCipherIdIsAuthenticated) {
  auto cipher = PayloadCipher::Create(std::string(32, 'k'), PayloadCipherKind::kSm4CtrHmacSm3);
  ASSERT_TRUE((*cipher)->NewDataKey(1).ok());
  Result<std::string> sealed = (*cipher)->Encrypt(5, "payload");
  ASSERT_TRUE(sealed.ok());
  // dek id 1, cipher id 1, IV[16], ciphertext[7], MAC[32]
  ASSERT_EQ(sealed->size(), 4 + 4 + 16 + 7 + 32);
  EXPECT_EQ(sealed->substr(0, 8), std::string("\0\0\0\1\0\0\0\1", 8));
  for (uint32_t other : {0u, 2u, 0x01000001u}) {
    std::string m = *sealed;
    for (int b = 0; b < 4; ++b) m[4 + b] = static_cast<char>(other >> (8 * (3 - b)));
    EXPECT_FALSE((*cipher)->Decrypt(5, m).ok()) << other;
  }
}

TEST(EnvelopeSm4Test, BothCiphersDecryptInOneJournal) {
  auto gcm = PayloadCipher::Create(std::string(32, 'k'), PayloadCipherKind::kAes256Gcm);
  auto sm4 = PayloadCipher::Create(std::string(32, 'k'), PayloadCipherKind::kSm4CtrHmacSm3);
  Result<std::string> gcm_key = (*gcm)->NewDataKey(1);
  Result<std::string> sm4_key = (*sm4)->NewDataKey(2);
  ASSERT_TRUE(gcm_key.ok() && sm4_key.ok());
  Result<std::string> old_record = (*gcm)->Encrypt(1, "written with AES-256-GCM");
  Result<std::string> new_record = (*sm4)->Encrypt(2, "written with SM4");
  ASSERT_TRUE(old_record.ok() && new_record.ok());
  // The GCM form is the one this build has always written: dek id, then 0 || seq as the nonce.
  EXPECT_EQ(old_record->substr(0, 16), std::string("\0\0\0\1\0\0\0\0\0\0\0\0\0\0\0\1", 16));
  auto reader = PayloadCipher::Create(std::string(32, 'k'));
  ASSERT_TRUE((*reader)->AddWrappedKey(1, *gcm_key).ok());
  ASSERT_TRUE((*reader)->AddWrappedKey(2, *sm4_key).ok());
  EXPECT_EQ(*(*reader)->Decrypt(1, *old_record), "written with AES-256-GCM");
  EXPECT_EQ(*(*reader)->Decrypt(2, *new_record), "written with SM4");
}

TEST(EnvelopeIndexKeyTest, HashesIdsOnlyWithAnIndexKeyThatTheKekWraps) {
  auto cipher = PayloadCipher::Create(std::string(32, 'k'));
  EXPECT_FALSE((*cipher)->has_index_key());
  EXPECT_FALSE((*cipher)->HashedAccount("bank-a", "ACC-1").has_value());
  Result<std::string> wrapped = (*cipher)->NewIndexKey();
  ASSERT_TRUE(wrapped.ok());
  std::optional<std::string> account = (*cipher)->HashedAccount("bank-a", "ACC-1");
  std::optional<std::string> txn = (*cipher)->HashedTransactionId("bank-a", "ACC-1");
  ASSERT_TRUE(account && txn);
  EXPECT_EQ(account->size(), 32u);
  EXPECT_EQ(account->find("ACC"), std::string::npos);
  EXPECT_NE(*account, *txn);  // an account and a transaction id never hash alike
  EXPECT_NE(*account, *(*cipher)->HashedAccount("bank-b", "ACC-1"));

  auto reader = PayloadCipher::Create(std::string(32, 'k'));
  ASSERT_TRUE((*reader)->AddWrappedKey(kIndexKeyId, *wrapped).ok());
  EXPECT_EQ((*reader)->HashedAccount("bank-a", "ACC-1"), account);
  EXPECT_FALSE((*reader)->AddWrappedKey(1, *wrapped).ok());  // not a data key
  auto wrong = PayloadCipher::Create(std::string(32, 'x'));
  EXPECT_FALSE((*wrong)->AddWrappedKey(kIndexKeyId, *wrapped).ok());
}

TEST(EnvelopeIndexKeyTest, CipherNamesRoundTrip) {
  for (PayloadCipherKind kind :
       {PayloadCipherKind::kAes256Gcm, PayloadCipherKind::kSm4CtrHmacSm3}) {
    EXPECT_EQ(ParsePayloadCipher(PayloadCipherName(kind)), kind);
  }
  EXPECT_FALSE(ParsePayloadCipher("sm4-gcm").has_value());
}

}  // namespace
}  // namespace verdict::journal
