#include "ingest/kafka_transport.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace verdict::ingest {
namespace {

constexpr int kMetadataTimeoutMs = 5000;
constexpr int kCloseTimeoutMs = 5000;
// How long Connect may spend reading back what was published for uncommitted messages.
constexpr int kScanTimeoutMs = 30000;
// Offsets are committed at most this often while messages stream (and always at Close).
constexpr int64_t kCommitEveryNs = 100'000'000;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}

// A configuration for one client; the error names the property librdkafka refused.
Result<rd_kafka_conf_t*> MakeConf(const std::vector<std::pair<const char*, std::string>>& props) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  for (const auto& [name, value] : props) {
    if (rd_kafka_conf_set(conf, name, value.c_str(), error, sizeof(error)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return InvalidArgument(std::string("kafka ") + name + ": " + error, name);
    }
  }
  return conf;
}

}  // namespace

KafkaTransport::KafkaTransport(const IngestOptions& options) : options_(options) {}

KafkaTransport::~KafkaTransport() { Close(); }

Status KafkaTransport::Connect() {
  Close();
  char error[512];
  Result<rd_kafka_conf_t*> producer_conf = MakeConf({{"bootstrap.servers", options_.brokers},
                                                     {"enable.idempotence", "true"},
                                                     {"linger.ms", "2"},
                                                     {"client.id", "verdict-ingest"}});
  if (!producer_conf.ok()) return producer_conf.status();
  rd_kafka_conf_set_dr_msg_cb(*producer_conf, &KafkaTransport::OnDelivery);
  rd_kafka_conf_set_opaque(*producer_conf, this);
  producer_ = rd_kafka_new(RD_KAFKA_PRODUCER, *producer_conf, error, sizeof(error));
  if (producer_ == nullptr) {
    rd_kafka_conf_destroy(*producer_conf);
    return Unavailable(std::string("kafka producer: ") + error);
  }
  Result<rd_kafka_conf_t*> consumer_conf =
      MakeConf({{"bootstrap.servers", options_.brokers},
                {"group.id", options_.group},
                {"session.timeout.ms", std::to_string(options_.session_timeout_ms)},
                {"heartbeat.interval.ms", std::to_string(options_.session_timeout_ms / 3)},
                {"client.id", "verdict-ingest"},
                {"enable.auto.commit", "false"},
                {"enable.auto.offset.store", "false"},
                {"enable.partition.eof", "false"},
                {"auto.offset.reset", "earliest"}});
  if (!consumer_conf.ok()) return consumer_conf.status();
  rd_kafka_conf_set_rebalance_cb(*consumer_conf, &KafkaTransport::OnRebalance);
  rd_kafka_conf_set_opaque(*consumer_conf, this);
  consumer_ = rd_kafka_new(RD_KAFKA_CONSUMER, *consumer_conf, error, sizeof(error));
  if (consumer_ == nullptr) {
    rd_kafka_conf_destroy(*consumer_conf);
    return Unavailable(std::string("kafka consumer: ") + error);
  }
  rd_kafka_poll_set_consumer(consumer_);

  // The input must exist: a clear error rather than a consumer waiting for it.
  rd_kafka_topic_t* topic = rd_kafka_topic_new(consumer_, options_.topic.c_str(), nullptr);
  const rd_kafka_metadata_t* metadata = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(consumer_, 0, topic, &metadata, kMetadataTimeoutMs);
  rd_kafka_topic_destroy(topic);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Unavailable("kafka metadata of topic " + options_.topic + ": " + rd_kafka_err2str(err));
  }
  int partition_count = 0;
  rd_kafka_resp_err_t topic_err = RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
  if (metadata->topic_cnt == 1) {
    partition_count = metadata->topics[0].partition_cnt;
    topic_err = metadata->topics[0].err;
  }
  rd_kafka_metadata_destroy(metadata);
  if (topic_err != RD_KAFKA_RESP_ERR_NO_ERROR || partition_count == 0) {
    return Unavailable("kafka topic " + options_.topic + ": " + rd_kafka_err2str(topic_err));
  }
  // The group shares the partitions; OnRebalance prepares each assignment.
  rd_kafka_topic_partition_list_t* subscription = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(subscription, options_.topic.c_str(), RD_KAFKA_PARTITION_UA);
  err = rd_kafka_subscribe(consumer_, subscription);
  rd_kafka_topic_partition_list_destroy(subscription);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Unavailable(std::string("kafka subscribe: ") + rd_kafka_err2str(err));
  }
  return Status::Ok();
}

