// KafkaPublished: what the Kafka transport knows is already on the output topics for input
// messages not yet committed, so that a message read again (after a crash, or a lost
// connection) publishes only what is missing and every input message has one copy of each of
// its outputs on the brokers.
//
// The output topics themselves are the record: every output carries the header
// `verdict-source: TOPIC/PARTITION/OFFSET` (the input message it answers). Each offset commit
// carries, as its metadata, an output cursor: per output partition, the offset from which any
// output of a message not yet committed lies. At connect the transport reads the outputs from
// the cursor to the end (ScanPublished) and skips what it finds; while it runs it adds what
// the brokers acknowledge. Debian's librdkafka mock cluster has no read_committed isolation,
// so Kafka transactions could not be tested here; this needs only offset metadata and headers.
//
// Value types, used from one thread (the transport's).
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace verdict::ingest {

// One output partition: (topic, partition).
using OutputPartition = std::pair<std::string, int32_t>;
// Per output partition, an offset.
using OutputCursor = std::map<OutputPartition, int64_t>;

// "verdict-out:v1 TOPIC/P=OFFSET;..." (Kafka topic names cannot hold '/', '=' or ';').
std::string EncodeOutputCursor(const OutputCursor& cursor);
// nullopt for metadata that is not an output cursor (absent, or written by something else).
std::optional<OutputCursor> DecodeOutputCursor(std::string_view metadata);

// "TOPIC/PARTITION/OFFSET", the value of the verdict-source header.
std::string SourceHeader(const std::string& topic, int32_t partition, int64_t offset);
// The input partition and offset of a verdict-source value naming `topic`; nullopt otherwise.
std::optional<std::pair<int32_t, int64_t>> ParseSourceHeader(std::string_view value,
                                                             std::string_view topic);

class KafkaPublished {
 public:
  // One output on the brokers.
  struct Output {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = 0;
    std::string key;
  };

  // An output of input message (partition, offset) is on the brokers.
  void Add(int32_t input_partition, int64_t input_offset, Output output);
  // True when input message (partition, offset) already has an output on `topic` keyed `key`
  // (dead letters: any output on `topic`, `key` ignored).
  bool Has(int32_t input_partition, int64_t input_offset, const std::string& topic,
           const std::string& key, bool any_key) const;
  // Input partition `partition` is committed up to `frontier`: forget what lies before.
  void Committed(int32_t partition, int64_t frontier);
  // Where the next output on `out` will land at the earliest (it is past this offset).
  void Landed(const OutputPartition& out, int64_t offset);
  // The cursor for an offset commit: per output partition, the lowest offset of an output of a
  // message not yet committed, else where the next output will land.
  OutputCursor Cursor() const;
  // Forgets the outputs of every input partition but `partitions`.
  void RetainInputs(const std::set<int32_t>& partitions);
  void Clear();

 private:
  std::map<std::pair<int32_t, int64_t>, std::vector<Output>> by_input_;
  OutputCursor next_;  // per output partition: past every output seen
};

// Reads each output partition of `from` from its offset to its end, through a consumer of its
// own, and adds to `published` every output whose verdict-source names `input_topic`. Also
// records each partition's end as where the next output lands. Gives up (kUnavailable) after
// `timeout_ms`.
Status ScanPublished(const std::string& brokers, const std::string& input_topic,
                     const OutputCursor& from, int timeout_ms, KafkaPublished* published);

}  // namespace verdict::ingest
