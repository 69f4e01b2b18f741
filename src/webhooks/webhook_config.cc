#include "webhooks/webhook_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "cluster/http_client.h"
#include "webhooks/https_webhook_sender.h"

namespace verdict::webhooks {
namespace {

constexpr std::string_view kKeys[] = {"url",    "events",     "secret",           "secret_file",
                                      "tenant", "timeout_ms", "retry_initial_ms", "retry_max_ms",
                                      "ca_file"};

Status StringKey(const toml::table& table, const std::string& prefix, std::string_view key,
                 std::string* out) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return Status::Ok();
  if (!node->is_string()) {
    return InvalidArgument(prefix + std::string(key) + " must be a string",
                           prefix + std::string(key));
  }
  *out = *node->value<std::string>();
  return Status::Ok();
}

Status IntegerKey(const toml::table& table, const std::string& prefix, std::string_view key,
                  int64_t min, int64_t max, int64_t* out) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return Status::Ok();
  const std::string name = prefix + std::string(key);
  if (!node->is_integer()) return InvalidArgument(name + " must be an integer", name);
  const int64_t value = *node->value<int64_t>();
  if (value < min || value > max) {
    return InvalidArgument(
        name + " must be between " + std::to_string(min) + " and " + std::to_string(max), name);
  }
  *out = value;
  return Status::Ok();
}

Status ReadEvents(const toml::table& table, const std::string& prefix,
                  std::vector<std::string>* out) {
  const std::string name = prefix + "events";
  const toml::node* node = table.get("events");
  if (node == nullptr) return InvalidArgument(name + " is required (a list of event names)", name);
  const toml::array* array = node->as_array();
  if (array == nullptr || array->empty()) {
    return InvalidArgument(name + " must be a non-empty array of event names", name);
  }
  for (const toml::node& item : *array) {
    if (!item.is_string()) return InvalidArgument(name + " must be an array of strings", name);
    std::string event = *item.value<std::string>();
    if (std::find(std::begin(kEventNames), std::end(kEventNames), event) == std::end(kEventNames)) {
      return InvalidArgument(name + ": unknown event '" + event +
                                 "' (known: decision.flagged, case.opened, case.disposed, "
                                 "drift.alert, model.rolled_back)",
                             name);
    }
    if (std::find(out->begin(), out->end(), event) == out->end()) out->push_back(std::move(event));
  }
  return Status::Ok();
}

// The secret from `secret` or `secret_file` (exactly one), its trailing newline dropped.
Status ReadSecret(const toml::table& table, const std::string& prefix,
                  const std::string& config_dir, std::string* out) {
  std::string path;
  VERDICT_RETURN_IF_ERROR(StringKey(table, prefix, "secret", out));
  VERDICT_RETURN_IF_ERROR(StringKey(table, prefix, "secret_file", &path));
  const bool inline_secret = table.contains("secret");
  const bool file_secret = table.contains("secret_file");
  if (inline_secret == file_secret) {
    return InvalidArgument(prefix + "secret or " + prefix + "secret_file is required (one of them)",
                           prefix + "secret");
  }
  if (file_secret) {
    const std::string name = prefix + "secret_file";
    std::filesystem::path file(path);
    if (file.is_relative() && !config_dir.empty()) file = std::filesystem::path(config_dir) / file;
    std::ifstream in(file, std::ios::binary);
    if (path.empty() || !in) {
      return InvalidArgument(name + ": cannot read '" + file.string() + "'", name);
    }
    std::stringstream text;
    text << in.rdbuf();
    *out = text.str();
    while (!out->empty() && (out->back() == '\n' || out->back() == '\r')) out->pop_back();
    if (out->empty()) return InvalidArgument(name + ": '" + file.string() + "' is empty", name);
    return Status::Ok();
  }
  if (out->empty()) return InvalidArgument(prefix + "secret must not be empty", prefix + "secret");
  return Status::Ok();
}

