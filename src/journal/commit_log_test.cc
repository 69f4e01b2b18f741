// CommitLog on its own: frames written, read back, cut at a torn or foreign frame; and the
// journal's use of it: groups the store lost are replayed from it on open.
#include "journal/commit_log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <optional>
#include <thread>

#include "journal/direct_file.h"
#include "journal/fault_fs.h"
#include "journal/hash_chain.h"
#include "journal/journal.h"
#include "journal/test_util.h"
#include "journal/verifier.h"

namespace verdict::journal {
namespace {

using testing_util::MakeEntry;
using testing_util::TempDir;
using testing_util::VerifyDir;

std::shared_ptr<rocksdb::FileSystem> Fs() { return rocksdb::FileSystem::Default(); }

std::unique_ptr<CommitLog> OpenLog(const std::string& path, uint64_t size) {
  Result<std::unique_ptr<CommitLog>> log = CommitLog::Open(Fs(), path, size);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  return log.ok() ? std::move(log).value() : nullptr;
}

std::vector<CommitLogFrame> Frames(const std::string& path) {
  Result<std::vector<CommitLogFrame>> frames = CommitLog::ReadFrames(*Fs(), path);
  EXPECT_TRUE(frames.ok()) << frames.status().ToString();
  return frames.ok() ? std::move(frames).value() : std::vector<CommitLogFrame>{};
}

TEST(CommitLogTest, MissingFileHasNoFrames) {
  TempDir dir;
  EXPECT_TRUE(Frames(dir.Sub("commit.log")).empty());
}

TEST(CommitLogTest, FramesReadBackInOrderAfterReopen) {
  TempDir dir;
  const std::string path = dir.Sub("commit.log");
  {
    auto log = OpenLog(path, 4096);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->Append(1, 3, "first group").ok());
    ASSERT_TRUE(log->Append(4, 4, "second").ok());
    ASSERT_TRUE(log->Sync().ok());
  }
  EXPECT_EQ(std::filesystem::file_size(path), 4096u);
  std::vector<CommitLogFrame> frames = Frames(path);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].first_seq, 1u);
  EXPECT_EQ(frames[0].last_seq, 3u);
  EXPECT_EQ(frames[0].payload, "first group");
  EXPECT_EQ(frames[1].first_seq, 4u);
  EXPECT_EQ(frames[1].payload, "second");
}

TEST(CommitLogTest, TornFrameEndsTheLog) {
  TempDir dir;
  const std::string path = dir.Sub("commit.log");
  {
    auto log = OpenLog(path, 4096);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->Append(1, 1, "aaaa").ok());
    ASSERT_TRUE(log->Append(2, 2, "bbbb").ok());
    ASSERT_TRUE(log->Append(3, 3, "cccc").ok());
  }
  {  // one byte of the second frame's payload, as a write cut short would leave it
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(CommitLog::kFrameOverhead + 4 + 32 + 1);
    f.put('X');
  }
  std::vector<CommitLogFrame> frames = Frames(path);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, "aaaa");
}

TEST(CommitLogTest, NewPassDoesNotReadThePreviousPassBeyondItsEnd) {
  TempDir dir;
  const std::string path = dir.Sub("commit.log");
  auto log = OpenLog(path, 4 * kDirectBlockBytes);
  ASSERT_TRUE(log);
  // First frames that end at a block's end, so that the new pass's write (whole blocks, zeros
  // after the frame) leaves the old second frame in place.
  const size_t fills_a_block = kDirectBlockBytes - CommitLog::kFrameOverhead;
  ASSERT_TRUE(log->Append(1, 1, std::string(fills_a_block, '1')).ok());
  ASSERT_TRUE(log->Append(2, 2, "pass one, 2").ok());
  log->Restart();
  // Same size and a sequence the old second frame would continue: only the generation tells.
  ASSERT_TRUE(log->Append(1, 1, std::string(fills_a_block, '2')).ok());
  std::vector<CommitLogFrame> frames = Frames(path);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, std::string(fills_a_block, '2'));
}

