#include "ingest/amqp_transport.h"

#include <amqp_tcp_socket.h>
#include <spdlog/spdlog.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>

namespace verdict::ingest {
namespace {

constexpr amqp_channel_t kChannel = 1;
// The publisher's second channel, for the queue-depth query of Lag (its reply must not wait
// behind confirmations on the first).
constexpr amqp_channel_t kQueryChannel = 2;
constexpr int kConnectTimeoutSeconds = 5;
// The record keeps this many engine windows of messages (RabbitMQ delivers again at most the
// prefetch count of unacknowledged messages, kPrefetchWindows of them), never fewer than
// kMinRecorded.
constexpr size_t kRecordedWindows = 4;
// The prefetch count, in engine windows (max_in_flight).
constexpr size_t kPrefetchWindows = 2;
constexpr size_t kMinRecorded = 256;
// Confirmed messages wait for one fsync of the record together: until half the prefetch window
// has been confirmed, or the oldest has waited this long.
constexpr auto kRecordGroupWait = std::chrono::milliseconds(2);

Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}

amqp_bytes_t Bytes(const std::string& s) {
  return amqp_bytes_t{s.size(), const_cast<char*>(s.data())};
}

std::string ReplyText(const amqp_rpc_reply_t& reply) {
  switch (reply.reply_type) {
    case AMQP_RESPONSE_NORMAL:
      return "ok";
    case AMQP_RESPONSE_NONE:
      return "no reply";
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
      return amqp_error_string2(reply.library_error);
    case AMQP_RESPONSE_SERVER_EXCEPTION:
      if (reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
        auto* m = static_cast<amqp_connection_close_t*>(reply.reply.decoded);
        return "connection closed by the broker: " +
               std::string(static_cast<char*>(m->reply_text.bytes), m->reply_text.len);
      }
      if (reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        auto* m = static_cast<amqp_channel_close_t*>(reply.reply.decoded);
        return "channel closed by the broker: " +
               std::string(static_cast<char*>(m->reply_text.bytes), m->reply_text.len);
      }
      return "broker error";
  }
  return "unknown reply";
}

Status Check(amqp_connection_state_t conn, const char* what) {
  amqp_rpc_reply_t reply = amqp_get_rpc_reply(conn);
  if (reply.reply_type == AMQP_RESPONSE_NORMAL) return Status::Ok();
  return Unavailable(std::string("amqp ") + what + ": " + ReplyText(reply));
}

void CloseConnection(amqp_connection_state_t& conn) {
  if (conn == nullptr) return;
  amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
  amqp_destroy_connection(conn);
  conn = nullptr;
}

// A logged-in connection with channel 1 open, or why not.
Result<amqp_connection_state_t> Open(const std::string& url) {
  std::string parsed_url = url;  // amqp_parse_url writes into its argument
  amqp_connection_info info;
  if (amqp_parse_url(parsed_url.data(), &info) != AMQP_STATUS_OK) {
    return InvalidArgument("amqp url is not amqp://user:password@host:port/vhost", "url");
  }
  // "amqp://host/" parses as the empty vhost, which RabbitMQ never has: the default one ("/",
  // "%2F" in a URL) is meant.
  if (info.vhost == nullptr || info.vhost[0] == '\0') info.vhost = const_cast<char*>("/");
  amqp_connection_state_t conn = amqp_new_connection();
  amqp_socket_t* socket = amqp_tcp_socket_new(conn);
  timeval timeout{kConnectTimeoutSeconds, 0};
  if (socket == nullptr ||
      amqp_socket_open_noblock(socket, info.host, info.port, &timeout) != AMQP_STATUS_OK) {
    amqp_destroy_connection(conn);
    return Unavailable("amqp: cannot connect to " + std::string(info.host) + ":" +
                       std::to_string(info.port));
  }
  amqp_rpc_reply_t login =
      amqp_login(conn, info.vhost, 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, info.user, info.password);
  if (login.reply_type != AMQP_RESPONSE_NORMAL) {
    amqp_destroy_connection(conn);
    return Unavailable("amqp login: " + ReplyText(login));
  }
  amqp_channel_open(conn, kChannel);
  if (Status s = Check(conn, "channel.open"); !s.ok()) {
    amqp_destroy_connection(conn);
    return s;
  }
  return conn;
}

}  // namespace

AmqpTransport::AmqpTransport(const IngestOptions& options, std::string record_path)
    : options_(options), record_path_(std::move(record_path)) {}

AmqpTransport::~AmqpTransport() { Close(); }

