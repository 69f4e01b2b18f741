#include "journal/checkpoint.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "journal/key_file.h"
#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::TempDir;

Checkpoint Sample() {
  Checkpoint c;
  c.tree_size = 1000;
  c.root = Sha256("root");
  c.last_record_hash = Sha256("last");
  c.time_us = 1'700'000'000'000'000;
  return c;
}

TEST(CheckpointTest, DerivesTheRfc8032PublicKey) {
  // RFC 8032 §7.1, test 1.
  std::optional<std::string> seed =
      FromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  ASSERT_TRUE(seed);
  auto signer = CheckpointSigner::Create(*seed);
  ASSERT_TRUE(signer.ok());
  EXPECT_EQ(
      ToHex(std::string_view(reinterpret_cast<const char*>((*signer)->public_key().data()), 32)),
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
}

TEST(CheckpointTest, SignsEncodesAndVerifies) {
  auto signer = CheckpointSigner::Create(std::string(32, '\x07'));
  ASSERT_TRUE(signer.ok());
  Checkpoint c = Sample();
  ASSERT_TRUE((*signer)->Sign(c).ok());
  std::string bytes = EncodeCheckpoint(c);
  EXPECT_EQ(bytes.size(), kCheckpointBytes);
  Result<Checkpoint> back = DecodeCheckpoint(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(VerifyCheckpointSignature(*back, (*signer)->public_key()));

  // Every bit of the encoding matters.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string m = bytes;
    m[i] = static_cast<char>(m[i] ^ 0x20);
    Result<Checkpoint> altered = DecodeCheckpoint(m);
    EXPECT_TRUE(!altered.ok() || !VerifyCheckpointSignature(*altered, (*signer)->public_key()))
        << i;
  }
  auto other = CheckpointSigner::Create(std::string(32, '\x08'));
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(VerifyCheckpointSignature(*back, (*other)->public_key()));
  EXPECT_FALSE(DecodeCheckpoint(bytes.substr(1)).ok());
}

TEST(CheckpointTest, KeyFileIsCreatedPrivateAndReused) {
  TempDir dir;
  auto first = CheckpointSigner::LoadOrCreate(dir.path());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  struct stat st {};
  ASSERT_EQ(::stat(dir.Sub(std::string(kSigningKeyFile)).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 32);
  auto second = CheckpointSigner::LoadOrCreate(dir.path());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*first)->public_key(), (*second)->public_key());
  Result<PublicKey> pub = LoadPublicKey(dir.path());
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(*pub, (*first)->public_key());
}

TEST(CheckpointTest, RefusesAKeyOthersCanRead) {
  TempDir dir;
  ASSERT_TRUE(CheckpointSigner::LoadOrCreate(dir.path()).ok());
  ::chmod(dir.Sub(std::string(kSigningKeyFile)).c_str(), 0644);
  Result<std::unique_ptr<CheckpointSigner>> again = CheckpointSigner::LoadOrCreate(dir.path());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
}

TEST(KeyFileTest, WrongSizeIsRefused) {
  TempDir dir;
  ASSERT_TRUE(WriteNewFile(dir.Sub("k"), "short", 0600).ok());
  EXPECT_FALSE(ReadSecretFile(dir.Sub("k"), 32).ok());
  EXPECT_EQ(ReadSecretFile(dir.Sub("missing"), 32).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace verdict::journal