// Frames of any size, across block boundaries, read back whole, written through the page cache
// or directly; and with a file of whole blocks, direct I/O is used wherever the file system takes
// it.
TEST(CommitLogTest, FramesAcrossBlocksReadBackWithOrWithoutDirectIo) {
  for (bool direct : {false, true}) {
    TempDir dir;
    const std::string path = dir.Sub("commit.log");
    Result<std::unique_ptr<CommitLog>> log =
        CommitLog::Open(Fs(), path, 32 * kDirectBlockBytes, direct);  // halves of 16 blocks
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    const int probe = ::open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    const bool takes_direct_io = probe >= 0;
    if (probe >= 0) ::close(probe);
    EXPECT_EQ((*log)->direct_io(), direct && takes_direct_io);
    const std::vector<size_t> sizes = {1, 100, 4000, 4056, 5000, 9000, 3, 4095, 4096, 4097, 70};
    uint64_t seq = 1;
    for (size_t size : sizes) {
      ASSERT_TRUE((*log)->Append(seq, seq, std::string(size, static_cast<char>('a' + seq))).ok());
      ++seq;
    }
    ASSERT_TRUE((*log)->Sync().ok());
    std::vector<CommitLogFrame> frames = Frames(path);
    ASSERT_EQ(frames.size(), sizes.size()) << "direct " << direct;
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(frames[i].first_seq, i + 1);
      EXPECT_EQ(frames[i].payload, std::string(sizes[i], static_cast<char>('a' + i + 1)));
    }
  }
}

TEST(CommitLogTest, AWrappedFileSystemOrAFileOfPartBlocksIsWrittenThroughThePageCache) {
  TempDir dir;
  Result<std::unique_ptr<CommitLog>> wrapped = CommitLog::Open(
      std::make_shared<FaultInjectingFileSystem>(), dir.Sub("a.log"), 4 * kDirectBlockBytes, true);
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().ToString();
  EXPECT_FALSE((*wrapped)->direct_io());
  // Halves of 4 blocks and 50 bytes: the second starts mid-block.
  const uint64_t size = 8 * kDirectBlockBytes + 100;
  Result<std::unique_ptr<CommitLog>> part = CommitLog::Open(Fs(), dir.Sub("b.log"), size, true);
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_FALSE((*part)->direct_io());
  ASSERT_TRUE((*part)->Append(1, 1, std::string(4 * kDirectBlockBytes, 'x')).ok());
  ASSERT_EQ(Frames(dir.Sub("b.log")).size(), 1u);
  EXPECT_EQ(std::filesystem::file_size(dir.Sub("b.log")), size);
  // The write stopped at the half's end: the second half is as it was filled, zeros.
  std::ifstream in(dir.Sub("b.log"), std::ios::binary);
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  EXPECT_EQ(bytes.find_first_not_of('\0', CommitLog::HalfBytes(size)), std::string::npos);
  EXPECT_FALSE((*part)->Append(2, 2, std::string(100, 'y')).ok());  // 10 bytes are left
}

