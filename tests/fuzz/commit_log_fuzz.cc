// libFuzzer target: the journal's commit log reader (read on every start, from a file a crash
// or a bad disk may have damaged) must never crash, hang or over-allocate on any bytes; the
// frames it returns must continue one another; and valid frames must read back whole, with a
// damaged second frame ending the log after the first. The bytes as a frame's payload, decoded
// as `verdict audit verify` decodes one (a group commit's WriteBatch), must be accepted or
// refused, never crash; and one our reader accepts (group_batch.h), RocksDB's reads the same.
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "journal/commit_log.h"
#include "journal/group_batch.h"
#include "journal/logged_writes.h"
#include "journal/store.h"

namespace {

// One store for the whole run, for its column family ids, in a fresh directory removed at a
// normal exit (libFuzzer leaves it behind when it stops on a finding).
const verdict::journal::JournalStore& Store() {
  static std::string dir;
  static const std::unique_ptr<verdict::journal::JournalStore> store = [] {
    std::string name =
        std::filesystem::temp_directory_path().string() + "/verdict_commit_log_fuzz_XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) __builtin_trap();
    dir = name;
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    });
    verdict::journal::StoreOptions options;
    options.data_dir = dir + "/store";
    auto opened = verdict::journal::JournalStore::Open(options);
    if (!opened.ok()) __builtin_trap();
    return std::move(opened).value();
  }();
  return *store;
}

// Checks RocksDB's reading of a batch against ours, operation by operation.
struct SameOps : rocksdb::WriteBatch::Handler {
  explicit SameOps(const std::vector<verdict::journal::GroupBatchOp>& expected) : ops(expected) {}
  rocksdb::Status Check(bool is_delete, uint32_t cf, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) {
    if (next >= ops.size()) __builtin_trap();
    const verdict::journal::GroupBatchOp& op = ops[next++];
    if (op.is_delete != is_delete || op.column_family != cf || op.key != key.ToStringView() ||
        op.value != value.ToStringView()) {
      __builtin_trap();
    }
    return rocksdb::Status::OK();
  }
  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    return Check(false, cf, key, value);
  }
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    return Check(true, cf, key, rocksdb::Slice());
  }
  const std::vector<verdict::journal::GroupBatchOp>& ops;
  size_t next = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using verdict::journal::CommitLog;
  using verdict::journal::CommitLogFrame;
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  size_t framed_bytes = 0;
  std::vector<CommitLogFrame> frames = CommitLog::ParseFrames(input);
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].first_seq == 0 || frames[i].first_seq > frames[i].last_seq) __builtin_trap();
    if (i > 0 && frames[i].first_seq != frames[i - 1].last_seq + 1) __builtin_trap();
    framed_bytes += CommitLog::kFrameOverhead + frames[i].payload.size();
  }
  if (framed_bytes > size) __builtin_trap();

  // The whole file's reading (both halves, and one pass across the middle): valid frames in
  // order of first sequence, none twice, no more bytes than the file has twice over.
  std::vector<CommitLogFrame> both = CommitLog::ParseFile(input);
  size_t both_bytes = 0;
  for (size_t i = 0; i < both.size(); ++i) {
    if (both[i].first_seq == 0 || both[i].first_seq > both[i].last_seq) __builtin_trap();
    if (i > 0 && both[i].first_seq < both[i - 1].first_seq) __builtin_trap();
    if (i > 0 && both[i].first_seq == both[i - 1].first_seq &&
        both[i].last_seq == both[i - 1].last_seq && both[i].payload == both[i - 1].payload) {
      __builtin_trap();
    }
    both_bytes += CommitLog::kFrameOverhead + both[i].payload.size();
  }
  if (both_bytes > 2 * size) __builtin_trap();

  // The input as the payloads of two valid frames, then one byte of the second changed.
  const std::string_view first = input.substr(0, size / 2);
  const std::string_view second = input.substr(size / 2);
  std::string log;
  CommitLog::EncodeFrame(7, 1, 3, first, log);
  const size_t second_at = log.size();
  CommitLog::EncodeFrame(7, 4, 4, second, log);
  std::vector<CommitLogFrame> whole = CommitLog::ParseFrames(log);
  if (whole.size() != 2 || whole[0].payload != first || whole[1].payload != second) {
    __builtin_trap();
  }
  const size_t at = second_at + (size == 0 ? 0 : data[0]) % (log.size() - second_at);
  log[at] = static_cast<char>(log[at] ^ 0x5a);
  std::vector<CommitLogFrame> damaged = CommitLog::ParseFrames(log);
  if (damaged.size() != 1 || damaged[0].payload != first) __builtin_trap();

  // A batch our reader accepts is one RocksDB's reads the same way, without aborting.
  auto ops = verdict::journal::ReadGroupBatch(input);
  if (ops.ok()) {
    SameOps same(*ops);
    rocksdb::WriteBatch batch{std::string(input)};
    if (!batch.Iterate(&same).ok() || same.next != ops->size()) __builtin_trap();
  }
  // And as verify adds a frame of records 1..1: accepted or refused, with its records.
  verdict::journal::LoggedWrites logged(Store());
  if (logged.Add(CommitLogFrame{1, 1, std::string(input)}).ok() && logged.records().size() != 1) {
    __builtin_trap();
  }
  return 0;
}
