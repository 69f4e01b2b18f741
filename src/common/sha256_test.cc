// SHA-256 against the FIPS 180-2 test vectors, the concatenating form against the one-part one,
// and from several threads at once (each has its own OpenSSL context).
#include "common/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace verdict {
namespace {

TEST(Sha256Test, MatchesTheStandardVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, ConcatenationHashesAsOneString) {
  EXPECT_EQ(Sha256Of("ab", "c"), Sha256Of("abc"));
  EXPECT_EQ(Sha256Of("a", "b", "c"), Sha256Of("abc"));
  EXPECT_EQ(Sha256Of("", "abc", ""), Sha256Of("abc"));
  EXPECT_NE(Sha256Of("ab", "c"), Sha256Of("abd"));
  EXPECT_EQ(HexOf(std::string("\x00\xff\x10", 3)), "00ff10");
}

TEST(Sha256Test, ThreadsHashIndependently) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &mismatches] {
      for (int i = 0; i < 2000; ++i) {
        std::string input = "thread " + std::to_string(t) + " item " + std::to_string(i % 7);
        if (Sha256Of(input.substr(0, 3), input.substr(3)) != Sha256Of(input)) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace verdict
