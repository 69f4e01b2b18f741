#include "ingest/kafka_published.h"

#include <algorithm>
#include <charconv>
#include <chrono>

namespace verdict::ingest {
namespace {

constexpr std::string_view kCursorPrefix = "verdict-out:v1 ";

template <typename Int>
bool ParseInt(std::string_view text, Int* value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && end == text.data() + text.size();
}

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}

}  // namespace

std::string EncodeOutputCursor(const OutputCursor& cursor) {
  std::string out(kCursorPrefix);
  bool first = true;
  for (const auto& [partition, offset] : cursor) {
    if (!first) out += ';';
    first = false;
    out += partition.first + "/" + std::to_string(partition.second) + "=" + std::to_string(offset);
  }
  return out;
}

std::optional<OutputCursor> DecodeOutputCursor(std::string_view metadata) {
  if (metadata.substr(0, kCursorPrefix.size()) != kCursorPrefix) return std::nullopt;
  metadata.remove_prefix(kCursorPrefix.size());
  OutputCursor cursor;
  while (!metadata.empty()) {
    const size_t end = std::min(metadata.find(';'), metadata.size());
    std::string_view item = metadata.substr(0, end);
    metadata.remove_prefix(std::min(end + 1, metadata.size()));
    const size_t slash = item.rfind('/');
    const size_t equals = item.rfind('=');
    if (slash == std::string_view::npos || equals == std::string_view::npos || slash == 0 ||
        equals < slash) {
      return std::nullopt;
    }
    int32_t partition = 0;
    int64_t offset = 0;
    if (!ParseInt(item.substr(slash + 1, equals - slash - 1), &partition) ||
        !ParseInt(item.substr(equals + 1), &offset) || partition < 0 || offset < 0) {
      return std::nullopt;
    }
    cursor[{std::string(item.substr(0, slash)), partition}] = offset;
  }
  return cursor;
}

std::string SourceHeader(const std::string& topic, int32_t partition, int64_t offset) {
  return topic + "/" + std::to_string(partition) + "/" + std::to_string(offset);
}

std::optional<std::pair<int32_t, int64_t>> ParseSourceHeader(std::string_view value,
                                                             std::string_view topic) {
  if (value.size() <= topic.size() + 1 || value.substr(0, topic.size()) != topic ||
      value[topic.size()] != '/') {
    return std::nullopt;
  }
  value.remove_prefix(topic.size() + 1);
  const size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  int32_t partition = 0;
  int64_t offset = 0;
  if (!ParseInt(value.substr(0, slash), &partition) ||
      !ParseInt(value.substr(slash + 1), &offset)) {
    return std::nullopt;
  }
  return std::make_pair(partition, offset);
}

void KafkaPublished::Add(int32_t input_partition, int64_t input_offset, Output output) {
  Landed({output.topic, output.partition}, output.offset + 1);
  by_input_[{input_partition, input_offset}].push_back(std::move(output));
}

bool KafkaPublished::Has(int32_t input_partition, int64_t input_offset, const std::string& topic,
                         const std::string& key, bool any_key) const {
  auto it = by_input_.find({input_partition, input_offset});
  if (it == by_input_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const Output& o) {
    return o.topic == topic && (any_key || o.key == key);
  });
}

void KafkaPublished::Committed(int32_t partition, int64_t frontier) {
  by_input_.erase(by_input_.lower_bound({partition, INT64_MIN}),
                  by_input_.lower_bound({partition, frontier}));
}

void KafkaPublished::Landed(const OutputPartition& out, int64_t offset) {
  int64_t& next = next_[out];
  next = std::max(next, offset);
}

OutputCursor KafkaPublished::Cursor() const {
  OutputCursor cursor = next_;
  for (const auto& [input, outputs] : by_input_) {
    for (const Output& o : outputs) {
      auto [it, added] = cursor.emplace(OutputPartition{o.topic, o.partition}, o.offset);
      if (!added) it->second = std::min(it->second, o.offset);
    }
  }
  return cursor;
}

