#include "cluster/etcd_client.h"

#include <openssl/evp.h>
#include <simdjson.h>

#include <charconv>
#include <string>
#include <utility>

#include "common/json_writer.h"

namespace verdict::cluster {
namespace {

// The first key after every key that starts with `prefix` (etcd's range_end for a prefix).
std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return std::string(1, '\0');  // every key
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

// The gateway writes int64 fields as JSON strings; absent means 0.
Result<int64_t> Int64Field(simdjson::dom::object object, std::string_view name) {
  simdjson::dom::element element;
  if (object[name].get(element) != simdjson::SUCCESS) return int64_t{0};
  std::string_view text;
  if (element.get_string().get(text) == simdjson::SUCCESS) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return value;
  } else if (int64_t value = 0; element.get_int64().get(value) == simdjson::SUCCESS) {
    return value;
  }
  return Internal("etcd: field " + std::string(name) + " is not an integer");
}

Result<std::string> BytesField(simdjson::dom::object object, std::string_view name) {
  std::string_view text;
  if (object[name].get_string().get(text) != simdjson::SUCCESS) return std::string();
  return Base64Decode(text);
}

Result<simdjson::dom::object> ParseObject(simdjson::dom::parser& parser, const std::string& body) {
  simdjson::dom::object object;
  if (parser.parse(body).get_object().get(object) != simdjson::SUCCESS) {
    return Internal("etcd: answer is not a JSON object");
  }
  return object;
}

Result<int64_t> HeaderRevision(simdjson::dom::object object) {
  simdjson::dom::object header;
  if (object["header"].get_object().get(header) != simdjson::SUCCESS) {
    return Internal("etcd: answer has no header");
  }
  return Int64Field(header, "revision");
}

Result<KeyValue> ParseKeyValue(simdjson::dom::object kv) {
  KeyValue out;
  for (auto [name, target] : {std::pair{"key", &out.key}, std::pair{"value", &out.value}}) {
    auto bytes = BytesField(kv, name);
    if (!bytes.ok()) return bytes.status();
    *target = std::move(*bytes);
  }
  for (auto [name, target] :
       {std::pair{"create_revision", &out.create_revision},
        std::pair{"mod_revision", &out.mod_revision}, std::pair{"lease", &out.lease}}) {
    auto number = Int64Field(kv, name);
    if (!number.ok()) return number.status();
    *target = *number;
  }
  return out;
}

void WriteCompare(JsonWriter& w, const Compare& compare) {
  w.BeginObject();
  w.Key("key").String(Base64Encode(compare.key));
  w.Key("result").String("EQUAL");
  switch (compare.target) {
    case Compare::Target::kCreateRevision:
      w.Key("target").String("CREATE");
      w.Key("create_revision").String(std::to_string(compare.revision));
      break;
    case Compare::Target::kModRevision:
      w.Key("target").String("MOD");
      w.Key("mod_revision").String(std::to_string(compare.revision));
      break;
    case Compare::Target::kValue:
      w.Key("target").String("VALUE");
      w.Key("value").String(Base64Encode(compare.value));
      break;
  }
  w.EndObject();
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Internal("etcd: base64 length is not a multiple of 4");
  std::string out(3 * (text.size() / 4), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return Internal("etcd: invalid base64");
  size_t size = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding as zero bytes.
  for (size_t i = text.size(); i > 0 && text[i - 1] == '=' && size > 0; --i) --size;
  out.resize(size);
  return out;
}

Result<std::unique_ptr<EtcdClient>> EtcdClient::Create(std::string_view url,
                                                       std::chrono::milliseconds timeout) {
  auto endpoint = ParseHttpEndpoint(url);
  if (!endpoint.ok()) return endpoint.status();
  return std::unique_ptr<EtcdClient>(new EtcdClient(std::move(*endpoint), timeout));
}

Result<std::string> EtcdClient::Call(std::string_view path, const std::string& body) {
  MutexLock lock(mu_);
  auto answer = http_.PostJson(path, body);
  if (!answer.ok()) return answer.status();
  if (answer->status != 200) {
    return Unavailable("etcd " + std::string(path) + " answered " + std::to_string(answer->status) +
                       ": " + answer->body.substr(0, 200));
  }
  return std::move(answer->body);
}

Result<RangeResult> EtcdClient::Range(std::string_view prefix, bool prefix_match) {
  std::string json;
  JsonWriter w(json);
  w.BeginObject();
  w.Key("key").String(Base64Encode(prefix));
  if (prefix_match) w.Key("range_end").String(Base64Encode(PrefixEnd(prefix)));
  w.EndObject();
  auto body = Call("/v3/kv/range", json);
  if (!body.ok()) return body.status();
  simdjson::dom::parser parser;
  auto object = ParseObject(parser, *body);
  if (!object.ok()) return object.status();
  RangeResult result;
  auto revision = HeaderRevision(*object);
  if (!revision.ok()) return revision.status();
  result.revision = *revision;
  simdjson::dom::array kvs;
  if ((*object)["kvs"].get_array().get(kvs) == simdjson::SUCCESS) {
    for (simdjson::dom::element element : kvs) {
      simdjson::dom::object kv;
      if (element.get_object().get(kv) != simdjson::SUCCESS) {
        return Internal("etcd: kvs entry is not an object");
      }
      auto parsed = ParseKeyValue(kv);
      if (!parsed.ok()) return parsed.status();
      result.kvs.push_back(std::move(*parsed));
    }
  }
  return result;
}

Result<TxnResult> EtcdClient::Txn(const std::vector<Compare>& compares,
                                  const std::vector<PutRequest>& puts) {
  std::string json;
  JsonWriter w(json);
  w.BeginObject();
  w.Key("compare").BeginArray();
  for (const Compare& compare : compares) WriteCompare(w, compare);
  w.EndArray();
  w.Key("success").BeginArray();
  for (const PutRequest& put : puts) {
    w.BeginObject().Key("request_put").BeginObject();
    w.Key("key").String(Base64Encode(put.key));
    w.Key("value").String(Base64Encode(put.value));
    if (put.lease != 0) w.Key("lease").String(std::to_string(put.lease));
    w.EndObject().EndObject();
  }
  w.EndArray();
  w.EndObject();
  auto body = Call("/v3/kv/txn", json);
  if (!body.ok()) return body.status();
  simdjson::dom::parser parser;
  auto object = ParseObject(parser, *body);
  if (!object.ok()) return object.status();
  TxnResult result;
  auto revision = HeaderRevision(*object);
  if (!revision.ok()) return revision.status();
  result.revision = *revision;
  bool succeeded = false;
  if ((*object)["succeeded"].get_bool().get(succeeded) == simdjson::SUCCESS) {
    result.succeeded = succeeded;
  }
  return result;
}

Result<int64_t> EtcdClient::GrantLease(int64_t ttl_seconds) {
  auto body = Call("/v3/lease/grant", "{\"TTL\":\"" + std::to_string(ttl_seconds) + "\"}");
  if (!body.ok()) return body.status();
  simdjson::dom::parser parser;
  auto object = ParseObject(parser, *body);
  if (!object.ok()) return object.status();
  auto id = Int64Field(*object, "ID");
  if (!id.ok()) return id.status();
  if (*id == 0) return Unavailable("etcd granted no lease: " + body->substr(0, 200));
  return *id;
}

Result<int64_t> EtcdClient::KeepAlive(int64_t lease) {
  auto body = Call("/v3/lease/keepalive", "{\"ID\":\"" + std::to_string(lease) + "\"}");
  if (!body.ok()) return body.status();
  simdjson::dom::parser parser;
  auto object = ParseObject(parser, *body);
  if (!object.ok()) return object.status();
  simdjson::dom::object result;
  if ((*object)["result"].get_object().get(result) != simdjson::SUCCESS) {
    return Unavailable("etcd keepalive: " + body->substr(0, 200));
  }
  return Int64Field(result, "TTL");  // absent (0) once the lease has expired
}

Status EtcdClient::RevokeLease(int64_t lease) {
  auto body = Call("/v3/lease/revoke", "{\"ID\":\"" + std::to_string(lease) + "\"}");
  return body.ok() ? Status::Ok() : body.status();
}

}  // namespace verdict::cluster