Result<EndpointOptions> ReadEndpoint(const toml::table& table, const std::string& prefix,
                                     const std::string& config_dir) {
  for (const auto& [key, value] : table) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key.str()) == std::end(kKeys)) {
      return InvalidArgument("unknown configuration key '" + prefix + std::string(key.str()) + "'",
                             prefix + std::string(key.str()));
    }
  }
  EndpointOptions endpoint;
  const std::string url_key = prefix + "url";
  VERDICT_RETURN_IF_ERROR(StringKey(table, prefix, "url", &endpoint.url));
  if (endpoint.url.empty()) return InvalidArgument(url_key + " is required", url_key);
  const bool https = endpoint.url.rfind("https://", 0) == 0;
  if (https) {
    if (Result<HttpsUrl> parsed = ParseHttpsUrl(endpoint.url); !parsed.ok()) {
      return InvalidArgument(url_key + ": " + parsed.status().message(), url_key);
    }
  } else if (Result<cluster::HttpEndpoint> parsed = cluster::ParseHttpEndpoint(endpoint.url);
             !parsed.ok()) {
    return InvalidArgument(url_key + ": " + parsed.status().message(), url_key);
  }
  const std::string ca_key = prefix + "ca_file";
  VERDICT_RETURN_IF_ERROR(StringKey(table, prefix, "ca_file", &endpoint.ca_file));
  if (table.contains("ca_file")) {
    if (!https) return InvalidArgument(ca_key + " is for https:// URLs only", ca_key);
    std::filesystem::path file(endpoint.ca_file);
    if (file.is_relative() && !config_dir.empty()) file = std::filesystem::path(config_dir) / file;
    endpoint.ca_file = file.string();
    if (std::ifstream in(file); endpoint.ca_file.empty() || !in) {
      return InvalidArgument(ca_key + ": cannot read '" + endpoint.ca_file + "'", ca_key);
    }
  }
  VERDICT_RETURN_IF_ERROR(ReadEvents(table, prefix, &endpoint.events));
  VERDICT_RETURN_IF_ERROR(ReadSecret(table, prefix, config_dir, &endpoint.secret));
  VERDICT_RETURN_IF_ERROR(StringKey(table, prefix, "tenant", &endpoint.tenant));
  VERDICT_RETURN_IF_ERROR(
      IntegerKey(table, prefix, "timeout_ms", 1, 600'000, &endpoint.timeout_ms));
  VERDICT_RETURN_IF_ERROR(
      IntegerKey(table, prefix, "retry_initial_ms", 1, 3'600'000, &endpoint.retry_initial_ms));
  VERDICT_RETURN_IF_ERROR(
      IntegerKey(table, prefix, "retry_max_ms", 1, 86'400'000, &endpoint.retry_max_ms));
  if (endpoint.retry_max_ms < endpoint.retry_initial_ms) {
    return InvalidArgument(prefix + "retry_max_ms must be at least retry_initial_ms",
                           prefix + "retry_max_ms");
  }
  return endpoint;
}

}  // namespace

Result<std::vector<EndpointOptions>> ParseWebhookTables(const toml::node* node,
                                                        const std::string& config_dir) {
  std::vector<EndpointOptions> endpoints;
  if (node == nullptr) return endpoints;
  const toml::array* array = node->as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    return InvalidArgument("webhooks must be an array of tables ([[webhooks]])", "webhooks");
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string prefix = "webhooks[" + std::to_string(i) + "].";
    VERDICT_ASSIGN_OR_RETURN(EndpointOptions endpoint,
                             ReadEndpoint(*array->get(i)->as_table(), prefix, config_dir));
    // The delivery cursor is kept per (tenant, url): two tables naming both would share it.
    if (!seen.emplace(endpoint.tenant, endpoint.url).second) {
      return InvalidArgument(prefix + "url: another [[webhooks]] table has the same url and tenant",
                             prefix + "url");
    }
    endpoints.push_back(std::move(endpoint));
  }
  return endpoints;
}

}  // namespace verdict::webhooks
