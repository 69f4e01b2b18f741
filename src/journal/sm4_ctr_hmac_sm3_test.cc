// Known answers for SM4-CTR, HMAC-SM3 and HKDF-SM3, computed once with the OpenSSL 3.0.19
// command line of Debian 12 (so this code agrees with an independent implementation of the same
// algorithms, not only with itself):
//   DK=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
//   openssl kdf -keylen 48 -kdfopt digest:SM3 -kdfopt hexkey:$DK
//       -kdfopt info:verdict-journal-sm4-ctr-hmac-sm3-v1 HKDF        (one line)
//   printf 'verdict journal payload: SM4-CTR known answer' > pt
//   openssl enc -sm4-ctr -K 0123456789abcdeffedcba9876543210
//       -iv f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff -in pt -out ct; xxd -p ct  (one line)
//   (printf '\x00\x00\x00\x03aad'; echo -n f0f1...feff | xxd -r -p; cat ct) > macin
//   openssl dgst -sm3 -mac HMAC -macopt hexkey:aaaa...aa (32 bytes of 0xaa) macin
#include "journal/sm4_ctr_hmac_sm3.h"

#include <gtest/gtest.h>

#include "journal/digest.h"

namespace verdict::journal {
namespace sm4_test {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

const std::string kPlaintext = "verdict journal payload: SM4-CTR known answer";
const std::string kKey = Unhex("0123456789abcdeffedcba9876543210");
const std::string kIv = Unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
const std::string kCiphertext = Unhex(
    "284794a3eba6c49d9b0f60f8a9181497fe5230dd162265617ba453f447b6939639b2da43ac73ec04a23ef751be");
const std::string kMacKey(32, '\xaa');
const std::string kMac = Unhex("8ed42f1db0b6215f664ddd1439b16c93c75feeab1c3b765eab9338d1285621b0");

TEST(Sm4CtrHmacSm3Test, Sm4CtrMatchesOpenSslCommandLine) {
  Result<std::string> ct = Sm4Ctr(kKey, kIv, kPlaintext);
  ASSERT_TRUE(ct.ok()) << ct.status().ToString();
  EXPECT_EQ(ToHex(*ct), ToHex(kCiphertext));
  EXPECT_EQ(*Sm4Ctr(kKey, kIv, kCiphertext), kPlaintext);
  EXPECT_FALSE(Sm4Ctr("short", kIv, kPlaintext).ok());
}

TEST(Sm4CtrHmacSm3Test, HmacSm3MatchesOpenSslCommandLine) {
  Result<std::string> mac = HmacSm3(kMacKey, std::string("\0\0\0\3aad", 7), kIv + kCiphertext);
  ASSERT_TRUE(mac.ok()) << mac.status().ToString();
  EXPECT_EQ(ToHex(*mac), ToHex(kMac));
}

TEST(Sm4CtrHmacSm3Test, HkdfSm3MatchesOpenSslCommandLine) {
  std::string data_key;
  for (int i = 0; i < 32; ++i) data_key += static_cast<char>(i);
  Result<Sm4CtrHmacSm3Keys> keys = DeriveSm4CtrHmacSm3Keys(data_key);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(ToHex(keys->encryption), "4b339f05382e5899ee008bffc954979b");
  EXPECT_EQ(ToHex(keys->authentication),
            "cd4db6106001271583fecd00d513a02c03b2d572a5ff612951bc779a4284c578");
}

TEST(Sm4CtrHmacSm3Test, OpensTheKnownAnswerAndRefusesEveryAlteredByte) {
  const Sm4CtrHmacSm3Keys keys{kKey, kMacKey};
  const std::string sealed = kIv + kCiphertext + kMac;
  Result<std::string> plain = Sm4CtrHmacSm3Open(keys, "aad", sealed);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain, kPlaintext);
  for (size_t i = 0; i < sealed.size(); ++i) {  // IV, ciphertext and MAC bytes alike
    std::string altered = sealed;
    altered[i] = static_cast<char>(altered[i] ^ 0x80);
    EXPECT_FALSE(Sm4CtrHmacSm3Open(keys, "aad", altered).ok()) << i;
  }
  EXPECT_FALSE(Sm4CtrHmacSm3Open(keys, "aae", sealed).ok());
  EXPECT_FALSE(Sm4CtrHmacSm3Open(keys, "aad", sealed.substr(0, 47)).ok());
  EXPECT_FALSE(
      Sm4CtrHmacSm3Open(Sm4CtrHmacSm3Keys{kKey, std::string(32, 'b')}, "aad", sealed).ok());
}

TEST(Sm4CtrHmacSm3Test, SealsWithAFreshIvEachTime) {
  const Sm4CtrHmacSm3Keys keys{kKey, kMacKey};
  Result<std::string> a = Sm4CtrHmacSm3Seal(keys, "aad", kPlaintext);
  Result<std::string> b = Sm4CtrHmacSm3Seal(keys, "aad", kPlaintext);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), kSm4IvBytes + kPlaintext.size() + kSm3MacBytes);
  EXPECT_NE(a->substr(0, kSm4IvBytes), b->substr(0, kSm4IvBytes));
  EXPECT_EQ(*Sm4CtrHmacSm3Open(keys, "aad", *a), kPlaintext);
  EXPECT_EQ(*Sm4CtrHmacSm3Open(keys, "aad", *b), kPlaintext);
}

}  // namespace sm4_test
}  // namespace verdict::journal