void KafkaTransport::OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                 rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  auto* self = static_cast<KafkaTransport*>(opaque);
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    self->Assign(partitions);
    return;
  }
  self->Revoke(partitions);
  rd_kafka_assign(rk, nullptr);
}

void KafkaTransport::Assign(rd_kafka_topic_partition_list_t* partitions) {
  // What the outputs already hold for the assigned partitions' messages past their commits:
  // read again, they publish only what is missing. Until that is known nothing is consumed.
  Result<OutputCursor> from = ScanFrom(*partitions);
  Status scanned = from.ok() ? ScanPublished(options_.brokers, options_.topic, *from,
                                             kScanTimeoutMs, &published_)
                             : from.status();
  if (!scanned.ok()) {
    rebalance_error_ = scanned.message();
    rd_kafka_assign(consumer_, nullptr);
    return;
  }
  ++generation_;
  for (int i = 0; i < partitions->cnt; ++i) {
    Partition fresh;
    fresh.generation = generation_;
    partitions_[partitions->elems[i].partition] = fresh;
    partitions->elems[i].offset = RD_KAFKA_OFFSET_STORED;
  }
  // The scan also met the outputs of other consumers' partitions: not this one's to track.
  std::set<int32_t> owned;
  for (const auto& [p, partition] : partitions_) owned.insert(p);
  published_.RetainInputs(owned);
  if (rd_kafka_resp_err_t err = rd_kafka_assign(consumer_, partitions);
      err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rebalance_error_ = std::string("kafka assign: ") + rd_kafka_err2str(err);
  }
  spdlog::info("ingest kafka:{}: {} partitions assigned in group {}", options_.topic,
               partitions->cnt, options_.group);
}

void KafkaTransport::Revoke(rd_kafka_topic_partition_list_t* partitions) {
  // What was published lands before the partitions move (so the new owner's scan sees it) and
  // what is done is committed with a cursor covering the rest.
  if (producer_ != nullptr) {
    rd_kafka_flush(producer_, kCloseTimeoutMs);
    rd_kafka_poll(producer_, 0);
  }
  if (delivery_error_.empty()) (void)CommitOffsets(/*wait=*/true);
  for (int i = 0; i < partitions->cnt; ++i) {
    const int32_t p = partitions->elems[i].partition;
    partitions_.erase(p);
    published_.Committed(p, INT64_MAX);
  }
  spdlog::info("ingest kafka:{}: {} partitions revoked", options_.topic, partitions->cnt);
}

KafkaTransport::Partition* KafkaTransport::Owned(const InputMessage& message) {
  auto it = partitions_.find(message.partition);
  if (it == partitions_.end() || it->second.generation != message.generation) return nullptr;
  return &it->second;
}

