#include "journal/commit_log.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <random>
#include <string>

#include "common/sha256.h"
#include "journal/bytes.h"
#include "journal/direct_file.h"

namespace verdict::journal {
namespace {

constexpr uint32_t kMagic = 0x56434c31;  // "VCL1"
constexpr size_t kHeaderBytes = 32;      // magic, generation, first_seq, last_seq, length
constexpr size_t kCheckBytes = 8;        // the first bytes of SHA-256(header, payload)
static_assert(kHeaderBytes + kCheckBytes == CommitLog::kFrameOverhead);

Status IoError(const rocksdb::IOStatus& s, std::string_view what, const std::string& path) {
  return Unavailable(std::string(what) + " " + path + ": " + s.ToString());
}

// A frame's header (magic, generation, first and last seq, payload length), appended to `out`.
void EncodeHeader(uint64_t generation, uint64_t first_seq, uint64_t last_seq, size_t payload_bytes,
                  std::string& out) {
  ByteWriter w(out);
  w.U32(kMagic);
  w.U64(generation);
  w.U64(first_seq);
  w.U64(last_seq);
  w.U32(static_cast<uint32_t>(payload_bytes));
}

bool CheckMatches(std::string_view header, std::string_view payload, std::string_view check) {
  const Sha256Digest digest = Sha256Of(header, payload);
  return std::memcmp(digest.data(), check.data(), kCheckBytes) == 0;
}

// Writes `size_bytes` of zeros to `path` by way of a temporary file renamed into place, so that
// a crash never leaves a log of the wrong size under its name.
Status CreateZeroed(rocksdb::FileSystem& fs, const std::string& path, uint64_t size_bytes) {
  const std::string temporary = path + ".new";
  std::unique_ptr<rocksdb::FSWritableFile> out;
  rocksdb::IOStatus s = fs.NewWritableFile(temporary, rocksdb::FileOptions(), &out, nullptr);
  if (!s.ok()) return IoError(s, "cannot create", temporary);
  const std::string zeros(size_t{1} << 20, '\0');
  for (uint64_t written = 0; written < size_bytes && s.ok();) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(zeros.size(), size_bytes - written));
    s = out->Append(rocksdb::Slice(zeros.data(), n), rocksdb::IOOptions(), nullptr);
    written += n;
  }
  if (s.ok()) s = out->Sync(rocksdb::IOOptions(), nullptr);
  if (s.ok()) s = out->Close(rocksdb::IOOptions(), nullptr);
  if (!s.ok()) return IoError(s, "cannot fill", temporary);
  s = fs.RenameFile(temporary, path, rocksdb::IOOptions(), nullptr);
  if (!s.ok()) return IoError(s, "cannot rename into place", path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  std::unique_ptr<rocksdb::FSDirectory> directory;
  s = fs.NewDirectory(dir, rocksdb::IOOptions(), &directory, nullptr);
  if (s.ok()) s = directory->Fsync(rocksdb::IOOptions(), nullptr);
  if (!s.ok()) return IoError(s, "cannot sync the directory of", path);
  return Status::Ok();
}

}  // namespace

Result<std::vector<CommitLogFrame>> CommitLog::ReadFrames(rocksdb::FileSystem& fs,
                                                          const std::string& path) {
  VERDICT_ASSIGN_OR_RETURN(CommitLogScan scan, Scan(fs, path));
  return std::move(scan.frames);
}

Result<CommitLogScan> CommitLog::Scan(rocksdb::FileSystem& fs, const std::string& path) {
  CommitLogScan scan;
  uint64_t size = 0;
  rocksdb::IOStatus s = fs.GetFileSize(path, rocksdb::IOOptions(), &size, nullptr);
  if (s.IsNotFound() || s.IsPathNotFound()) return scan;
  if (!s.ok()) return IoError(s, "cannot stat", path);
  if (size > kMaxSizeBytes) {
    return Status(StatusCode::kFailedPrecondition,
                  path + " is larger than a commit log can be (1 GiB): not this journal's");
  }
  std::unique_ptr<rocksdb::FSRandomAccessFile> in;
  s = fs.NewRandomAccessFile(path, rocksdb::FileOptions(), &in, nullptr);
  if (!s.ok()) return IoError(s, "cannot open", path);
  std::string data(size, '\0');
  rocksdb::Slice read;
  s = in->Read(0, size, rocksdb::IOOptions(), &read, data.data(), nullptr);
  if (!s.ok()) return IoError(s, "cannot read", path);
  const std::string_view bytes(read.data(), read.size());
  scan.frames = ParseFile(bytes);
  scan.loss = FindLoss(bytes);
  return scan;
}

