// CommitLog: what makes a durable group commit durable when the store's own WAL is written
// without a sync. A file of fixed size, filled once with zeros, into which each group's
// serialized WriteBatch is written as a frame and synced: an overwrite of blocks already
// written, so an fdatasync flushes the frame alone, with no inode or extent update (on this
// kind of VM one device write fewer per commit, and on a journaling file system no journal
// commit). When the file is full the journal makes the store's WAL durable and the log starts
// over at offset 0 under a new random generation; frames of an older generation beyond the new
// end are told apart by it. On open the journal replays the frames the store lacks.
// Not thread-safe: the journal's committing thread owns it (groups are written one at a time).
#pragma once

#include <rocksdb/file_system.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
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

class CommitLog {
 public:
  // The frames of the file's current generation, in order: from offset 0 up to the first frame
  // that is torn, of another generation, or does not continue the sequence. A missing file has
  // none.
  static Result<std::vector<CommitLogFrame>> ReadFrames(rocksdb::FileSystem& fs,
                                                        const std::string& path);
  // The same, from the file's bytes (any bytes: a damaged file ends the frames, never fails).
  static std::vector<CommitLogFrame> ParseFrames(std::string_view bytes);
  // Appends one frame as Append writes it (for tests and the fuzz target).
  static void EncodeFrame(uint64_t generation, uint64_t first_seq, uint64_t last_seq,
                          std::string_view payload, std::string& out);

  // Opens the log for writing, starting over at offset 0 under a new generation. The file is
  // reused when it has `size_bytes` (at most kMaxSizeBytes); otherwise it is written anew
  // (zeros, synced, renamed into place). Every frame it held must already be durable in the
  // store.
  // With `direct_io` (as the journal asks, JournalOptions::commit_log_direct_io), the file is
  // written with O_DIRECT where it can be: through the default file system (a wrapped one, such
  // as the tests' fault injection, keeps its own files), on a file system that takes it, and at
  // a size of whole blocks; otherwise through `fs`.
  static Result<std::unique_ptr<CommitLog>> Open(const std::shared_ptr<rocksdb::FileSystem>& fs,
                                                 const std::string& path, uint64_t size_bytes,
                                                 bool direct_io = false);

  // Whether Open would write the file anew (it is missing or of another size).
  static bool WouldCreate(rocksdb::FileSystem& fs, const std::string& path, uint64_t size_bytes);

  // Whether a frame of this payload fits between the write position and the end.
  bool Fits(size_t payload_bytes) const;
  // Whether such a frame could fit at all, in an empty log.
  bool CouldEverFit(size_t payload_bytes) const;
  // Writes a frame at the write position (the caller checked Fits). Not durable until Sync.
  Status Append(uint64_t first_seq, uint64_t last_seq, std::string_view payload);
  Status Sync();
  // Starts over at offset 0 under a new generation; every frame written before must be durable
  // elsewhere first.
  void Restart();
  uint64_t size_bytes() const { return size_bytes_; }
  // Whether writes bypass the page cache (O_DIRECT).
  bool direct_io() const { return file_->use_direct_io(); }

  static constexpr size_t kFrameOverhead = 40;  // header (32 bytes) and check (8)
  // Read whole on open, and a frame's length is 32 bits.
  static constexpr uint64_t kMaxSizeBytes = uint64_t{1} << 30;

 private:
  CommitLog(std::unique_ptr<rocksdb::FSRandomRWFile> file, uint64_t size_bytes);

  struct FreeBlocks {
    void operator()(char* p) const { std::free(p); }
  };
  // Makes room for `bytes` in blocks_ (whole blocks), keeping its first `keep` bytes.
  void ReserveBlocks(size_t bytes, size_t keep);

  std::unique_ptr<rocksdb::FSRandomRWFile> file_;
  uint64_t size_bytes_;
  uint64_t offset_ = 0;
  uint64_t generation_ = 0;
  std::string header_;  // reused between appends
  // What the next write covers, block-aligned in memory: it starts with the bytes already
  // written to the block offset_ is in, since every write is of whole blocks.
  std::unique_ptr<char, FreeBlocks> blocks_;
  size_t blocks_capacity_ = 0;
};

}  // namespace verdict::journal
