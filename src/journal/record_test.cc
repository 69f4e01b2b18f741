#include "journal/record.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "journal/test_util.h"

namespace verdict::journal {
namespace {

using testing_util::MakeRecord;

TEST(RecordCodecTest, RoundTripsEveryField) {
  JournalRecord r = MakeRecord(42);
  r.feature_names.clear();
  for (size_t i = 0; i < r.features.size(); ++i) r.feature_names.push_back("f" + std::to_string(i));
  r.decision.timings.journal_us = -7;
  r.decision.score = -0.0;
  std::string payload;
  EncodeRecordPayload(r, payload);
  JournalRecord back;
  ASSERT_TRUE(DecodeRecordPayload(payload, back).ok());
  EXPECT_TRUE(RecordsEqual(r, back));
  EXPECT_EQ(back.decision.decision_id, r.decision.decision_id);
  EXPECT_EQ(back.decision.transaction_id, "tx-42");
  EXPECT_EQ(back.canonical_input, r.canonical_input);
  EXPECT_EQ(back.features, r.features);
  EXPECT_EQ(back.feature_names, r.feature_names);
  EXPECT_EQ(back.accounts, r.accounts);
  EXPECT_EQ(back.decision.outcome, r.decision.outcome);
  EXPECT_EQ(back.decision.reasons[0].message, r.decision.reasons[0].message);
  EXPECT_EQ(back.decision.contributions[1].value, 9.2);
  EXPECT_EQ(back.decision.timings.journal_us, -7);
  EXPECT_TRUE(std::signbit(back.decision.score));
}

TEST(RecordCodecTest, RoundTripsAdminEventsAndRefusesTheirTruncations) {
  JournalRecord r;
  r.kind = RecordKind::kAdminEvent;
  r.decided_at_us = 1'790'000'000'000'000;
  r.tenant = "bank-a";
  r.principal = "key-7";
  r.admin = AdminAction{"models.activate", "aml/4", R"({"mode":"canary","traffic_weight":0.15})"};
  std::string payload;
  EncodeRecordPayload(r, payload);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), kAdminPayloadFormatVersion);
  JournalRecord back = MakeRecord(3);  // decoding must not keep anything of a decision
  ASSERT_TRUE(DecodeRecordPayload(payload, back).ok());
  EXPECT_EQ(back.kind, RecordKind::kAdminEvent);
  EXPECT_TRUE(RecordsEqual(r, back));
  EXPECT_EQ(back.admin.object, "aml/4");
  EXPECT_EQ(back.principal, "key-7");
  EXPECT_TRUE(back.decision.transaction_id.empty());
  EXPECT_TRUE(back.accounts.empty());
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    JournalRecord partial;
    EXPECT_FALSE(DecodeRecordPayload(std::string_view(payload).substr(0, cut), partial).ok())
        << cut;
  }
  EXPECT_FALSE(DecodeRecordPayload(payload + "x", back).ok());

  // A decision decoded into a record that held an admin event is a decision again.
  std::string decision_payload;
  EncodeRecordPayload(MakeRecord(5), decision_payload);
  ASSERT_TRUE(DecodeRecordPayload(decision_payload, back).ok());
  EXPECT_EQ(back.kind, RecordKind::kDecision);
  EXPECT_TRUE(back.admin.action.empty());
}

// A history record (verdict import): the transaction, its accounts and its position in the
// import's input; no features and no decision survive the round trip.
JournalRecord MakeHistoryRecord() {
  JournalRecord r = MakeRecord(8);
  r.kind = RecordKind::kHistory;
  r.features.clear();
  r.feature_names.clear();
  r.input_position = 123'456'789'012;
  return r;
}

TEST(RecordCodecTest, RoundTripsHistoryRecordsAndRefusesTheirTruncations) {
  JournalRecord r = MakeHistoryRecord();
  std::string payload;
  EncodeRecordPayload(r, payload);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), kHistoryPayloadFormatVersion);
  JournalRecord back = MakeRecord(3);  // decoding must not keep anything of a decision
  ASSERT_TRUE(DecodeRecordPayload(payload, back).ok());
  EXPECT_EQ(back.kind, RecordKind::kHistory);
  EXPECT_EQ(back.input_position, 123'456'789'012u);
  EXPECT_EQ(back.decision.transaction_id, "tx-8");
  EXPECT_EQ(back.decision.decision_id, r.decision.decision_id);
  EXPECT_EQ(back.canonical_input, r.canonical_input);
  EXPECT_EQ(back.input_sha256, r.input_sha256);
  EXPECT_EQ(back.accounts, r.accounts);
  EXPECT_EQ(back.timestamp_us, r.timestamp_us);
  EXPECT_EQ(back.decided_at_us, r.decided_at_us);
  EXPECT_TRUE(back.features.empty());
  EXPECT_TRUE(back.decision.reasons.empty());
  EXPECT_TRUE(back.decision.model.name.empty());
  std::string again;
  EncodeRecordPayload(back, again);
  EXPECT_EQ(again, payload);
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    JournalRecord partial;
    EXPECT_FALSE(DecodeRecordPayload(std::string_view(payload).substr(0, cut), partial).ok())
        << cut;
  }
  EXPECT_FALSE(DecodeRecordPayload(payload + "x", back).ok());

  // A decision decoded into a record that held history is a decision again.
  std::string decision_payload;
  EncodeRecordPayload(MakeRecord(5), decision_payload);
  ASSERT_TRUE(DecodeRecordPayload(decision_payload, back).ok());
  EXPECT_EQ(back.kind, RecordKind::kDecision);
  EXPECT_EQ(back.input_position, 0u);
}