std::vector<CommitLogFrame> CommitLog::ParseFile(std::string_view bytes) {
  std::vector<CommitLogFrame> frames = ParseFrames(bytes);
  std::vector<CommitLogFrame> second = ParseFrames(bytes.substr(HalfBytes(bytes.size())));
  frames.insert(frames.end(), std::make_move_iterator(second.begin()),
                std::make_move_iterator(second.end()));
  // Stable, and repeats are whole frames read twice: a one-pass log's frames after the middle,
  // where a frame happens to start there.
  std::stable_sort(frames.begin(), frames.end(),
                   [](const auto& a, const auto& b) { return a.first_seq < b.first_seq; });
  frames.erase(std::unique(frames.begin(), frames.end(),
                           [](const auto& a, const auto& b) {
                             return a.first_seq == b.first_seq && a.last_seq == b.last_seq &&
                                    a.payload == b.payload;
                           }),
               frames.end());
  return frames;
}

std::vector<CommitLogFrame> CommitLog::ParseFrames(std::string_view bytes) {
  return ParsePass(bytes).frames;
}

CommitLog::Pass CommitLog::ParsePass(std::string_view bytes) {
  Pass pass;
  std::vector<CommitLogFrame>& frames = pass.frames;
  uint64_t generation = 0;
  size_t pos = 0;
  while (bytes.size() - pos >= kFrameOverhead) {
    const std::string_view header = bytes.substr(pos, kHeaderBytes);
    ByteReader r(header);
    const uint32_t magic = r.U32();
    const uint64_t frame_generation = r.U64();
    CommitLogFrame frame;
    frame.first_seq = r.U64();
    frame.last_seq = r.U64();
    const uint32_t length = r.U32();
    if (magic != kMagic) break;
    if (!frames.empty() && frame_generation != generation) break;
    if (length > bytes.size() - pos - kFrameOverhead) break;
    const std::string_view payload = bytes.substr(pos + kHeaderBytes, length);
    if (!CheckMatches(header, payload, bytes.substr(pos + kHeaderBytes + length, kCheckBytes))) {
      break;  // torn: the write was cut short by the crash
    }
    if (frame.first_seq == 0 || frame.first_seq > frame.last_seq + 1) break;
    if (!frames.empty() && frame.first_seq != frames.back().last_seq + 1) break;
    generation = frame_generation;
    frame.payload.assign(payload);
    if (frame.first_seq == frame.last_seq + 1 && !DurableMarkOf(frame)) break;
    frames.push_back(std::move(frame));
    pos += kFrameOverhead + length;
  }
  pass.generation = generation;
  pass.end = pos;
  return pass;
}

std::optional<CommitLogFrame> CommitLog::FindLaterFrame(std::string_view bytes, size_t from,
                                                        uint64_t generation, uint64_t after_seq) {
  // A frame of this pass starts with the magic and the pass's generation, wherever the damaged
  // frame before it ended; only a frame whose check matches counts.
  std::string prefix;
  ByteWriter w(prefix);
  w.U32(kMagic);
  w.U64(generation);
  for (size_t pos = bytes.find(prefix, from); pos != std::string_view::npos;
       pos = bytes.find(prefix, pos + 1)) {
    if (bytes.size() - pos < kFrameOverhead) break;
    const std::string_view header = bytes.substr(pos, kHeaderBytes);
    ByteReader r(header.substr(prefix.size()));
    CommitLogFrame frame;
    frame.first_seq = r.U64();
    frame.last_seq = r.U64();
    const uint32_t length = r.U32();
    if (length > bytes.size() - pos - kFrameOverhead) continue;
    const std::string_view payload = bytes.substr(pos + kHeaderBytes, length);
    if (!CheckMatches(header, payload, bytes.substr(pos + kHeaderBytes + length, kCheckBytes))) {
      continue;
    }
    if (frame.first_seq <= after_seq || frame.first_seq > frame.last_seq) continue;
    // The frames after it that continue it: the last tells how far the pass had gone.
    const Pass rest = ParsePass(bytes.substr(pos));
    if (!rest.frames.empty() && rest.generation == generation) {
      frame.last_seq = rest.frames.back().last_seq;
    }
    return frame;  // the payload is not needed: the frame only proves the pass went on
  }
  return std::nullopt;
}

