// KafkaTransport: a StreamTransport over librdkafka. The consumer is assigned every partition
// of the input topic and resumes each from the offset its group (`group`) last committed;
// offsets are committed by hand, in order per partition: an offset is committed only once it and
// every offset before it are done (decided durably and their outputs acknowledged by the
// brokers, acks=all). Decisions and dead letters go out through a producer of its own.
// Used from one thread (StreamRunner's); librdkafka's own threads call back only inside Poll.
#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ingest/ingest_options.h"
#include "ingest/kafka_published.h"
#include "ingest/stream_transport.h"

namespace verdict::ingest {

class KafkaTransport : public StreamTransport {
 public:
  explicit KafkaTransport(const IngestOptions& options);
  ~KafkaTransport() override;
  KafkaTransport(const KafkaTransport&) = delete;
  KafkaTransport& operator=(const KafkaTransport&) = delete;

  Status Connect() override;
  Result<std::optional<InputMessage>> Next(int timeout_ms) override;
  Status Publish(uint64_t id, const InputMessage& message, const MessageOutcome& outcome) override;
  Status Poll(std::vector<uint64_t>* confirmed) override;
  Status Commit(const InputMessage& message) override;
  std::optional<int64_t> Lag() override;
  void Close() override;

 private:
  // What has been read from one partition and is not yet committed.
  struct Partition {
    std::set<int64_t> outstanding;  // offsets read and not yet done
    int64_t next_offset = -1;       // after the last offset read; -1: none read yet
    int64_t committed = -1;         // what was last sent as committed
  };

  // A message published and not yet fully acknowledged.
  struct Unconfirmed {
    size_t outputs = 0;  // not yet acknowledged
    int32_t partition = 0;
    int64_t offset = 0;
  };

  // Where the outputs of messages not yet committed may lie: the cursor in the commits'
  // metadata (the lowest of them), every output partition from its start when there is none.
  Result<OutputCursor> ScanFrom(int32_t input_partitions);
  // The producer's delivery report (librdkafka calls it inside rd_kafka_poll, on this thread).
  static void OnDelivery(rd_kafka_t* rk, const rd_kafka_message_t* message, void* opaque);
  Status Produce(const std::string& topic, const std::string& key, const std::string& value,
                 const std::vector<std::pair<std::string, std::string>>& headers, uint64_t id);
  // Sends the committable offsets: synchronously when `wait`.
  Status CommitOffsets(bool wait);

  const IngestOptions options_;
  rd_kafka_t* consumer_ = nullptr;
  rd_kafka_t* producer_ = nullptr;
  std::map<int32_t, Partition> partitions_;
  std::map<uint64_t, Unconfirmed> unconfirmed_;  // by message id
  KafkaPublished published_;
  std::vector<uint64_t> confirmed_;  // filled by OnDelivery
  std::string delivery_error_;       // a failed delivery: the connection is reset
  bool commit_due_ = false;
  int64_t last_commit_ns_ = 0;
};

}  // namespace verdict::ingest