TEST(RecordCodecTest, ValidatesHistoryRecords) {
  JournalRecord r = MakeHistoryRecord();
  EXPECT_TRUE(ValidateRecord(r).ok());
  r.features = {1.0};
  EXPECT_EQ(ValidateRecord(r).field(), "features");
  r = MakeHistoryRecord();
  r.decision.transaction_id.clear();
  EXPECT_EQ(ValidateRecord(r).field(), "transaction_id");
  r = MakeHistoryRecord();
  r.accounts = {std::string("a\0b", 3)};
  EXPECT_EQ(ValidateRecord(r).field(), "accounts");
}

TEST(RecordCodecTest, ValidatesAdminEvents) {
  JournalRecord r;
  r.kind = RecordKind::kAdminEvent;
  r.tenant = "bank-a";
  EXPECT_EQ(ValidateRecord(r).field(), "action");
  r.admin.action = "keys.revoke";
  EXPECT_TRUE(ValidateRecord(r).ok());
  r.tenant.clear();
  EXPECT_EQ(ValidateRecord(r).field(), "tenant");
}

TEST(RecordCodecTest, EncodingIsDeterministicAndAboutOneKilobyte) {
  std::string a;
  std::string b;
  EncodeRecordPayload(MakeRecord(7), a);
  EncodeRecordPayload(MakeRecord(7), b);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.size(), 800u);
  EXPECT_LT(a.size(), 1400u);
}

TEST(RecordCodecTest, RejectsEveryTruncationAndTrailingBytes) {
  std::string payload;
  EncodeRecordPayload(MakeRecord(3), payload);
  JournalRecord out;
  for (size_t n = 0; n < payload.size(); ++n) {
    EXPECT_FALSE(DecodeRecordPayload(std::string_view(payload).substr(0, n), out).ok()) << n;
  }
  EXPECT_FALSE(DecodeRecordPayload(payload + "x", out).ok());
}

TEST(RecordCodecTest, RejectsUnknownVersionAndBadEnums) {
  JournalRecord r = MakeRecord(1);
  std::string payload;
  EncodeRecordPayload(r, payload);
  JournalRecord out;
  std::string bad_version = payload;
  bad_version[0] = 2;
  EXPECT_FALSE(DecodeRecordPayload(bad_version, out).ok());

  // Outcome byte: find it by encoding two records that differ only in outcome.
  JournalRecord block = r;
  block.decision.outcome = Outcome::kBlock;
  JournalRecord allow = r;
  allow.decision.outcome = Outcome::kAllow;
  std::string pb;
  std::string pa;
  EncodeRecordPayload(block, pb);
  EncodeRecordPayload(allow, pa);
  ASSERT_EQ(pa.size(), pb.size());
  size_t pos = 0;
  while (pa[pos] == pb[pos]) ++pos;
  pb[pos] = 3;
  Status s = DecodeRecordPayload(pb, out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("outcome"), std::string::npos);
}

TEST(RecordCodecTest, RandomMutationsNeverCrash) {
  std::string payload;
  EncodeRecordPayload(MakeRecord(9), payload);
  std::mt19937_64 rng(1234);
  JournalRecord out;
  int accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string m = payload;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % m.size();
      switch (rng() % 3) {
        case 0:
          m[at] = static_cast<char>(rng());
          break;
        case 1:
          m.erase(at, 1 + rng() % 8);
          break;
        default:
          m.insert(at, std::string(1 + rng() % 8, static_cast<char>(rng())));
          break;
      }
      if (m.empty()) m = "x";
    }
    if (DecodeRecordPayload(m, out).ok()) ++accepted;
  }
  // Byte edits inside strings or doubles still decode; that is what the hash chain is for.
  EXPECT_LT(accepted, 3000);
}

TEST(RecordCodecTest, HugeLengthPrefixesAreRefusedCheaply) {
  std::string payload(1, static_cast<char>(kPayloadFormatVersion));
  payload += std::string(32, '\0');               // id + times
  payload += std::string("\xff\xff\xff\xf0", 4);  // tenant length ~4 GiB
  JournalRecord out;
  EXPECT_FALSE(DecodeRecordPayload(payload, out).ok());
}

TEST(RecordValidationTest, RefusesNulBytesInKeysAndMismatchedNames) {
  JournalRecord r = MakeRecord(1);
  EXPECT_TRUE(ValidateRecord(r).ok());
  JournalRecord bad = r;
  bad.tenant = std::string("a\0b", 3);
  EXPECT_EQ(ValidateRecord(bad).field(), "tenant");
  bad = r;
  bad.decision.transaction_id.clear();
  EXPECT_EQ(ValidateRecord(bad).field(), "transaction_id");
  bad = r;
  bad.accounts.push_back(std::string("x\0", 2));
  EXPECT_EQ(ValidateRecord(bad).field(), "accounts");
  bad = r;
  bad.feature_names = {"only-one"};
  EXPECT_EQ(ValidateRecord(bad).field(), "feature_names");
}

}  // namespace
}  // namespace verdict::journal