TEST(DirectRWFileTest, RefusesUnalignedWrites) {
  TempDir dir;
  const std::string path = dir.Sub("direct.bin");
  { std::ofstream(path) << std::string(2 * kDirectBlockBytes, '\0'); }
  std::unique_ptr<DirectRWFile> file = DirectRWFile::Open(path);
  if (!file) GTEST_SKIP() << "this file system does not take O_DIRECT";
  std::unique_ptr<char, decltype(&std::free)> block(
      static_cast<char*>(std::aligned_alloc(kDirectBlockBytes, 2 * kDirectBlockBytes)), &std::free);
  std::memset(block.get(), 'z', 2 * kDirectBlockBytes);
  const rocksdb::IOOptions io;
  EXPECT_TRUE(file->Write(0, rocksdb::Slice(block.get(), kDirectBlockBytes), io, nullptr).ok());
  EXPECT_FALSE(file->Write(1, rocksdb::Slice(block.get(), kDirectBlockBytes), io, nullptr).ok());
  EXPECT_FALSE(file->Write(0, rocksdb::Slice(block.get(), 100), io, nullptr).ok());
  EXPECT_FALSE(
      file->Write(0, rocksdb::Slice(block.get() + 1, kDirectBlockBytes), io, nullptr).ok());
  EXPECT_TRUE(file->Sync(io, nullptr).ok());
  std::ifstream in(path, std::ios::binary);
  std::string head(kDirectBlockBytes + 1, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  EXPECT_EQ(head, std::string(kDirectBlockBytes, 'z') + '\0');
}

TEST(CommitLogTest, FramesMustContinueTheSequence) {
  TempDir dir;
  const std::string path = dir.Sub("commit.log");
  auto log = OpenLog(path, 4096);
  ASSERT_TRUE(log);
  ASSERT_TRUE(log->Append(1, 2, "a").ok());
  ASSERT_TRUE(log->Append(5, 6, "b").ok());
  EXPECT_EQ(Frames(path).size(), 1u);
}

TEST(CommitLogTest, FitsUntilItsHalfsEndAndReopeningAtAnotherSizeRewritesTheFile) {
  TempDir dir;
  const std::string path = dir.Sub("commit.log");
  auto log = OpenLog(path, 200);  // halves of 100 bytes
  ASSERT_TRUE(log);
  EXPECT_TRUE(log->Fits(100 - CommitLog::kFrameOverhead));
  EXPECT_FALSE(log->Fits(100 - CommitLog::kFrameOverhead + 1));
  EXPECT_TRUE(log->CouldEverFit(100 - CommitLog::kFrameOverhead));
  EXPECT_FALSE(log->CouldEverFit(100 - CommitLog::kFrameOverhead + 1));
  ASSERT_TRUE(log->Append(1, 1, std::string(50, 'x')).ok());
  EXPECT_FALSE(log->Fits(50));
  ASSERT_TRUE(log->SwitchHalf().ok());
  EXPECT_TRUE(log->Fits(60));
  ASSERT_TRUE(log->Append(2, 2, std::string(60, 'y')).ok());
  EXPECT_FALSE(log->Fits(0));
  log->Restart();
  EXPECT_TRUE(log->Fits(60));
  log.reset();
  ASSERT_TRUE(OpenLog(path, 8192));
  EXPECT_EQ(std::filesystem::file_size(path), 8192u);
  EXPECT_TRUE(Frames(path).empty());
  EXPECT_FALSE(std::filesystem::exists(path + ".new"));
}

// Passes in turn in each half: read back in sequence, the older pass first, and of a half
// being written again only its new pass.
TEST(CommitLogTest, BothHalvesAreReadBackInSequence) {
  for (uint64_t size : {uint64_t{4} * kDirectBlockBytes, uint64_t{1000}}) {  // 1000: mid-block
    TempDir dir;
    const std::string path = dir.Sub("commit.log");
    auto log = OpenLog(path, size);
    ASSERT_TRUE(log);
    const std::string payload(100, 'p');
    uint64_t seq = 1;
    auto fill_half = [&] {
      while (log->Fits(payload.size())) {
        ASSERT_TRUE(log->Append(seq, seq, payload + std::to_string(seq)).ok());
        ++seq;
      }
    };
    fill_half();  // pass 1, first half
    const uint64_t first_pass_end = seq - 1;
    ASSERT_TRUE(log->SwitchHalf().ok());
    // The second half's first write leaves the first half whole (with size 1000 it rewrites
    // the block they share, from the bytes read at the change).
    ASSERT_TRUE(log->Append(seq, seq, payload + std::to_string(seq)).ok());
    ASSERT_TRUE(log->Sync().ok());
    EXPECT_EQ(Frames(path).size(), seq) << "size " << size;
    ++seq;
    fill_half();  // the rest of pass 2, second half
    const uint64_t second_pass_start = first_pass_end + 1;
    ASSERT_TRUE(log->SwitchHalf().ok());
    ASSERT_TRUE(log->Append(seq, seq, payload + std::to_string(seq)).ok());  // pass 3, first half
    ASSERT_TRUE(log->Sync().ok());
    std::vector<CommitLogFrame> frames = Frames(path);
    ASSERT_EQ(frames.size(), seq - second_pass_start + 1) << "size " << size;
    for (size_t i = 0; i < frames.size(); ++i) {
      const uint64_t expected = second_pass_start + i;
      EXPECT_EQ(frames[i].first_seq, expected);
      EXPECT_EQ(frames[i].payload, payload + std::to_string(expected));
    }
  }
}

// A log written by a version before the halves: one pass over the whole file, across its
// middle, read back whole and once, also where a frame starts right at the middle.
TEST(CommitLogTest, AOnePassLogAcrossTheMiddleIsReadWholeAndOnce) {
  for (size_t first_payload : {size_t{300}, size_t{500 - 2 * CommitLog::kFrameOverhead - 100}}) {
    std::string bytes;
    CommitLog::EncodeFrame(9, 1, 1, std::string(first_payload, 'a'), bytes);
    CommitLog::EncodeFrame(9, 2, 3, std::string(100, 'b'), bytes);
    CommitLog::EncodeFrame(9, 4, 4, std::string(200, 'c'), bytes);
    CommitLog::EncodeFrame(9, 5, 5, std::string(200, 'd'), bytes);
    bytes.resize(1000, '\0');  // the middle, 500, is inside or at the start of a frame
    std::vector<CommitLogFrame> frames = CommitLog::ParseFile(bytes);
    ASSERT_EQ(frames.size(), 4u) << first_payload;
    EXPECT_EQ(frames[0].first_seq, 1u);
    EXPECT_EQ(frames[1].first_seq, 2u);
    EXPECT_EQ(frames[2].first_seq, 4u);
    EXPECT_EQ(frames[3].first_seq, 5u);
    EXPECT_EQ(frames[3].payload, std::string(200, 'd'));
  }
}

// The journal with a commit log, on a file system that can lose the store's unsynced writes.
struct LossyJournal {
  TempDir dir;
  std::shared_ptr<FaultInjectingFileSystem> fs = std::make_shared<FaultInjectingFileSystem>();
  JournalOptions Options(uint64_t commit_log_bytes) const {
    JournalOptions o;
    o.data_dir = dir.Sub("data");
    o.file_system = fs;
    o.commit_log_bytes = commit_log_bytes;
    return o;
  }
};

void WriteAll(Journal& j, uint64_t first, uint64_t last) {
  for (const Result<CommitInfo>& r : testing_util::WriteEntries(j, first, last)) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
}

// Writes `kept` decisions, then `lost` more of which the store's writes not synced by then never
// reach the disk (a power failure), closes, and reopens: the durable sequence then.
uint64_t DurableAfterLosingTheStoresTail(uint64_t commit_log_bytes, uint64_t kept, uint64_t lost,
                                         VerifyReport* report = nullptr,
                                         Durability durability = Durability::kSync,
                                         std::optional<uint64_t> reopen_log_bytes = {},
                                         bool* log_file_left = nullptr) {
  LossyJournal setup;
  {
    JournalOptions o = setup.Options(commit_log_bytes);
    o.durability = durability;
    Result<std::unique_ptr<Journal>> j = Journal::Open(o);
    EXPECT_TRUE(j.ok()) << j.status().ToString();
    if (!j.ok()) return 0;
    // In small groups, so that a small log starts over many times.
    for (uint64_t i = 1; i <= kept; i += 5) WriteAll(**j, i, std::min(kept, i + 4));
    setup.fs->set_lose_unsynced_appends(true);
    for (uint64_t i = kept + 1; i <= kept + lost; i += 5) {
      WriteAll(**j, i, std::min(kept + lost, i + 4));
    }
    // The power fails: nothing more reaches the disk, not the closing checkpoint's sync either.
    setup.fs->set_fail_syncs(true);
  }
  setup.fs->set_fail_syncs(false);
  setup.fs->set_lose_unsynced_appends(false);
  Result<std::unique_ptr<Journal>> reopened =
      Journal::Open(setup.Options(reopen_log_bytes.value_or(commit_log_bytes)));
  EXPECT_TRUE(reopened.ok()) << reopened.status().ToString();
  if (!reopened.ok()) return 0;
  const uint64_t durable = (*reopened)->durable_sequence();
  if (log_file_left) *log_file_left = std::filesystem::exists(setup.dir.Sub("data/commit.log"));
  reopened->reset();
  if (report) {
    VerifyOptions vo;
    vo.data_dir = setup.dir.Sub("data");
    Result<VerifyReport> r = Verify(vo);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) *report = *r;
  }
  return durable;
}

