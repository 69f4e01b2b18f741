// CommitLog: what makes a durable group commit durable when the store's own WAL is written
// without a sync. A file of fixed size, filled once with zeros, into which each group's
// serialized WriteBatch is written as a frame and synced: an overwrite of blocks already
// written, so an fdatasync flushes the frame alone, with no extent update (one device write
// fewer per commit, and on a journaling file system no journal commit).
// The file is two halves, written in turn, a pass each under a new random generation. When one
// half is full the journal goes on in the other, whose older pass must by then be durable in the
// store: the journal syncs the store's WAL in the background from the moment a pass ends, so no
// commit waits for that sync (what it costs under overload: docs/PERFORMANCE.md). Frames of an
// older generation beyond a pass's end are told apart by it. On open the journal replays the frames
// the store lacks, from both halves. Not thread-safe: the journal's committing thread owns it
// (groups are written one at a time).
#pragma once

#include <rocksdb/file_system.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace verdict::journal {

struct CommitLogFrame {
  uint64_t first_seq = 0;  // the group's first and last record sequence numbers
  uint64_t last_seq = 0;
  std::string payload;  // the group's WriteBatch, serialized
};

// A frame of no records (first_seq == last_seq + 1) whose 8-byte payload says how far the store
// had made its writes durable when it was written: through that record. Written where a pass
// starts after the store's WAL was synced, and after every write the store synced itself (a
// clean close's among them). On open the store must hold at least that far: less means its WAL
// lost writes it had made durable, which no frame may be left to restore.
std::optional<uint64_t> DurableMarkOf(const CommitLogFrame& frame);
// Frames lost inside a pass: a frame that does not check is followed by a good frame of the same
// pass. Each frame is synced before the next is written, so the damaged one was whole and
// acknowledged (a frame torn by a crash is always its pass's last).
struct CommitLogLoss {
  uint64_t after_seq = 0;    // the last record of the good frames before the damage
  uint64_t through_seq = 0;  // the last record of the later good frame found
};

// A commit log as read on open and by `verdict audit verify`.
struct CommitLogScan {
  std::vector<CommitLogFrame> frames;  // as ReadFrames
  std::optional<CommitLogLoss> loss;   // the earliest loss of any half, if one is found
};

class CommitLog {
 public:
  // The frames (ReadFrames) and any frames lost to damage (FindLoss). A missing file has none.
  static Result<CommitLogScan> Scan(rocksdb::FileSystem& fs, const std::string& path);
  // Looks in each half for a good frame of a pass after the point where that pass stops parsing.
  // Any bytes; never fails.
  static std::optional<CommitLogLoss> FindLoss(std::string_view bytes);
  // The frames of both halves' passes, ordered by sequence (ParseFile). A missing file has
  // none.
  static Result<std::vector<CommitLogFrame>> ReadFrames(rocksdb::FileSystem& fs,
                                                        const std::string& path);
  // The frames of a whole file's bytes: each half's pass (ParseFrames from its start), and a
  // pass from offset 0 across the middle (as a log written in one pass over the whole file, by
  // versions before the halves, left it), ordered by first sequence, without repeats. Any bytes:
  // a damaged file ends a pass, never fails.
  static std::vector<CommitLogFrame> ParseFile(std::string_view bytes);
  // One pass, from the start of `bytes`: its frames in order, up to the first frame that is
  // torn, of another generation, or does not continue the sequence.
  static std::vector<CommitLogFrame> ParseFrames(std::string_view bytes);
  // Where the second half starts in a file of `size_bytes`.
  static uint64_t HalfBytes(uint64_t size_bytes) { return size_bytes / 2; }
  // Appends one frame as Append writes it (for tests and the fuzz target).
  static void EncodeFrame(uint64_t generation, uint64_t first_seq, uint64_t last_seq,
                          std::string_view payload, std::string& out);

