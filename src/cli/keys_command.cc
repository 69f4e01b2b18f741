#include "cli/keys_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/json_writer.h"
#include "common/rfc3339.h"
#include "engine/engine_options.h"
#include "engine/key_routes.h"
#include "journal/journal.h"
#include "security/key_store.h"

namespace verdict {
namespace {

struct KeysArgs {
  std::string data_dir;
  std::string config;
  std::string tenant;
  std::string principal;
  std::vector<std::string> roles;
  std::string id;
  bool json = false;
};

// The journal and key store of a stopped engine, opened the way the engine opens them.
struct OpenedKeys {
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<JournalKeyStorage> storage;
  std::unique_ptr<security::KeyStore> keys;
};

Result<OpenedKeys> OpenKeys(const KeysArgs& args) {
  // Logs (journal recovery) go to stderr: stdout carries only the command's output (--json).
  if (spdlog::get("keys") == nullptr) spdlog::set_default_logger(spdlog::stderr_color_mt("keys"));
  if (args.data_dir.empty()) return InvalidArgument("--data-dir is required", "--data-dir");
  std::string kek_file;
  journal::PayloadCipherKind cipher = journal::PayloadCipherKind::kAes256Gcm;
  if (!args.config.empty()) {
    VERDICT_ASSIGN_OR_RETURN(EngineOptions options, LoadEngineOptions(args.config));
    kek_file = options.journal.kek_file;
    cipher = options.journal.cipher;
  }
  journal::JournalOptions jo;
  jo.data_dir = args.data_dir + "/journal";
  jo.kek_file = kek_file;
  jo.cipher = cipher;
  jo.min_free_bytes = 0;
  OpenedKeys out;
  auto opened = journal::Journal::Open(jo);
  if (!opened.ok()) {
    return Status(opened.status().code(),
                  "cannot open the journal at " + jo.data_dir +
                      " (is the engine running?): " + opened.status().message());
  }
  out.journal = std::move(opened).value();
  out.storage = std::make_unique<JournalKeyStorage>(*out.journal);
  VERDICT_ASSIGN_OR_RETURN(std::vector<std::string> tenants, out.journal->AdminTenants());
  VERDICT_ASSIGN_OR_RETURN(out.keys,
                           security::KeyStore::Open(*out.storage, JournalKeyAudit(*out.journal),
                                                    JournalKeyLedger(*out.journal), tenants));
  return out;
}

[[noreturn]] void FailKeys(const Status& status) {
  std::fprintf(stderr, "verdict keys: %s\n", status.message().c_str());
  throw CLI::RuntimeError(status.code() == StatusCode::kInvalidArgument ? 2 : 1);
}

void Create(const KeysArgs& args) {
  uint32_t roles = 0;
  for (const std::string& name : args.roles) {
    Role role;
    if (!ParseRole(name, &role)) {
      FailKeys(InvalidArgument("--role " + name + ": must be scorer, analyst, admin or auditor"));
    }
    roles |= static_cast<uint32_t>(role);
  }
  auto opened = OpenKeys(args);
  if (!opened.ok()) FailKeys(opened.status());
  auto created = opened->keys->Create(args.tenant, args.principal, roles,
                                      SystemClock::Instance().NowMicros(), "cli");
  if (!created.ok()) FailKeys(created.status());
  if (args.json) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject().Key("key").String(created->key).Key("id").String(created->stored.id);
    w.EndObject();
    std::printf("%s\n", out.c_str());
  } else {
    std::printf("key %s (id %s) for tenant %s\nshown once: store it now\n", created->key.c_str(),
                created->stored.id.c_str(), created->stored.tenant.c_str());
  }
}

// "admin,scorer": the key's roles by name, in the order of the Role bits.
std::string KeyRoleNames(uint32_t roles) {
  std::string out;
  for (Role role : {Role::kScorer, Role::kAnalyst, Role::kAdmin, Role::kAuditor}) {
    if ((roles & static_cast<uint32_t>(role)) == 0) continue;
    if (!out.empty()) out += ',';
    out += RoleName(role);
  }
  return out.empty() ? "-" : out;
}

// One key a line under a header, in aligned columns: id, tenant, principal, roles, and whether
// it is active or since when it is revoked.
void PrintKeyTable(const std::vector<security::StoredKey>& keys) {
  std::vector<std::array<std::string, 5>> rows;
  rows.push_back({"ID", "TENANT", "PRINCIPAL", "ROLES", "STATUS"});
  for (const auto& key : keys) {
    rows.push_back({key.id, key.tenant, key.principal, KeyRoleNames(key.roles),
                    key.revoked ? "revoked " + FormatRfc3339Micros(key.revoked_at_us) : "active"});
  }
  std::array<size_t, 5> width{};
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
  if (keys.empty()) std::printf("(no keys)\n");
}

void List(const KeysArgs& args) {
  auto opened = OpenKeys(args);
  if (!opened.ok()) FailKeys(opened.status());
  const auto keys = opened->keys->List(args.tenant);
  if (args.json) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject().Key("keys").BeginArray();
    for (const auto& key : keys) w.Raw(security::StoredKeyPublicJson(key));
    w.EndArray().EndObject();
    std::printf("%s\n", out.c_str());
    return;
  }
  PrintKeyTable(keys);
}

void Revoke(const KeysArgs& args) {
  auto opened = OpenKeys(args);
  if (!opened.ok()) FailKeys(opened.status());
  auto revoked =
      opened->keys->Revoke(args.id, args.tenant, SystemClock::Instance().NowMicros(), "cli");
  if (!revoked.ok()) FailKeys(revoked.status());
  if (args.json) {
    std::printf("%s\n", security::StoredKeyPublicJson(*revoked).c_str());
  } else {
    std::printf("revoked %s\n", revoked->id.c_str());
  }
}

void CommonOptions(CLI::App* cmd, KeysArgs& args) {
  cmd->add_option("--data-dir", args.data_dir, "The stopped engine's data directory")->required();
  cmd->add_option("--config", args.config, "TOML configuration (for journal.kek_file)");
  cmd->add_flag("--json", args.json, "Print JSON on stdout");
}

}  // namespace

void RegisterKeysCommand(CLI::App& app) {
  auto args = std::make_shared<KeysArgs>();
  CLI::App* keys = app.add_subcommand("keys", "Manage API keys (on a stopped engine's data dir)");
  keys->require_subcommand(1);
  CLI::App* create = keys->add_subcommand("create", "Create a key; prints it once");
  CommonOptions(create, *args);
  create->add_option("--tenant", args->tenant, "Tenant the key belongs to")->required();
  create->add_option("--role", args->roles, "scorer, analyst, admin or auditor (repeatable)")
      ->required();
  create->add_option("--principal", args->principal, "Who the key is for (default key:<id>)");
  create->callback([args] { Create(*args); });
  CLI::App* list = keys->add_subcommand("list", "List keys (never their secrets)");
  CommonOptions(list, *args);
  list->add_option("--tenant", args->tenant, "Only this tenant's keys");
  list->callback([args] { List(*args); });
  CLI::App* revoke = keys->add_subcommand("revoke", "Revoke a key by id");
  CommonOptions(revoke, *args);
  revoke->add_option("--id", args->id, "The key's id")->required();
  revoke->callback([args] { Revoke(*args); });
}

}  // namespace verdict