// Writes 20 decisions, then 30 more whose store writes never reach the disk: a power failure
// after which only the commit log's frames hold records 21..50.
void LoseTheStoresTail(LossyJournal& setup) {
  {
    JournalOptions o = setup.Options(uint64_t{1} << 20);
    o.checkpoint_every_records = 10;  // the lost groups hold checkpoints too
    Result<std::unique_ptr<Journal>> j = Journal::Open(o);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    for (uint64_t i = 1; i <= 20; i += 5) WriteAll(**j, i, i + 4);
    setup.fs->set_lose_unsynced_appends(true);
    for (uint64_t i = 21; i <= 50; i += 5) WriteAll(**j, i, i + 4);
    setup.fs->set_fail_syncs(true);  // the power fails
  }
  setup.fs->set_fail_syncs(false);
  setup.fs->set_lose_unsynced_appends(false);
}

// Writes `frames` as the log's only frames, checks and all, as someone who can write the data
// directory could.
void RewriteLog(const std::string& path, const std::vector<CommitLogFrame>& frames) {
  std::unique_ptr<CommitLog> log = OpenLog(path, uint64_t{1} << 20);
  ASSERT_TRUE(log);
  for (const CommitLogFrame& f : frames)
    ASSERT_TRUE(log->Append(f.first_seq, f.last_seq, f.payload).ok());
  ASSERT_TRUE(log->Sync().ok());
}