Status AmqpTransport::Connect() {
  Close();
  if (record_ == nullptr) {
    Result<std::unique_ptr<PublishedLog>> record = PublishedLog::Open(
        record_path_, std::max(kMinRecorded, kRecordedWindows * options_.max_in_flight));
    if (!record.ok()) return record.status();
    record_ = std::move(*record);
  }
  Result<amqp_connection_state_t> consumer = Open(options_.url);
  if (!consumer.ok()) return consumer.status();
  consumer_ = *consumer;
  Result<amqp_connection_state_t> publisher = Open(options_.url);
  if (!publisher.ok()) {
    Close();
    return publisher.status();
  }
  publisher_ = *publisher;
  amqp_queue_declare(consumer_, kChannel, Bytes(options_.queue), 0, 1, 0, 0, amqp_empty_table);
  VERDICT_RETURN_IF_ERROR(Check(consumer_, ("queue.declare " + options_.queue).c_str()));
  amqp_queue_declare(publisher_, kChannel, Bytes(options_.dead_letter), 0, 1, 0, 0,
                     amqp_empty_table);
  VERDICT_RETURN_IF_ERROR(Check(publisher_, ("queue.declare " + options_.dead_letter).c_str()));
  amqp_exchange_declare(publisher_, kChannel, Bytes(options_.decisions_exchange),
                        amqp_cstring_bytes("topic"), 0, 1, 0, 0, amqp_empty_table);
  VERDICT_RETURN_IF_ERROR(
      Check(publisher_, ("exchange.declare " + options_.decisions_exchange).c_str()));
  amqp_confirm_select(publisher_, kChannel);
  VERDICT_RETURN_IF_ERROR(Check(publisher_, "confirm.select"));
  amqp_channel_open(publisher_, kQueryChannel);
  VERDICT_RETURN_IF_ERROR(Check(publisher_, "channel.open"));
  // Acknowledgements cover only the prefix of deliveries done, so a slow message holds back
  // those after it: the broker may have twice the engine's window unacknowledged, so that it
  // keeps delivering meanwhile (the runner still has at most max_in_flight in the engine).
  amqp_basic_qos(
      consumer_, kChannel, 0,
      static_cast<uint16_t>(std::min<size_t>(kPrefetchWindows * options_.max_in_flight, 65535)), 0);
  VERDICT_RETURN_IF_ERROR(Check(consumer_, "basic.qos"));
  amqp_basic_consume(consumer_, kChannel, Bytes(options_.queue), amqp_empty_bytes, 0, 0, 0,
                     amqp_empty_table);
  return Check(consumer_, "basic.consume");
}

Result<std::optional<InputMessage>> AmqpTransport::Next(int timeout_ms) {
  amqp_maybe_release_buffers(consumer_);
  amqp_envelope_t envelope;
  timeval timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  amqp_rpc_reply_t reply = amqp_consume_message(consumer_, &envelope, &timeout, 0);
  if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
      reply.library_error == AMQP_STATUS_TIMEOUT) {
    return std::optional<InputMessage>();
  }
  if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
      reply.library_error == AMQP_STATUS_UNEXPECTED_STATE) {
    // A frame other than a delivery: the broker closing the channel or the connection (e.g.
    // the queue deleted) or cancelling the consumer; anything else is ignored.
    amqp_frame_t frame;
    if (amqp_simple_wait_frame(consumer_, &frame) != AMQP_STATUS_OK) {
      return Unavailable("amqp: connection lost");
    }
    if (frame.frame_type == AMQP_FRAME_METHOD &&
        (frame.payload.method.id == AMQP_CHANNEL_CLOSE_METHOD ||
         frame.payload.method.id == AMQP_CONNECTION_CLOSE_METHOD ||
         frame.payload.method.id == AMQP_BASIC_CANCEL_METHOD)) {
      return Unavailable("amqp: the broker closed the consumer");
    }
    return std::optional<InputMessage>();
  }
  if (reply.reply_type != AMQP_RESPONSE_NORMAL) {
    return Unavailable("amqp consume: " + ReplyText(reply));
  }
  InputMessage in;
  in.payload.assign(static_cast<const char*>(envelope.message.body.bytes),
                    envelope.message.body.len);
  const amqp_basic_properties_t& props = envelope.message.properties;
  if ((props._flags & AMQP_BASIC_CONTENT_TYPE_FLAG) != 0) {
    in.content_type.assign(static_cast<const char*>(props.content_type.bytes),
                           props.content_type.len);
  }
  if ((props._flags & AMQP_BASIC_MESSAGE_ID_FLAG) != 0) {
    in.key.assign(static_cast<const char*>(props.message_id.bytes), props.message_id.len);
  }
  if ((props._flags & AMQP_BASIC_HEADERS_FLAG) != 0) {
    // The trace context as the usual AMQP propagators send it: string headers.
    for (int i = 0; i < props.headers.num_entries; ++i) {
      const amqp_table_entry_t& entry = props.headers.entries[i];
      if (entry.value.kind != AMQP_FIELD_KIND_UTF8 && entry.value.kind != AMQP_FIELD_KIND_BYTES) {
        continue;
      }
      const std::string_view key(static_cast<const char*>(entry.key.bytes), entry.key.len);
      const std::string value(static_cast<const char*>(entry.value.value.bytes.bytes),
                              entry.value.value.bytes.len);
      if (key == "traceparent") in.traceparent = value;
      if (key == "tracestate") in.tracestate = value;
    }
  }
  in.position = envelope.delivery_tag;
  amqp_destroy_envelope(&envelope);
  undone_tags_.insert(in.position);
  last_tag_ = std::max(last_tag_, in.position);
  return std::optional<InputMessage>(std::move(in));
}