Result<OutputCursor> KafkaTransport::ScanFrom(const rd_kafka_topic_partition_list_t& assigned) {
  OutputCursor from;
  for (const std::string& topic : {options_.decisions_topic, options_.dead_letter}) {
    rd_kafka_topic_t* handle = rd_kafka_topic_new(consumer_, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* metadata = nullptr;
    rd_kafka_resp_err_t err =
        rd_kafka_metadata(consumer_, 0, handle, &metadata, kMetadataTimeoutMs);
    rd_kafka_topic_destroy(handle);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Unavailable("kafka metadata of topic " + topic + ": " + rd_kafka_err2str(err));
    }
    const int count = metadata->topic_cnt == 1 && metadata->topics[0].err == 0
                          ? metadata->topics[0].partition_cnt
                          : 0;
    rd_kafka_metadata_destroy(metadata);
    if (count == 0) return Unavailable("kafka topic " + topic + " has no partitions");
    for (int32_t p = 0; p < count; ++p) from[{topic, p}] = 0;
  }
  rd_kafka_topic_partition_list_t* committed = rd_kafka_topic_partition_list_copy(&assigned);
  rd_kafka_resp_err_t err = rd_kafka_committed(consumer_, committed, kMetadataTimeoutMs);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_topic_partition_list_destroy(committed);
    return Unavailable(std::string("kafka committed offsets: ") + rd_kafka_err2str(err));
  }
  // Every commit's cursor covers the outputs of every message its consumer had not committed
  // when it was made, so the lowest of them is safe; a partition committed without one (or
  // never) leaves everything to read.
  std::optional<OutputCursor> lowest;
  for (int i = 0; i < committed->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = committed->elems[i];
    std::optional<OutputCursor> cursor;
    if (tp.offset >= 0 && tp.metadata != nullptr) {
      cursor = DecodeOutputCursor(
          std::string_view(static_cast<const char*>(tp.metadata), tp.metadata_size));
    }
    if (!cursor) {
      lowest.reset();
      break;
    }
    if (!lowest) {
      lowest = std::move(*cursor);
      continue;
    }
    for (auto& [out, offset] : *lowest) {
      auto it = cursor->find(out);
      offset = it == cursor->end() ? 0 : std::min(offset, it->second);
    }
  }
  rd_kafka_topic_partition_list_destroy(committed);
  if (lowest) {
    for (auto& [out, offset] : from) {
      auto it = lowest->find(out);
      if (it != lowest->end()) offset = it->second;
    }
  }
  return from;
}

Result<std::optional<InputMessage>> KafkaTransport::Next(int timeout_ms) {
  rd_kafka_message_t* message = rd_kafka_consumer_poll(consumer_, timeout_ms);
  if (!rebalance_error_.empty()) {
    if (message != nullptr) rd_kafka_message_destroy(message);
    return Unavailable("kafka assignment: " + rebalance_error_);
  }
  if (message == nullptr) return std::optional<InputMessage>();
  if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // Consumer errors are reported and retried by librdkafka itself (a broker down, a
    // partition moving); only a fatal one ends the connection.
    const std::string what = rd_kafka_message_errstr(message);
    rd_kafka_message_destroy(message);
    char fatal[256];
    if (rd_kafka_fatal_error(consumer_, fatal, sizeof(fatal)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Unavailable(std::string("kafka consumer: ") + fatal);
    }
    spdlog::warn("ingest kafka:{}: {}", options_.topic, what);
    return std::optional<InputMessage>();
  }
  InputMessage in;
  if (message->payload != nullptr) {
    in.payload.assign(static_cast<const char*>(message->payload), message->len);
  }
  if (message->key != nullptr) {
    in.key.assign(static_cast<const char*>(message->key), message->key_len);
  }
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    auto header = [headers](const char* name, std::string* out) {
      const void* value = nullptr;
      size_t size = 0;
      if (rd_kafka_header_get_last(headers, name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR &&
          value != nullptr) {
        out->assign(static_cast<const char*>(value), size);
      }
    };
    header("content-type", &in.content_type);
    header("traceparent", &in.traceparent);
    header("tracestate", &in.tracestate);
  }
  in.partition = message->partition;
  in.position = static_cast<uint64_t>(message->offset);
  rd_kafka_message_destroy(message);
  auto owned = partitions_.find(in.partition);
  if (owned == partitions_.end()) return std::optional<InputMessage>();  // fetched, then revoked
  Partition& partition = owned->second;
  in.generation = partition.generation;
  partition.outstanding.insert(static_cast<int64_t>(in.position));
  partition.next_offset = static_cast<int64_t>(in.position) + 1;
  return std::optional<InputMessage>(std::move(in));
}