// Opens the store in `data_dir` for writing (no journal on it), to tamper with it.
std::unique_ptr<JournalStore> OpenStore(const std::string& data_dir) {
  StoreOptions so;
  so.data_dir = data_dir;
  so.create_if_missing = false;
  Result<std::unique_ptr<JournalStore>> store = JournalStore::Open(so);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

// Changes the frame that holds the lost records from 21 on with `change`, and writes the log
// anew, checks and all, as someone who can write the data directory could.
void ChangeTheFirstLostFrame(LossyJournal& setup,
                             const std::function<void(CommitLogFrame&)>& change) {
  const std::string path = setup.dir.Sub("data/commit.log");
  std::vector<CommitLogFrame> frames = Frames(path);
  auto first_lost = std::find_if(frames.begin(), frames.end(),
                                 [](const CommitLogFrame& f) { return f.first_seq == 21; });
  ASSERT_NE(first_lost, frames.end());
  change(*first_lost);
  RewriteLog(path, frames);
}

// Before the engine's next start, a read-only verify checks the records only the commit log
// holds where that start will put them: the same chain, root and count as a verify after it.
TEST(JournalCommitLogTest, VerifyChecksTheRecordsOnlyTheLogHolds) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  const VerifyReport before = VerifyDir(setup.dir.Sub("data"));
  EXPECT_TRUE(before.ok) << before.problem;
  EXPECT_EQ(before.records, 50u);
  EXPECT_EQ(before.records_only_in_commit_log, 30u);
  EXPECT_EQ(before.checkpoints, 5u);
  EXPECT_NE(VerifyReportToJson(before).find("\"records_only_in_commit_log\":30"),
            std::string::npos);

  ASSERT_TRUE(Journal::Open(setup.Options(uint64_t{1} << 20)).ok());  // restores, then closes
  const VerifyReport after = VerifyDir(setup.dir.Sub("data"));
  EXPECT_TRUE(after.ok) << after.problem;
  EXPECT_EQ(after.records, 50u);
  EXPECT_EQ(after.records_only_in_commit_log, 0u);
  EXPECT_EQ(after.last_hash, before.last_hash);
  EXPECT_EQ(after.root, before.root);
  EXPECT_EQ(after.checkpoints, before.checkpoints);
}

// A record altered inside a frame whose check was written anew is found, at that record.
TEST(JournalCommitLogTest, VerifyFindsARecordAlteredInTheLog) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  ChangeTheFirstLostFrame(setup, [](CommitLogFrame& frame) {
    // The frame's first record: a byte of its payload, past the entry's 49-byte header.
    const size_t entry = frame.payload.find(kEntryMagic);
    ASSERT_NE(entry, std::string::npos);
    frame.payload[entry + 60] ^= 0x01;
  });

  const VerifyReport report = VerifyDir(setup.dir.Sub("data"));
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 21u);
  EXPECT_NE(report.problem.find("record hash does not match"), std::string::npos) << report.problem;
  EXPECT_EQ(report.records, 20u);
}