Status AmqpTransport::PublishOne(const std::string& exchange, const std::string& routing_key,
                                 const std::string& body, const std::string& content_type,
                                 const std::string& message_id, const std::string& error_header,
                                 uint64_t id) {
  amqp_basic_properties_t props{};
  props._flags = AMQP_BASIC_DELIVERY_MODE_FLAG;
  props.delivery_mode = 2;  // persistent
  if (!message_id.empty()) {
    props._flags |= AMQP_BASIC_MESSAGE_ID_FLAG;
    props.message_id = Bytes(message_id);
  }
  if (!content_type.empty()) {
    props._flags |= AMQP_BASIC_CONTENT_TYPE_FLAG;
    props.content_type = Bytes(content_type);
  }
  amqp_table_entry_t header;
  if (!error_header.empty()) {
    header.key = amqp_cstring_bytes("x-verdict-error");
    header.value.kind = AMQP_FIELD_KIND_UTF8;
    header.value.value.bytes = Bytes(error_header);
    props._flags |= AMQP_BASIC_HEADERS_FLAG;
    props.headers.num_entries = 1;
    props.headers.entries = &header;
  }
  const int status = amqp_basic_publish(publisher_, kChannel, Bytes(exchange), Bytes(routing_key),
                                        0, 0, &props, Bytes(body));
  if (status != AMQP_STATUS_OK) {
    return Unavailable(std::string("amqp publish: ") + amqp_error_string2(status));
  }
  sequence_to_id_[next_sequence_++] = id;
  return Status::Ok();
}

Status AmqpTransport::Publish(uint64_t id, const InputMessage& message,
                              const MessageOutcome& outcome) {
  // Every output's key is recorded again once confirmed (an output in the record stays there
  // while its message may be delivered again); those already in it are not published again.
  std::vector<uint64_t>& keys = keys_[id];
  size_t outputs = 0;
  std::vector<const std::pair<std::string, std::string>*> decisions;
  for (const auto& decision : outcome.decisions) {
    keys.push_back(PublishedLog::DecisionKey(decision.first));
    if (record_->Has(keys.back())) continue;
    decisions.push_back(&decision);
  }
  bool dead_letter = false;
  if (!outcome.dead_letter_error.empty()) {
    keys.push_back(PublishedLog::DeadLetterKey(message.payload));
    dead_letter = !record_->Has(keys.back());
  }
  outputs = decisions.size() + (dead_letter ? 1 : 0);
  not_republished_ += keys.size() - outputs;
  if (outputs == 0) {
    confirmed_.push_back(id);
    return Status::Ok();
  }
  unconfirmed_[id] = outputs;
  for (const auto* decision : decisions) {
    VERDICT_RETURN_IF_ERROR(PublishOne(options_.decisions_exchange, decision->first,
                                       decision->second, "application/json", decision->first, "",
                                       id));
  }
  if (dead_letter) {
    // Through the default exchange, straight to the dead-letter queue, as received.
    VERDICT_RETURN_IF_ERROR(PublishOne("", options_.dead_letter, message.payload,
                                       message.content_type, "", outcome.dead_letter_error, id));
  }
  return Status::Ok();
}