Status KafkaTransport::Produce(const std::string& topic, const std::string& key,
                               const std::string& value,
                               const std::vector<std::pair<std::string, std::string>>& headers,
                               uint64_t id) {
  rd_kafka_headers_t* hdrs = rd_kafka_headers_new(headers.size());
  for (const auto& [name, header_value] : headers) {
    rd_kafka_header_add(hdrs, name.data(), static_cast<ssize_t>(name.size()), header_value.data(),
                        static_cast<ssize_t>(header_value.size()));
  }
  // rd_kafka_produceva, not rd_kafka_producev: the latter's argument macros are GNU statement
  // expressions, which clang's -Wpedantic refuses.
  rd_kafka_vu_t args[6];
  args[0].vtype = RD_KAFKA_VTYPE_TOPIC;
  args[0].u.cstr = topic.c_str();
  args[1].vtype = RD_KAFKA_VTYPE_KEY;
  args[1].u.mem = {const_cast<char*>(key.data()), key.size()};
  args[2].vtype = RD_KAFKA_VTYPE_VALUE;
  args[2].u.mem = {const_cast<char*>(value.data()), value.size()};
  args[3].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
  args[3].u.i = RD_KAFKA_MSG_F_COPY;
  args[4].vtype = RD_KAFKA_VTYPE_HEADERS;
  args[4].u.headers = hdrs;
  args[5].vtype = RD_KAFKA_VTYPE_OPAQUE;
  args[5].u.ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(id));
  for (;;) {
    rd_kafka_error_t* error = rd_kafka_produceva(producer_, args, 6);
    if (error == nullptr) return Status::Ok();  // the headers are the message's now
    const rd_kafka_resp_err_t err = rd_kafka_error_code(error);
    const std::string what = rd_kafka_error_string(error);
    rd_kafka_error_destroy(error);
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_headers_destroy(hdrs);
      return Unavailable("kafka produce to " + topic + ": " + what);
    }
    // The producer's queue is full: serve deliveries until there is room.
    rd_kafka_poll(producer_, 10);
  }
}

Status KafkaTransport::Publish(uint64_t id, const InputMessage& message,
                               const MessageOutcome& outcome) {
  size_t outputs = outcome.decisions.size() + (outcome.dead_letter_error.empty() ? 0 : 1);
  if (outputs == 0 || Owned(message) == nullptr) {
    // Nothing to publish, or the partition moved: its new owner reads the message again.
    confirmed_.push_back(id);
    return Status::Ok();
  }
  const auto offset = static_cast<int64_t>(message.position);
  const std::string source = SourceHeader(options_.topic, message.partition, offset);
  // What an earlier reading of the message already put on the brokers is not published again.
  std::vector<const std::pair<std::string, std::string>*> decisions;
  for (const auto& decision : outcome.decisions) {
    if (!published_.Has(message.partition, offset, options_.decisions_topic, decision.first,
                        /*any_key=*/false)) {
      decisions.push_back(&decision);
    }
  }
  const bool dead_letter =
      !outcome.dead_letter_error.empty() &&
      !published_.Has(message.partition, offset, options_.dead_letter, "", /*any_key=*/true);
  const size_t skipped = outputs - decisions.size() - (dead_letter ? 1 : 0);
  not_republished_ += skipped;
  outputs -= skipped;
  if (outputs == 0) {
    confirmed_.push_back(id);
    return Status::Ok();
  }
  unconfirmed_[id] = Unconfirmed{outputs, message.partition, offset};
  for (const auto* decision : decisions) {
    if (Status s = Produce(options_.decisions_topic, decision->first, decision->second,
                           {{"content-type", "application/json"}, {"verdict-source", source}}, id);
        !s.ok()) {
      return s;
    }
  }
  if (dead_letter) {
    std::vector<std::pair<std::string, std::string>> headers{
        {"verdict-error", outcome.dead_letter_error}, {"verdict-source", source}};
    if (!message.content_type.empty()) headers.emplace_back("content-type", message.content_type);
    return Produce(options_.dead_letter, message.key, message.payload, headers, id);
  }
  return Status::Ok();
}

void KafkaTransport::OnDelivery(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
  auto* self = static_cast<KafkaTransport*>(opaque);
  const auto id = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(message->_private));
  if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // librdkafka retried until message.timeout.ms: read the input again from the last commit.
    self->delivery_error_ = rd_kafka_err2str(message->err);
    return;
  }
  auto it = self->unconfirmed_.find(id);
  if (it == self->unconfirmed_.end()) return;
  KafkaPublished::Output output{rd_kafka_topic_name(message->rkt), message->partition,
                                message->offset, ""};
  if (message->key != nullptr) {
    output.key.assign(static_cast<const char*>(message->key), message->key_len);
  }
  self->published_.Add(it->second.partition, it->second.offset, std::move(output));
  if (--it->second.outputs == 0) {
    self->confirmed_.push_back(id);
    self->unconfirmed_.erase(it);
  }
}