// A frame whose payload is no write batch (its check written anew) is named, not replayed.
TEST(JournalCommitLogTest, VerifyReportsAFrameThatHoldsNoWriteBatch) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  ChangeTheFirstLostFrame(setup,
                          [](CommitLogFrame& frame) { frame.payload = "not a write batch"; });

  const VerifyReport report = VerifyDir(setup.dir.Sub("data"));
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 21u);
  EXPECT_NE(report.problem.find("does not hold its group's write batch"), std::string::npos)
      << report.problem;
  EXPECT_EQ(report.records, 20u);
}

// A frame whose payload made RocksDB's reader abort the process (found by the fuzz target; its
// check written anew): verify reports it, and the engine's start refuses it, neither crashes.
TEST(JournalCommitLogTest, ABatchThatAbortsRocksDbIsRefusedNotReplayed) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  ChangeTheFirstLostFrame(
      setup, [](CommitLogFrame& frame) { frame.payload = testing_util::kBatchThatAbortsRocksDb; });
  const VerifyReport report = VerifyDir(setup.dir.Sub("data"));
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 21u);
  EXPECT_NE(report.problem.find("not a put or a delete"), std::string::npos) << report.problem;
  Result<std::unique_ptr<Journal>> j = Journal::Open(setup.Options(uint64_t{1} << 20));
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("does not hold its group's write batch"), std::string::npos)
      << j.status().message();
  // Nothing of it was written: the store is as before.
  const VerifyReport again = VerifyDir(setup.dir.Sub("data"));
  EXPECT_EQ(again.records, 20u);
  EXPECT_EQ(again.first_bad_seq, 21u);
}

// A frame that deletes a record the store holds (its check written anew) would have the next
// start remove it: a problem, though each record read verifies.
TEST(JournalCommitLogTest, VerifyReportsAFrameThatDeletesARecord) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  ChangeTheFirstLostFrame(setup, [&](CommitLogFrame& frame) {
    std::unique_ptr<JournalStore> store = OpenStore(setup.dir.Sub("data"));
    ASSERT_TRUE(store);
    rocksdb::WriteBatch batch(frame.payload);
    ASSERT_TRUE(batch.Delete(store->handle(Cf::kRecords), SeqKey(5)).ok());
    frame.payload = batch.Data();
  });

  const VerifyReport report = VerifyDir(setup.dir.Sub("data"));
  EXPECT_FALSE(report.ok);
  EXPECT_NE(report.problem.find("a delete outside account state"), std::string::npos)
      << report.problem;
  EXPECT_FALSE(Journal::Open(setup.Options(uint64_t{1} << 20)).ok());
}

// A frame whose batch lacks the records it names (an empty batch here) would leave a gap that
// the next frame's head hides: verify and the engine's start both refuse it.
TEST(JournalCommitLogTest, AFrameWithoutItsRecordsIsRefused) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  ChangeTheFirstLostFrame(setup,
                          [](CommitLogFrame& frame) { frame.payload = std::string(12, '\0'); });
  const VerifyReport report = VerifyDir(setup.dir.Sub("data"));
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 21u);
  EXPECT_NE(report.problem.find("records only to 20 of its group 21.."), std::string::npos)
      << report.problem;
  Result<std::unique_ptr<Journal>> j = Journal::Open(setup.Options(uint64_t{1} << 20));
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("does not hold its group's write batch"), std::string::npos)
      << j.status().message();
}

// The store's head removed, with the commit log's frames still there: the head is what is
// reported, not the frames that no longer follow it.
TEST(JournalCommitLogTest, VerifyReportsAMissingHeadBeforeTheFrames) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  {
    std::unique_ptr<JournalStore> store = OpenStore(setup.dir.Sub("data"));
    ASSERT_TRUE(store);
    rocksdb::WriteBatch batch;
    ASSERT_TRUE(batch.Delete(store->handle(Cf::kMeta), kMetaHeadKey).ok());
    ASSERT_TRUE(store->Write(batch, /*sync=*/true).ok());
  }
  const VerifyReport report = VerifyDir(setup.dir.Sub("data"));
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.problem, "the journal head is missing");
  EXPECT_EQ(report.first_bad_seq, 20u);
  EXPECT_EQ(report.records, 20u);
}

