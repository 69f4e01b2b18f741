// EngineOptions: every setting of a running engine, typed, with documented defaults (the
// same defaults are written out in config/verdict.toml). Loaded from TOML and validated at
// start-up; value type, read-only once the engine starts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "api/http_server.h"
#include "common/result.h"
#include "policy/fixed_rules.h"

namespace verdict {

struct ModelOptions {
  std::string path;  // XGBoost JSON model file; empty: decide with rules only (fallback path)
  std::string name = "aml";
  std::string version = "1";
};

struct EngineOptions {
  HttpServerOptions server;
  size_t max_batch_items = 1000;
  size_t workers = 0;  // 0: one per hardware thread
  size_t account_stripes = 1024;
  size_t queue_capacity = 65'536;
  std::string data_dir = "./var";
  ModelOptions model;
  FixedRulesOptions rules;
};

// Parses TOML text. Unknown keys, wrong types and out-of-range values are errors whose field
// names the key ("server.io_threads"); `source` names the file in messages.
Result<EngineOptions> ParseEngineOptions(std::string_view toml_text, std::string_view source);
Result<EngineOptions> LoadEngineOptions(const std::string& path);

// Splits "127.0.0.1:8080" or "[::1]:8080" into the options' address and port.
Status ParseListenAddress(std::string_view listen, HttpServerOptions* server);

}  // namespace verdict