void KafkaPublished::RetainInputs(const std::set<int32_t>& partitions) {
  for (auto it = by_input_.begin(); it != by_input_.end();) {
    it = partitions.count(it->first.first) != 0 ? std::next(it) : by_input_.erase(it);
  }
}

void KafkaPublished::Clear() {
  by_input_.clear();
  next_.clear();
}

Status ScanPublished(const std::string& brokers, const std::string& input_topic,
                     const OutputCursor& from, int timeout_ms, KafkaPublished* published) {
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [name, value] :
       std::vector<std::pair<const char*, const char*>>{{"bootstrap.servers", brokers.c_str()},
                                                        {"group.id", "verdict-output-scan"},
                                                        {"client.id", "verdict-ingest-scan"},
                                                        {"enable.auto.commit", "false"},
                                                        {"enable.partition.eof", "false"}}) {
    if (rd_kafka_conf_set(conf, name, value, error, sizeof(error)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return InvalidArgument(std::string("kafka ") + name + ": " + error, name);
    }
  }
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof(error));
  if (consumer == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Unavailable(std::string("kafka output scan: ") + error);
  }
  const int64_t deadline = SteadyMs() + timeout_ms;
  // Per output partition: the end to read to.
  std::map<OutputPartition, int64_t> ends;
  Status status = Status::Ok();
  for (const auto& [out, offset] : from) {
    int64_t low = 0;
    int64_t high = 0;
    rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(
        consumer, out.first.c_str(), out.second, &low, &high,
        static_cast<int>(std::max<int64_t>(1, deadline - SteadyMs())));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      status = Unavailable("kafka watermarks of " + out.first + ": " + rd_kafka_err2str(err));
      break;
    }
    published->Landed(out, high);
    if (std::max(offset, low) < high) ends[out] = high;
  }
  rd_kafka_topic_partition_list_t* assignment = rd_kafka_topic_partition_list_new(1);
  for (const auto& [out, end] : ends) {
    rd_kafka_topic_partition_list_add(assignment, out.first.c_str(), out.second)->offset =
        std::max<int64_t>(from.at(out), 0);
  }
  if (status.ok() && !ends.empty()) {
    if (rd_kafka_resp_err_t err = rd_kafka_assign(consumer, assignment);
        err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      status = Unavailable(std::string("kafka output scan assign: ") + rd_kafka_err2str(err));
    }
  }
  rd_kafka_topic_partition_list_destroy(assignment);
  while (status.ok() && !ends.empty()) {
    if (SteadyMs() > deadline) {
      status = Unavailable("kafka output scan: the outputs were not read in time");
      break;
    }
    rd_kafka_message_t* message = rd_kafka_consumer_poll(consumer, 100);
    if (message == nullptr) continue;
    if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_message_destroy(message);
      continue;  // transient; librdkafka retries (the deadline bounds it)
    }
    const OutputPartition out{rd_kafka_topic_name(message->rkt), message->partition};
    rd_kafka_headers_t* headers = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    if (rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR &&
        rd_kafka_header_get_last(headers, "verdict-source", &value, &size) ==
            RD_KAFKA_RESP_ERR_NO_ERROR &&
        value != nullptr) {
      if (auto source = ParseSourceHeader(std::string_view(static_cast<const char*>(value), size),
                                          input_topic)) {
        KafkaPublished::Output output{out.first, out.second, message->offset, ""};
        if (message->key != nullptr) {
          output.key.assign(static_cast<const char*>(message->key), message->key_len);
        }
        published->Add(source->first, source->second, std::move(output));
      }
    }
    auto end = ends.find(out);
    if (end != ends.end() && message->offset + 1 >= end->second) ends.erase(end);
    rd_kafka_message_destroy(message);
  }
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  return status;
}

}  // namespace verdict::ingest