// The journal on the default file system writes its log directly wherever the file system
// takes it, and what it committed so is there after a reopen.
TEST(JournalCommitLogTest, TheJournalWritesItsLogDirectlyWhereItCan) {
  TempDir dir;
  JournalOptions o;
  o.data_dir = dir.Sub("data");
  o.commit_log_bytes = uint64_t{1} << 20;
  bool direct = false;
  {
    Result<std::unique_ptr<Journal>> j = Journal::Open(o);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    direct = (*j)->commit_log_direct_io();
    for (uint64_t i = 1; i <= 30; i += 5) WriteAll(**j, i, i + 4);
  }
  const int probe = ::open(dir.Sub("data/commit.log").c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  EXPECT_EQ(direct, probe >= 0);
  if (probe >= 0) ::close(probe);
  std::vector<CommitLogFrame> frames = Frames(dir.Sub("data/commit.log"));
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back().last_seq, 30u);
  Result<std::unique_ptr<Journal>> reopened = Journal::Open(o);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->durable_sequence(), 30u);
}

// A frame missing from the log's middle leaves a gap the engine's start refuses; so does verify.
TEST(JournalCommitLogTest, VerifyReportsAFrameThatDoesNotFollowTheStore) {
  LossyJournal setup;
  LoseTheStoresTail(setup);
  const std::string path = setup.dir.Sub("data/commit.log");
  std::vector<CommitLogFrame> frames = Frames(path);
  auto first_lost = std::find_if(frames.begin(), frames.end(),
                                 [](const CommitLogFrame& f) { return f.first_seq == 21; });
  ASSERT_NE(first_lost, frames.end());
  frames.erase(frames.begin(), first_lost + 1);
  ASSERT_FALSE(frames.empty());
  RewriteLog(path, frames);

  const VerifyReport report = VerifyDir(setup.dir.Sub("data"));
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_bad_seq, 21u);
  EXPECT_NE(report.problem.find("does not follow the store's last record 20"), std::string::npos)
      << report.problem;
  EXPECT_FALSE(Journal::Open(setup.Options(uint64_t{1} << 20)).ok());
}

TEST(JournalCommitLogTest, UnsyncedStoreWritesAreLost) {
  // The premise of the tests below: with neither the log nor a WAL sync, the last 30 decisions
  // exist only in writes that the simulated power failure loses.
  EXPECT_EQ(DurableAfterLosingTheStoresTail(0, 20, 30, nullptr, Durability::kAsync), 20u);
}

TEST(JournalCommitLogTest, WithoutTheLogEachGroupSyncsTheStore) {
  EXPECT_EQ(DurableAfterLosingTheStoresTail(0, 20, 30), 50u);
}

TEST(JournalCommitLogTest, GroupsTheStoreLostAreReplayedFromTheLog) {
  VerifyReport report;
  EXPECT_EQ(DurableAfterLosingTheStoresTail(uint64_t{1} << 20, 20, 30, &report), 50u);
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, 50u);
}

TEST(JournalCommitLogTest, ARunWithoutTheLogStillReplaysTheLastRunsAndRemovesIt) {
  VerifyReport report;
  bool log_file_left = true;
  EXPECT_EQ(DurableAfterLosingTheStoresTail(uint64_t{1} << 20, 20, 30, &report, Durability::kSync,
                                            /*reopen_log_bytes=*/0, &log_file_left),
            50u);
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_FALSE(log_file_left);
}

TEST(JournalCommitLogTest, ALogThatStartedOverManyTimesStillRestoresEverything) {
  // About 1 KB a record: each half of an 8 KB log is full every few groups, and is written again
  // only once the store's WAL sync over its last pass has ended, which is all that keeps the
  // overwritten frames' groups.
  VerifyReport report;
  EXPECT_EQ(DurableAfterLosingTheStoresTail(8 << 10, 3, 200, &report), 203u);
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.records, 203u);
}