Status KafkaTransport::Poll(std::vector<uint64_t>* confirmed) {
  rd_kafka_poll(producer_, 0);
  if (!delivery_error_.empty()) return Unavailable("kafka delivery failed: " + delivery_error_);
  confirmed->insert(confirmed->end(), confirmed_.begin(), confirmed_.end());
  confirmed_.clear();
  if (commit_due_ && SteadyNs() - last_commit_ns_ >= kCommitEveryNs) {
    return CommitOffsets(/*wait=*/false);
  }
  return Status::Ok();
}

Status KafkaTransport::Commit(const InputMessage& message) {
  Partition* partition = Owned(message);
  if (partition == nullptr) return Status::Ok();  // revoked: not this consumer's to commit
  partition->outstanding.erase(static_cast<int64_t>(message.position));
  commit_due_ = true;
  return Status::Ok();
}

Status KafkaTransport::CommitOffsets(bool wait) {
  commit_due_ = false;
  last_commit_ns_ = SteadyNs();
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
  bool advanced = false;
  for (auto& [p, partition] : partitions_) {
    if (partition.next_offset < 0) continue;
    // Everything before the oldest offset still outstanding is done.
    const int64_t frontier =
        partition.outstanding.empty() ? partition.next_offset : *partition.outstanding.begin();
    advanced = advanced || frontier > partition.committed;
    partition.committed = std::max(partition.committed, frontier);
    published_.Committed(p, partition.committed);
    // Every partition read, advanced or not, so that each commit's cursor is current.
    rd_kafka_topic_partition_list_add(offsets, options_.topic.c_str(), p)->offset =
        partition.committed;
  }
  if (!advanced) {
    rd_kafka_topic_partition_list_destroy(offsets);
    return Status::Ok();
  }
  const std::string cursor = EncodeOutputCursor(published_.Cursor());
  for (int i = 0; i < offsets->cnt; ++i) {
    // The list frees its metadata with free().
    void* metadata = std::malloc(cursor.size());
    if (metadata == nullptr) break;
    std::memcpy(metadata, cursor.data(), cursor.size());
    offsets->elems[i].metadata = metadata;
    offsets->elems[i].metadata_size = cursor.size();
  }
  rd_kafka_resp_err_t err = rd_kafka_commit(consumer_, offsets, wait ? 0 : 1);
  rd_kafka_topic_partition_list_destroy(offsets);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // Not lost: a later commit covers these offsets, or the messages are read again.
    spdlog::warn("ingest kafka:{}: offset commit: {}", options_.topic, rd_kafka_err2str(err));
  }
  return Status::Ok();
}

std::optional<int64_t> KafkaTransport::Lag() {
  if (consumer_ == nullptr) return std::nullopt;
  int64_t lag = 0;
  for (auto& [p, partition] : partitions_) {
    int64_t low = 0;
    int64_t high = 0;
    if (rd_kafka_get_watermark_offsets(consumer_, options_.topic.c_str(), p, &low, &high) !=
            RD_KAFKA_RESP_ERR_NO_ERROR ||
        high < 0) {
      return std::nullopt;
    }
    int64_t done =
        partition.outstanding.empty() ? partition.next_offset : *partition.outstanding.begin();
    if (done < 0) done = low;
    lag += std::max<int64_t>(0, high - done);
  }
  return lag;
}

void KafkaTransport::Close() {
  if (consumer_ != nullptr) {
    if (producer_ != nullptr) rd_kafka_flush(producer_, kCloseTimeoutMs);
    if (producer_ != nullptr) rd_kafka_poll(producer_, 0);
    if (delivery_error_.empty()) (void)CommitOffsets(/*wait=*/true);
    rd_kafka_consumer_close(consumer_);
    rd_kafka_destroy(consumer_);
    consumer_ = nullptr;
  }
  if (producer_ != nullptr) {
    rd_kafka_destroy(producer_);
    producer_ = nullptr;
  }
  partitions_.clear();
  unconfirmed_.clear();
  published_.Clear();
  confirmed_.clear();
  delivery_error_.clear();
  rebalance_error_.clear();
  commit_due_ = false;
}

}  // namespace verdict::ingest