std::optional<CommitLogLoss> CommitLog::FindLoss(std::string_view bytes) {
  const uint64_t half = HalfBytes(bytes.size());
  std::optional<CommitLogLoss> loss;
  for (const std::string_view part : {bytes.substr(0, half), bytes.substr(half)}) {
    const Pass pass = ParsePass(part);
    // The pass's generation: of its good frames, or else of the damaged first frame's header
    // where that much of it is whole.
    uint64_t generation = pass.generation;
    uint64_t after_seq = pass.frames.empty() ? 0 : pass.frames.back().last_seq;
    if (pass.frames.empty()) {
      if (part.size() < kHeaderBytes) continue;
      ByteReader r(part.substr(0, kHeaderBytes));
      if (r.U32() != kMagic) continue;
      generation = r.U64();
    }
    std::optional<CommitLogFrame> later = FindLaterFrame(part, pass.end + 1, generation, after_seq);
    if (!later) continue;
    if (!loss || after_seq < loss->after_seq) loss = CommitLogLoss{after_seq, later->last_seq};
  }
  return loss;
}

Result<std::unique_ptr<CommitLog>> CommitLog::Open(const std::shared_ptr<rocksdb::FileSystem>& fs,
                                                   const std::string& path, uint64_t size_bytes,
                                                   bool direct_io) {
  if (size_bytes < 2 * kFrameOverhead || size_bytes > kMaxSizeBytes) {
    return InvalidArgument("the commit log's size must be between " +
                           std::to_string(2 * kFrameOverhead) + " bytes and 1 GiB");
  }
  // Left by a crash while the file was being written: the log in place, if any, is whole.
  fs->DeleteFile(path + ".new", rocksdb::IOOptions(), nullptr).PermitUncheckedError();
  if (WouldCreate(*fs, path, size_bytes)) {
    Status created = CreateZeroed(*fs, path, size_bytes);
    if (!created.ok()) {
      // A half-written file would hold on to the space that is short.
      fs->DeleteFile(path + ".new", rocksdb::IOOptions(), nullptr).PermitUncheckedError();
      return created;
    }
  }
  std::unique_ptr<rocksdb::FSRandomRWFile> file;
  if (direct_io && fs == rocksdb::FileSystem::Default() &&
      HalfBytes(size_bytes) % kDirectBlockBytes == 0 && size_bytes % kDirectBlockBytes == 0) {
    file = DirectRWFile::Open(path);
  }
  if (!file) {
    rocksdb::IOStatus s = fs->NewRandomRWFile(path, rocksdb::FileOptions(), &file, nullptr);
    if (!s.ok()) return IoError(s, "cannot open", path);
  }
  auto log = std::unique_ptr<CommitLog>(new CommitLog(std::move(file), size_bytes));
  log->Restart();
  return log;
}

bool CommitLog::WouldCreate(rocksdb::FileSystem& fs, const std::string& path, uint64_t size_bytes) {
  uint64_t existing = 0;
  return !fs.GetFileSize(path, rocksdb::IOOptions(), &existing, nullptr).ok() ||
         existing != size_bytes;
}

CommitLog::CommitLog(std::unique_ptr<rocksdb::FSRandomRWFile> file, uint64_t size_bytes)
    : file_(std::move(file)), size_bytes_(size_bytes) {}

bool CommitLog::Fits(size_t payload_bytes) const {
  return offset_ + kFrameOverhead + payload_bytes <= HalfEnd();
}

bool CommitLog::CouldEverFit(size_t payload_bytes) const {
  return kFrameOverhead + payload_bytes <= HalfBytes(size_bytes_);  // the smaller half
}

void CommitLog::Restart() {
  NewGeneration();
  half_ = 0;
  offset_ = 0;
}

Status CommitLog::SwitchHalf() {
  const int next_half = 1 - half_;
  const uint64_t next_offset = next_half == 0 ? 0 : HalfBytes(size_bytes_);
  // Append writes whole blocks from the start of the one offset_ is in, beginning with the
  // bytes already there (blocks_ holds them while a pass goes on): here they are the other
  // half's, read first, so that a failed read leaves the log as it was.
  const size_t head = next_offset % kDirectBlockBytes;
  if (head > 0) {  // only in a log through the page cache: direct halves start on a block
    std::string scratch(head, '\0');
    rocksdb::Slice read;
    rocksdb::IOStatus s =
        file_->Read(next_offset - head, head, rocksdb::IOOptions(), &read, scratch.data(), nullptr);
    if (s.ok() && read.size() != head) s = rocksdb::IOStatus::IOError("short read");
    if (!s.ok()) return Unavailable("commit log read failed: " + s.ToString());
    ReserveBlocks(kDirectBlockBytes, 0);
    std::memcpy(blocks_.get(), read.data(), head);
  }
  NewGeneration();
  half_ = next_half;
  offset_ = next_offset;
  return Status::Ok();
}

