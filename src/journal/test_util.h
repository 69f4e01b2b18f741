// Helpers shared by the journal's tests: a self-removing temp dir and realistic records.
// Test-only; not thread-safe.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "journal/journal.h"
#include "journal/key_file.h"
#include "journal/record.h"
#include "journal/verifier.h"

namespace verdict::journal::testing_util {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = ::testing::TempDir() + "verdict_journal_" + std::to_string(::getpid()) + "_" +
            (info ? std::string(info->name()) : "x") + "_" + std::to_string(counter++);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The journal opened with `o`; a failure fails the test and gives nullptr.
inline std::unique_ptr<Journal> OpenOrDie(const JournalOptions& o) {
  Result<std::unique_ptr<Journal>> j = Journal::Open(o);
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return j.ok() ? std::move(j).value() : nullptr;
}

// Found by the commit log fuzz target: RocksDB 7.8's WriteBatch::Iterate aborts the process on
// these bytes (an assertion Debian's build keeps).
inline const std::string kBatchThatAbortsRocksDb(
    "\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x05\x02\x08\x00"
    "\x00\x00\x00\x00\x00\x00\x15\x40\x56\x4a\x45\x31\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x05\x03\x10\x11\x11\x11\x11\x11"
    "\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x08\x00\x00\x00\x00"
    "\x00\x00\x00\x15\x05\x06\x0a\x00\x00\x00\x01\x00\x00\x00\x15\x28"
    "\x01\x01\x01\x01\x01\xa4\x0d\xda\x9b\x28\x66\x13\xe4\x01\xa4\x0d"
    "\xda\x9b\x28\x66\x13\xe4\x01\x01\x00\xff\xfe\xfe\x01\x01\x01\x01"
    "\x01\x01\x01\x01\x01\x01\x01\x01\x05\x07\x04\x68\x65\x61\x64\x32"
    "\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02"
    "\x02\x02\x02\x02\x02\x02\x02\x02\x4d\x02\x02\x61\x20\x67\x72\x6f"
    "\x75\x70\x20\x6f\x66\x20\x72\x65\x63\x6f\x72\x64\x73\x02\x02\x02"
    "\x02\x02\x04\x01\x0b\x62\x61\x6e\x6b\x2d\x61\x00\x61\x63\x63\x74",
    240);

// Verifies the journal in `data_dir` with its own key; a failure to read it fails the test.
inline VerifyReport VerifyDir(const std::string& data_dir) {
  VerifyOptions vo;
  vo.data_dir = data_dir;
  Result<VerifyReport> r = Verify(vo);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : VerifyReport{};
}

inline Uuid TestUuid(uint64_t i) {
  Uuid id;
  for (int b = 0; b < 8; ++b) id.bytes[15 - b] = static_cast<uint8_t>(i >> (8 * b));
  id.bytes[6] = 0x70;
  id.bytes[8] = 0x80;
  id.bytes[0] = 0x01;
  return id;
}

// A record of about 1 KB, the size of a real one: input JSON, 32 features, reasons.
inline JournalRecord MakeRecord(uint64_t i, const std::string& tenant = "bank-a") {
  JournalRecord r;
  r.decided_at_us = 1'700'000'000'000'000 + static_cast<int64_t>(i) * 1000;
  r.timestamp_us = r.decided_at_us - 250;
  r.tenant = tenant;
  r.principal = "switch-1";
  std::string sender = "ACC-" + std::to_string(i % 97);
  std::string receiver = "ACC-" + std::to_string((i * 7 + 3) % 101);
  r.decision.transaction_id = "tx-" + std::to_string(i);
  r.canonical_input =
      R"({"amount":"9950.00","channel":"wire","currency":"USD","deadline_ms":200,)"
      R"("metadata":{"switch_ref":"A1"},"priority":"standard","receiver":{"account":")" +
      receiver +
      R"(","bank":"BANKGB22","country":"GB","name":"Acme Ltd"},"remittance":"invoice 4411",)"
      R"("sender":{"account":")" +
      sender +
      R"(","bank":"BANKUS33","country":"US","name":"John Smith"},"timestamp":)"
      R"("2026-12-02T10:15:30.123Z","transaction_id":"tx-)" +
      std::to_string(i) + R"(","type":"transfer"})";
  r.input_sha256 = Sha256(r.canonical_input);
  r.accounts = {sender, receiver};
  r.feature_schema_version = "features-v3";
  for (int f = 0; f < 32; ++f) r.features.push_back(static_cast<double>(i % 13) * 0.5 + f);
  r.decision.decision_id = TestUuid(i);
  r.decision.outcome = static_cast<Outcome>(i % 3);
  r.decision.score = static_cast<double>(i % 1000) / 1000.0;
  r.decision.path = i % 5 == 0 ? DecisionPath::kFallback : DecisionPath::kModel;
  r.decision.reasons = {{"STRUCTURING", "structuring_24h", "4 amounts within 10% below 10,000"}};
  r.decision.contributions = {{"sender_near_threshold_count_24h", 4, 1.42},
                              {"amount_log", 9.2, 0.31}};
  r.decision.model = {"aml", "3", std::string(64, 'a')};
  r.decision.policy = {"7", std::string(64, 'b')};
  r.decision.timings = {12, 3, 9, 1, 0, 340};
  return r;
}

// A state update that leaves the replaced state's seal to the journal (StateUpdate).
inline StateUpdate StateWrite(std::string key, std::string value) {
  StateUpdate u;
  u.key = std::move(key);
  u.value = std::move(value);
  return u;
}
inline StateUpdate StateErase(std::string key) {
  StateUpdate u;
  u.key = std::move(key);
  u.erase = true;
  return u;
}

inline JournalEntry MakeEntry(uint64_t i, const std::string& tenant = "bank-a") {
  JournalEntry e;
  e.record = MakeRecord(i, tenant);
  for (const std::string& a : e.record.accounts) {
    e.state_updates.push_back(StateWrite(tenant + "/" + a, "state-after-" + std::to_string(i)));
  }
  return e;
}

// Enqueues entries [first, last] of `tenant` and waits for all of them; returns each
// callback's result (or the Enqueue error).
inline std::vector<Result<CommitInfo>> WriteEntries(Journal& j, uint64_t first, uint64_t last,
                                                    const std::string& tenant = "bank-a") {
  std::vector<std::promise<Result<CommitInfo>>> promises(last - first + 1);
  for (uint64_t i = first; i <= last; ++i) {
    auto* p = &promises[i - first];
    Result<uint64_t> seq =
        j.Enqueue(MakeEntry(i, tenant), [p](const Result<CommitInfo>& r) { p->set_value(r); });
    if (!seq.ok()) p->set_value(seq.status());
  }
  std::vector<Result<CommitInfo>> out;
  for (auto& p : promises) out.push_back(p.get_future().get());
  return out;
}

inline void WriteKek(const std::string& path) {
  ASSERT_TRUE(WriteNewFile(path, std::string(32, '\x42'), 0600).ok());
}

}  // namespace verdict::journal::testing_util
