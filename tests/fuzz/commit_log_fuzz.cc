// libFuzzer target: the journal's commit log reader (read on every start, from a file a crash
// or a bad disk may have damaged) must never crash, hang or over-allocate on any bytes; the
// frames it returns must continue one another; and valid frames must read back whole, with a
// damaged second frame ending the log after the first.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "journal/commit_log.h"

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
  return 0;
}