  // Opens the log for writing, starting over at the first half's start under a new generation. The
  // file is reused when it has `size_bytes` (at most kMaxSizeBytes); otherwise it is written anew
  // (zeros, synced, renamed into place). Every frame it held must already be durable in the
  // store.
  // With `direct_io` (as the journal asks, JournalOptions::commit_log_direct_io), the file is
  // written with O_DIRECT where it can be: through the default file system (a wrapped one, such
  // as the tests' fault injection, keeps its own files), on a file system that takes it, and at
  // a size of whole blocks in each half; otherwise through `fs`.
  static Result<std::unique_ptr<CommitLog>> Open(const std::shared_ptr<rocksdb::FileSystem>& fs,
                                                 const std::string& path, uint64_t size_bytes,
                                                 bool direct_io = false);

  // Whether Open would write the file anew (it is missing or of another size).
  static bool WouldCreate(rocksdb::FileSystem& fs, const std::string& path, uint64_t size_bytes);

  // Whether a frame of this payload fits between the write position and its half's end.
  bool Fits(size_t payload_bytes) const;
  // Whether such a frame could fit at all, in an empty half.
  bool CouldEverFit(size_t payload_bytes) const;
  // Writes a frame at the write position (the caller checked Fits). Not durable until Sync.
  Status Append(uint64_t first_seq, uint64_t last_seq, std::string_view payload);
  // Writes a durable mark (DurableMarkOf) before the records from `next_seq` on: the store holds
  // records through `durable_through` durably. Not durable until Sync.
  Status AppendDurableMark(uint64_t next_seq, uint64_t durable_through);
  Status Sync();
  // Starts over at the first half's start under a new generation; every frame written before
  // must be durable elsewhere first.
  void Restart();
  // Goes on at the other half's start under a new generation; the frames that half holds must be
  // durable elsewhere first (those of the half just left need not be). Fails only if the start
  // of the block the half begins in cannot be read (a half that starts mid-block, in a small
  // log written through the page cache).
  Status SwitchHalf();
  uint64_t size_bytes() const { return size_bytes_; }
  // Whether writes bypass the page cache (O_DIRECT).
  bool direct_io() const { return file_->use_direct_io(); }

  static constexpr size_t kFrameOverhead = 40;  // header (32 bytes) and check (8)
  static constexpr size_t kDurableMarkBytes = kFrameOverhead + 8;
  // Read whole on open, and a frame's length is 32 bits.
  static constexpr uint64_t kMaxSizeBytes = uint64_t{1} << 30;

 private:
  CommitLog(std::unique_ptr<rocksdb::FSRandomRWFile> file, uint64_t size_bytes);

  struct Pass {
    std::vector<CommitLogFrame> frames;
    uint64_t generation = 0;  // of the frames (0: none)
    size_t end = 0;           // where parsing stopped: the first byte after the last good frame
  };
  // ParseFrames, also telling where it stopped.
  static Pass ParsePass(std::string_view bytes);
  // The first good frame of `generation` at or after `from` whose records follow `after_seq`.
  static std::optional<CommitLogFrame> FindLaterFrame(std::string_view bytes, size_t from,
                                                      uint64_t generation, uint64_t after_seq);

  struct FreeBlocks {
    void operator()(char* p) const { std::free(p); }
  };
  // Makes room for `bytes` in blocks_ (whole blocks), keeping its first `keep` bytes.
  void ReserveBlocks(size_t bytes, size_t keep);
  void NewGeneration();
  uint64_t HalfEnd() const { return half_ == 0 ? HalfBytes(size_bytes_) : size_bytes_; }

  std::unique_ptr<rocksdb::FSRandomRWFile> file_;
  uint64_t size_bytes_;
  uint64_t offset_ = 0;  // from the file's start
  int half_ = 0;         // the half offset_ is in
  uint64_t generation_ = 0;
  std::string header_;  // reused between appends
  // What the next write covers, block-aligned in memory: it starts with the bytes already
  // written to the block offset_ is in, since every write is of whole blocks.
  std::unique_ptr<char, FreeBlocks> blocks_;
  size_t blocks_capacity_ = 0;
};

}  // namespace verdict::journal
