// KafkaTransport: a StreamTransport over librdkafka. The consumer subscribes to the input
// topic in its group (`group`): the partitions are shared among the group's consumers (engines,
// or [[ingest]] tables of one engine) and each resumes from the offset last committed. When a
// partition is revoked, what was published for it is flushed and its done offsets committed
// before it moves, and messages of it still in flight are neither published nor committed
// (the new owner reads them again). Offsets are committed by hand, in order per partition: an
// offset is committed only once it and every offset before it are done (decided durably and their
// outputs acknowledged by the brokers, acks=all). Decisions and dead letters go out through a
// producer of its own. Used from one thread (StreamRunner's); librdkafka's own threads call back
// only inside Poll.
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
  uint64_t OutputsNotRepublished() const override { return not_republished_; }
  void Close() override;

 private:
  // What has been read from one partition and is not yet committed.
  struct Partition {
    std::set<int64_t> outstanding;  // offsets read and not yet done
    int64_t next_offset = -1;       // after the last offset read; -1: none read yet
    int64_t committed = -1;         // what was last sent as committed
    uint64_t generation = 0;        // which assignment of the partition this is
  };

  // A message published and not yet fully acknowledged.
  struct Unconfirmed {
    size_t outputs = 0;  // not yet acknowledged
    int32_t partition = 0;
    int64_t offset = 0;
  };

  // Where the outputs of messages not yet committed may lie: the cursor in the commits'
  // metadata (the lowest of them), every output partition from its start when there is none.
  Result<OutputCursor> ScanFrom(const rd_kafka_topic_partition_list_t& assigned);
  // The group's rebalance (librdkafka calls it inside rd_kafka_consumer_poll, on this thread).
  static void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque);
  void Assign(rd_kafka_topic_partition_list_t* partitions);
  void Revoke(rd_kafka_topic_partition_list_t* partitions);
  // The partition `message` was read from, if it is still assigned as it was then.
  Partition* Owned(const InputMessage& message);
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
  uint64_t generation_ = 0;
  uint64_t not_republished_ = 0;
  std::string rebalance_error_;  // an assignment that could not be prepared: reconnect
  int64_t last_commit_ns_ = 0;
};

}  // namespace verdict::ingest