TEST(JournalCommitLogTest, AHalfIsNotWrittenAgainBeforeTheWalSyncOverItsPassEnds) {
  // Halves of 8 KB, about 1 KB a record: a half is full every several records. From the fourth
  // record on, the store's WAL syncs do not end and its unsynced appends are lost at the end,
  // so only the commit log keeps those records: the first half change starts the sync over
  // pass 1, and the change back to pass 1's half must wait for it instead of overwriting it.
  // The first three records and the opening mark must not fill pass 1: a sync started before
  // the blocking began could still reach the file system after it and be blocked, and the
  // fourth record would then wait for it (with halves of 4 KB it did, now and then).
  LossyJournal setup;
  std::atomic<uint64_t> acknowledged{0};
  {
    auto j = Journal::Open(setup.Options(16 << 10));
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    WriteAll(**j, 1, 3);
    acknowledged = 3;
    setup.fs->set_lose_unsynced_appends(true);
    setup.fs->set_block_wal_syncs(true);
    std::thread writer([&] {
      for (uint64_t i = 4; i < 100; ++i) {
        if (!testing_util::WriteEntries(**j, i, i)[0].ok()) return;
        acknowledged = i;
      }
    });
    // Until the sync over pass 1 waits; then a while for the writes to go as far as they can
    // (any length of it keeps the test valid; a journal that did not wait would write all 96).
    for (int i = 0; i < 3000 && setup.fs->blocked_wal_syncs() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_GT(setup.fs->blocked_wal_syncs(), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    setup.fs->set_fail_syncs(true);  // the power fails: the waiting sync fails too
    setup.fs->set_block_wal_syncs(false);
    writer.join();
  }
  EXPECT_GT(acknowledged.load(), 3u);
  setup.fs->set_fail_syncs(false);
  setup.fs->set_lose_unsynced_appends(false);
  auto reopened = Journal::Open(setup.Options(16 << 10));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_GE((*reopened)->durable_sequence(), acknowledged.load());
}

TEST(JournalCommitLogTest, GroupsAfterOneTooLargeForTheLogAreStillRestored) {
  // A group larger than half the log is made durable by a sync of the store instead; the
  // frames after it must still be replayed (the log starts over after that sync).
  LossyJournal setup;
  {
    auto j = Journal::Open(setup.Options(16 << 10));
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    WriteAll(**j, 1, 1);
    WriteAll(**j, 2, 200);  // enqueued at once: groups of tens of ~1 KB records
    setup.fs->set_lose_unsynced_appends(true);
    WriteAll(**j, 201, 201);
    WriteAll(**j, 202, 202);
    setup.fs->set_fail_syncs(true);  // the power fails
  }
  setup.fs->set_fail_syncs(false);
  setup.fs->set_lose_unsynced_appends(false);
  auto reopened = Journal::Open(setup.Options(16 << 10));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->durable_sequence(), 202u);
}

TEST(JournalCommitLogTest, NoRoomForTheLogAboveTheReserveRefusesToOpen) {
  LossyJournal setup;
  JournalOptions o = setup.Options(uint64_t{1} << 20);
  o.min_free_bytes = uint64_t{1} << 60;  // more than any disk has free
  Result<std::unique_ptr<Journal>> j = Journal::Open(o);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(j.status().message().find("journal.commit_log_mb"), std::string::npos)
      << j.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(setup.dir.Sub("data/commit.log")));
  EXPECT_FALSE(std::filesystem::exists(setup.dir.Sub("data/commit.log.new")));
}

TEST(JournalCommitLogTest, ACommitLogSyncFailureFailsTheJournalClosed) {
  LossyJournal setup;
  auto j = Journal::Open(setup.Options(uint64_t{1} << 20));
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  WriteAll(**j, 1, 3);
  setup.fs->set_fail_syncs(true);
  std::promise<Result<CommitInfo>> result;
  ASSERT_TRUE(
      (*j)->Enqueue(MakeEntry(4), [&](const Result<CommitInfo>& r) { result.set_value(r); }).ok());
  Result<CommitInfo> r = result.get_future().get();
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("commit log sync failed"), std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE((*j)->healthy());
  EXPECT_EQ((*j)->durable_sequence(), 3u);
  // The refused record never reached the store: nothing reads it, and a later synced write
  // (here a registry entry) cannot make it durable behind the client's back.
  Result<std::optional<JournalRecord>> refused = (*j)->ReadRecord(4);
  ASSERT_TRUE(refused.ok()) << refused.status().ToString();
  EXPECT_FALSE(refused->has_value());
  Result<std::optional<StoredRecord>> by_id = (*j)->FindByTransaction("bank-a", "tx-4");
  ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
  EXPECT_FALSE(by_id->has_value());
}

}  // namespace
}  // namespace verdict::journal
