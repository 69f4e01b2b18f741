// PublishedLog: an AMQP stream's durable record of the outputs the broker confirmed for its
// latest input messages, so that a message the broker delivers again after a crash (its
// acknowledgement never sent, or lost with the connection) does not have them published a
// second time. AMQP 0-9-1 has no transaction spanning a consume and a publish, so the record
// sits between the two: written and fsynced after the broker's publisher confirms and before
// the input is acknowledged.
//
// One line per message, its output keys (64-bit FNV-1a hashes, hex, of "d" + transaction id,
// or "x" + the dead-lettered body; a transaction id is always answered with the one decision)
// separated by spaces; the last `keep` messages are kept (RabbitMQ delivers again at most the
// prefetch count of unacknowledged messages, so `keep` is a multiple of it), the file rewritten
// when it holds twice as many. A torn last line (a crash while writing) is ignored at load: those
// outputs were confirmed and not yet recorded.
//
// Used from one thread (the transport's); not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"

namespace verdict::ingest {

class PublishedLog {
 public:
  // Opens (creating it and its directory) the record at `path`, loading what it holds.
  static Result<std::unique_ptr<PublishedLog>> Open(const std::string& path, size_t keep);
  ~PublishedLog();
  PublishedLog(const PublishedLog&) = delete;
  PublishedLog& operator=(const PublishedLog&) = delete;

  static uint64_t DecisionKey(std::string_view transaction_id);
  static uint64_t DeadLetterKey(std::string_view body);

  bool Has(uint64_t key) const { return counts_.count(key) != 0; }
  // Records one message's output keys; durable at the next Sync.
  void Add(const std::vector<uint64_t>& keys);
  // Writes and fsyncs what was added since the last Sync.
  Status Sync();
  size_t size() const { return messages_.size(); }

 private:
  PublishedLog(std::string path, size_t keep) : path_(std::move(path)), keep_(keep) {}
  void Remember(std::vector<uint64_t> keys);
  // Rewrites the file with only the messages kept (temporary file, fsync, rename).
  Status Compact();

  const std::string path_;
  const size_t keep_;
  int fd_ = -1;
  std::deque<std::vector<uint64_t>> messages_;
  std::unordered_map<uint64_t, int> counts_;  // key -> messages holding it
  std::string unsynced_;                      // lines added, not yet written
  size_t lines_in_file_ = 0;
};

}  // namespace verdict::ingest