void CommitLog::NewGeneration() {
  // A new generation for each pass, so that the previous pass's frames beyond this one's end
  // never read as its continuation; random, so that no earlier run's pass shares it either.
  uint64_t next = 0;
  do {
    try {
      std::random_device random;
      next = (uint64_t{random()} << 32) | random();
    } catch (const std::exception&) {
      // No entropy source: the clock and the previous generation still tell passes apart.
      next = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
             (generation_ * 0x9e3779b97f4a7c15ULL);
    }
  } while (next == generation_);
  generation_ = next;
}

void CommitLog::EncodeFrame(uint64_t generation, uint64_t first_seq, uint64_t last_seq,
                            std::string_view payload, std::string& out) {
  std::string header;
  EncodeHeader(generation, first_seq, last_seq, payload.size(), header);
  const Sha256Digest check = Sha256Of(header, payload);
  out.append(header);
  out.append(payload);
  out.append(reinterpret_cast<const char*>(check.data()), kCheckBytes);
}

void CommitLog::ReserveBlocks(size_t bytes, size_t keep) {
  if (bytes <= blocks_capacity_) return;
  const size_t capacity = (bytes + kDirectBlockBytes - 1) / kDirectBlockBytes * kDirectBlockBytes;
  std::unique_ptr<char, FreeBlocks> grown(
      static_cast<char*>(std::aligned_alloc(kDirectBlockBytes, capacity)));
  if (!grown) throw std::bad_alloc();
  if (keep > 0) std::memcpy(grown.get(), blocks_.get(), keep);
  blocks_ = std::move(grown);
  blocks_capacity_ = capacity;
}

Status CommitLog::Append(uint64_t first_seq, uint64_t last_seq, std::string_view payload) {
  if (!Fits(payload.size())) return Internal("commit log frame written past the log's end");
  header_.clear();
  EncodeHeader(generation_, first_seq, last_seq, payload.size(), header_);
  const Sha256Digest check = Sha256Of(header_, payload);
  const size_t frame_bytes = kFrameOverhead + payload.size();
  // Whole blocks, from the start of the one offset_ is in (its first bytes as last written) to
  // zeros after the frame: what a direct write needs, and the pages a buffered write would
  // dirty anyway. Never past the half's end: beyond it lies the other half's pass.
  const size_t head = offset_ % kDirectBlockBytes;
  const uint64_t block_start = offset_ - head;
  const size_t used = head + frame_bytes;
  const size_t length = static_cast<size_t>(
      std::min<uint64_t>((used + kDirectBlockBytes - 1) / kDirectBlockBytes * kDirectBlockBytes,
                         HalfEnd() - block_start));
  ReserveBlocks(length, head);
  char* blocks = blocks_.get();
  // The frame goes straight into the blocks: header, payload, check (as EncodeFrame lays it out).
  std::memcpy(blocks + head, header_.data(), kHeaderBytes);
  std::memcpy(blocks + head + kHeaderBytes, payload.data(), payload.size());
  std::memcpy(blocks + used - kCheckBytes, check.data(), kCheckBytes);
  std::memset(blocks + used, 0, length - used);
  rocksdb::IOStatus s =
      file_->Write(block_start, rocksdb::Slice(blocks, length), rocksdb::IOOptions(), nullptr);
  if (!s.ok()) return Unavailable("commit log write failed: " + s.ToString());
  offset_ += frame_bytes;
  // The block the next frame starts in begins with what this write left there.
  const size_t next_head = offset_ % kDirectBlockBytes;
  std::memmove(blocks, blocks + (offset_ - next_head - block_start), next_head);
  return Status::Ok();
}

std::optional<uint64_t> DurableMarkOf(const CommitLogFrame& frame) {
  if (frame.first_seq != frame.last_seq + 1 || frame.payload.size() != 8) return std::nullopt;
  ByteReader r(frame.payload);
  const uint64_t durable_through = r.U64();
  // The store cannot have made durable what was not written yet.
  if (durable_through > frame.last_seq) return std::nullopt;
  return durable_through;
}

Status CommitLog::AppendDurableMark(uint64_t next_seq, uint64_t durable_through) {
  std::string payload;
  ByteWriter w(payload);
  w.U64(durable_through);
  return Append(next_seq, next_seq - 1, payload);
}

Status CommitLog::Sync() {
  rocksdb::IOStatus s = file_->Sync(rocksdb::IOOptions(), nullptr);
  if (!s.ok()) return Unavailable("commit log sync failed: " + s.ToString());
  return Status::Ok();
}

}  // namespace verdict::journal
