#include "ingest/ingest_options.h"

#include <toml++/toml.h>

#include <fstream>
#include <set>
#include <sstream>

namespace verdict::ingest {
namespace {

// Tenant names as API keys allow them (security/api_key.h): [A-Za-z0-9._-], 1..64.
bool ValidTenant(std::string_view tenant) {
  if (tenant.empty() || tenant.size() > 64) return false;
  for (char c : tenant) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// One [[ingest]] table; `prefix` is "ingest[N]." for messages.
class StreamTable {
 public:
  StreamTable(const toml::table& table, std::string prefix)
      : table_(table), prefix_(std::move(prefix)) {}

  std::string Name(std::string_view key) const { return prefix_ + std::string(key); }

  Status String(std::string_view key, std::string* out) {
    taken_.insert(std::string(key));
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    if (!node->is_string()) return InvalidArgument(Name(key) + " must be a string", Name(key));
    *out = *node->value<std::string>();
    if (out->empty()) return InvalidArgument(Name(key) + " must not be empty", Name(key));
    return Status::Ok();
  }

  Status Integer(std::string_view key, size_t* out, int64_t min, int64_t max) {
    taken_.insert(std::string(key));
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    auto value = node->value<int64_t>();
    if (!node->is_integer() || !value || *value < min || *value > max) {
      return InvalidArgument(Name(key) + " must be an integer between " + std::to_string(min) +
                                 " and " + std::to_string(max),
                             Name(key));
    }
    *out = static_cast<size_t>(*value);
    return Status::Ok();
  }

  bool Has(std::string_view key) const { return table_.contains(key); }

  Status Require(std::string_view key, const std::string& value, std::string_view kind) const {
    if (!value.empty()) return Status::Ok();
    return InvalidArgument(Name(key) + " is required for kind = \"" + std::string(kind) + "\"",
                           Name(key));
  }

  // A key of the other kind ("queue" under kafka) is a mistake, not something to ignore.
  Status Forbid(std::string_view key, std::string_view kind) const {
    if (!Has(key)) return Status::Ok();
    return InvalidArgument(Name(key) + " does not apply to kind = \"" + std::string(kind) + "\"",
                           Name(key));
  }

  Status RejectUnknown() const {
    for (const auto& [key, node] : table_) {
      if (taken_.count(std::string(key.str())) == 0) {
        return InvalidArgument("unknown configuration key '" + Name(key.str()) + "'",
                               Name(key.str()));
      }
    }
    return Status::Ok();
  }

 private:
  const toml::table& table_;
  std::string prefix_;
  std::set<std::string> taken_;
};

Result<IngestOptions> ReadStream(const toml::table& table, size_t index) {
  StreamTable t(table, "ingest[" + std::to_string(index) + "].");
  IngestOptions o;
  std::string kind;
  VERDICT_RETURN_IF_ERROR(t.String("kind", &kind));
  if (kind == "kafka") {
    o.kind = StreamKind::kKafka;
  } else if (kind == "amqp") {
    o.kind = StreamKind::kAmqp;
  } else {
    return InvalidArgument(t.Name("kind") + " must be \"kafka\" or \"amqp\"", t.Name("kind"));
  }
  VERDICT_RETURN_IF_ERROR(t.String("brokers", &o.brokers));
  VERDICT_RETURN_IF_ERROR(t.String("url", &o.url));
  VERDICT_RETURN_IF_ERROR(t.String("topic", &o.topic));
  VERDICT_RETURN_IF_ERROR(t.String("queue", &o.queue));
  VERDICT_RETURN_IF_ERROR(t.String("decisions_topic", &o.decisions_topic));
  VERDICT_RETURN_IF_ERROR(t.String("decisions_exchange", &o.decisions_exchange));
  VERDICT_RETURN_IF_ERROR(t.String("dead_letter", &o.dead_letter));
  VERDICT_RETURN_IF_ERROR(t.String("tenant", &o.tenant));
  VERDICT_RETURN_IF_ERROR(t.String("group", &o.group));
  VERDICT_RETURN_IF_ERROR(t.Integer("max_in_flight", &o.max_in_flight, 1, 10'000));
  VERDICT_RETURN_IF_ERROR(t.Integer("session_timeout_ms", &o.session_timeout_ms, 1'000, 3'600'000));
  std::string priority = "standard";
  VERDICT_RETURN_IF_ERROR(t.String("priority", &priority));
  if (priority == "realtime") {
    o.priority = Priority::kRealtime;
  } else if (priority == "standard") {
    o.priority = Priority::kStandard;
  } else if (priority == "bulk") {
    o.priority = Priority::kBulk;
  } else {
    return InvalidArgument(t.Name("priority") + " must be \"realtime\", \"standard\" or \"bulk\"",
                           t.Name("priority"));
  }
  if (!ValidTenant(o.tenant)) {
    return InvalidArgument(t.Name("tenant") + " must be 1 to 64 of [A-Za-z0-9._-]",
                           t.Name("tenant"));
  }
  VERDICT_RETURN_IF_ERROR(t.RejectUnknown());
  if (o.kind == StreamKind::kKafka) {
    VERDICT_RETURN_IF_ERROR(t.Require("brokers", o.brokers, kind));
    VERDICT_RETURN_IF_ERROR(t.Require("topic", o.topic, kind));
    VERDICT_RETURN_IF_ERROR(t.Require("decisions_topic", o.decisions_topic, kind));
    for (const char* key : {"url", "queue", "decisions_exchange"}) {
      VERDICT_RETURN_IF_ERROR(t.Forbid(key, kind));
    }
  } else {
    VERDICT_RETURN_IF_ERROR(t.Require("url", o.url, kind));
    VERDICT_RETURN_IF_ERROR(t.Require("queue", o.queue, kind));
    VERDICT_RETURN_IF_ERROR(t.Require("decisions_exchange", o.decisions_exchange, kind));
    for (const char* key : {"brokers", "topic", "decisions_topic", "group", "session_timeout_ms"}) {
      VERDICT_RETURN_IF_ERROR(t.Forbid(key, kind));
    }
    if (o.url.rfind("amqp://", 0) != 0) {
      return InvalidArgument(t.Name("url") + " must start with amqp://", t.Name("url"));
    }
  }
  VERDICT_RETURN_IF_ERROR(t.Require("dead_letter", o.dead_letter, kind));
  const std::string& input = o.kind == StreamKind::kKafka ? o.topic : o.queue;
  const std::string& output =
      o.kind == StreamKind::kKafka ? o.decisions_topic : o.decisions_exchange;
  if (o.dead_letter == input || output == input) {
    return InvalidArgument(
        t.Name("dead_letter") + ": the dead letter and the decisions must not go to the input",
        t.Name("dead_letter"));
  }
  return o;
}

Status WithSource(const Status& status, std::string_view source) {
  return Status(status.code(), std::string(source) + ": " + status.message(), status.field());
}

}  // namespace

std::string IngestOptions::Name() const {
  return kind == StreamKind::kKafka ? "kafka:" + topic : "amqp:" + queue;
}

Result<std::vector<IngestOptions>> ParseIngestOptions(std::string_view toml_text,
                                                      std::string_view source) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    return InvalidArgument(std::string(source) + ":" + std::to_string(begin.line) + ":" +
                           std::to_string(begin.column) + ": " + std::string(e.description()));
  }
  std::vector<IngestOptions> streams;
  const toml::node* node = root.get("ingest");
  if (node == nullptr) return streams;
  const toml::array* tables = node->as_array();
  if (tables == nullptr) {
    return WithSource(InvalidArgument("ingest must be an array of tables ([[ingest]])", "ingest"),
                      source);
  }
  std::set<std::string> names;
  for (size_t i = 0; i < tables->size(); ++i) {
    const toml::table* table = tables->get(i)->as_table();
    const std::string name = "ingest[" + std::to_string(i) + "]";
    if (table == nullptr) {
      return WithSource(InvalidArgument(name + " must be a table", name), source);
    }
    Result<IngestOptions> stream = ReadStream(*table, i);
    if (!stream.ok()) return WithSource(stream.status(), source);
    if (!names.insert(stream->Name()).second) {
      return WithSource(InvalidArgument(name + ": " + stream->Name() + " is consumed twice", name),
                        source);
    }
    streams.push_back(std::move(stream).value());
  }
  return streams;
}

Result<std::vector<IngestOptions>> LoadIngestOptions(const std::string& path) {
  if (path.empty()) return std::vector<IngestOptions>{};
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot read configuration file '" + path + "'", "--config");
  std::stringstream text;
  text << in.rdbuf();
  return ParseIngestOptions(text.str(), path);
}

}  // namespace verdict::ingest