void AmqpTransport::Confirm(uint64_t sequence, bool multiple) {
  auto end = sequence_to_id_.upper_bound(sequence);
  auto begin = multiple ? sequence_to_id_.begin() : sequence_to_id_.find(sequence);
  if (begin == sequence_to_id_.end()) return;
  for (auto it = begin; it != end; ++it) {
    auto message = unconfirmed_.find(it->second);
    if (message != unconfirmed_.end() && --message->second == 0) {
      confirmed_.push_back(it->second);
      unconfirmed_.erase(message);
    }
  }
  sequence_to_id_.erase(begin, end);
}

Status AmqpTransport::Poll(std::vector<uint64_t>* confirmed) {
  VERDICT_RETURN_IF_ERROR(AckDone());
  for (;;) {
    amqp_frame_t frame;
    timeval no_wait{0, 0};
    const int status = amqp_simple_wait_frame_noblock(publisher_, &frame, &no_wait);
    if (status == AMQP_STATUS_TIMEOUT) break;
    if (status != AMQP_STATUS_OK) {
      return Unavailable(std::string("amqp publisher: ") + amqp_error_string2(status));
    }
    if (frame.frame_type != AMQP_FRAME_METHOD) continue;
    switch (frame.payload.method.id) {
      case AMQP_BASIC_ACK_METHOD: {
        auto* ack = static_cast<amqp_basic_ack_t*>(frame.payload.method.decoded);
        Confirm(ack->delivery_tag, ack->multiple != 0);
        break;
      }
      case AMQP_BASIC_NACK_METHOD:
        // The broker could not take a publication: read the input again from the broker.
        return Unavailable("amqp: the broker refused a publication (basic.nack)");
      case AMQP_CHANNEL_CLOSE_METHOD:
      case AMQP_CONNECTION_CLOSE_METHOD:
        return Unavailable("amqp: the broker closed the publisher");
      default:
        break;
    }
  }
  if (confirmed_.empty()) return Status::Ok();
  const auto now = std::chrono::steady_clock::now();
  if (unrecorded_since_ == std::chrono::steady_clock::time_point()) unrecorded_since_ = now;
  if (confirmed_.size() < std::max<size_t>(1, options_.max_in_flight / 2) &&
      now - unrecorded_since_ < kRecordGroupWait) {
    return Status::Ok();
  }
  // Recorded durably before the runner may have them acknowledged.
  for (uint64_t id : confirmed_) {
    auto it = keys_.find(id);
    if (it == keys_.end()) continue;
    record_->Add(it->second);
    keys_.erase(it);
  }
  VERDICT_RETURN_IF_ERROR(record_->Sync());
  unrecorded_since_ = {};
  confirmed->insert(confirmed->end(), confirmed_.begin(), confirmed_.end());
  confirmed_.clear();
  return Status::Ok();
}

Status AmqpTransport::Commit(const InputMessage& message) {
  undone_tags_.erase(message.position);
  return Status::Ok();
}

Status AmqpTransport::AckDone() {
  const uint64_t done = undone_tags_.empty() ? last_tag_ : *undone_tags_.begin() - 1;
  if (done <= acked_tag_ || consumer_ == nullptr) return Status::Ok();
  const int status = amqp_basic_ack(consumer_, kChannel, done, /*multiple=*/1);
  if (status != AMQP_STATUS_OK) {
    return Unavailable(std::string("amqp basic.ack: ") + amqp_error_string2(status));
  }
  acked_tag_ = done;
  return Status::Ok();
}

std::optional<int64_t> AmqpTransport::Lag() {
  if (publisher_ == nullptr) return std::nullopt;
  // A passive declare answers with the queue's ready messages; those delivered and not yet
  // acknowledged are ours.
  amqp_queue_declare_ok_t* ok = amqp_queue_declare(publisher_, kQueryChannel, Bytes(options_.queue),
                                                   1, 0, 0, 0, amqp_empty_table);
  if (ok == nullptr) return std::nullopt;
  return static_cast<int64_t>(ok->message_count) + static_cast<int64_t>(last_tag_ - acked_tag_);
}

void AmqpTransport::Close() {
  (void)AckDone();  // what is done (recorded, confirmed) need not be delivered again
  CloseConnection(consumer_);
  CloseConnection(publisher_);
  next_sequence_ = 1;
  sequence_to_id_.clear();
  unconfirmed_.clear();
  confirmed_.clear();
  keys_.clear();
  unrecorded_since_ = {};
  undone_tags_.clear();
  last_tag_ = 0;
  acked_tag_ = 0;
}

}  // namespace verdict::ingest
