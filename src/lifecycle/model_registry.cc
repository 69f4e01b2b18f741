#include "lifecycle/model_registry.h"

#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/json_writer.h"
#include "common/sha256.h"

namespace verdict::lifecycle {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kIndexPrefix = "models/";
// The optional detection files of a model directory (training/model_directory.h names them
// too; lifecycle does not depend on training).
constexpr const char* kAnomalyFileName = "anomaly.txt";
constexpr const char* kRiskFileName = "risk.json";

Result<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return NotFound("cannot read '" + path + "': " + ec.message());
  if (size > max_bytes) {
    return InvalidArgument("'" + path + "' is larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Status WriteFileSynced(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot create '" + path + "'");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ::close(fd);
      return Internal("cannot write '" + path + "'");
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) return Internal("cannot sync '" + path + "'");
  return Status::Ok();
}

void SyncDir(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// Parses `text` as one JSON object and returns it minified; `field` names it in errors.
Result<std::string> MinifiedObject(std::string_view text, std::string_view field,
                                   simdjson::dom::parser& parser, simdjson::dom::object* out) {
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    return InvalidArgument(
        std::string(field) + " is not valid JSON: " + simdjson::error_message(error),
        std::string(field));
  }
  if (root.get_object().get(*out) != simdjson::SUCCESS) {
    return InvalidArgument(std::string(field) + " must be a JSON object", std::string(field));
  }
  return simdjson::minify(root);
}

// A manifest from `verdict train` must agree with the model it describes and the engine.
Status CheckManifest(simdjson::dom::object manifest, const std::string& sha256,
                     const RegistryOptions& options) {
  auto string_field = [&](std::string_view key, std::string_view expected,
                          std::string_view what) -> Status {
    simdjson::dom::element value;
    if (manifest.at_key(key).get(value) != simdjson::SUCCESS) return Status::Ok();
    std::string_view s;
    if (value.get_string().get(s) != simdjson::SUCCESS) {
      return InvalidArgument("manifest." + std::string(key) + " must be a string",
                             "manifest." + std::string(key));
    }
    if (s != expected) {
      return InvalidArgument("manifest." + std::string(key) + " is '" +
                                 std::string(s.substr(0, 80)) + "' but " + std::string(what) +
                                 " is '" + std::string(expected) + "'",
                             "manifest." + std::string(key));
    }
    return Status::Ok();
  };
  // The manifest's own name and version are what training called the model; the registry's
  // name and version are the upload's, so only the model's identity and schema are compared.
  VERDICT_RETURN_IF_ERROR(string_field("model_sha256", sha256, "the SHA-256 of the model"));
  if (!options.schema_version.empty()) {
    VERDICT_RETURN_IF_ERROR(
        string_field("feature_schema", options.schema_version, "the engine's feature schema"));
  }
  simdjson::dom::element features;
  if (manifest.at_key("features").get(features) == simdjson::SUCCESS) {
    simdjson::dom::array list;
    if (features.get_array().get(list) != simdjson::SUCCESS) {
      return InvalidArgument("manifest.features must be an array of feature names",
                             "manifest.features");
    }
    std::set<std::string_view> schema(options.schema.begin(), options.schema.end());
    for (simdjson::dom::element item : list) {
      std::string_view name;
      if (item.get_string().get(name) != simdjson::SUCCESS) {
        return InvalidArgument("manifest.features must be an array of feature names",
                               "manifest.features");
      }
      if (!schema.contains(name)) {
        return InvalidArgument("manifest.features names '" + std::string(name.substr(0, 80)) +
                                   "', which the engine's feature schema does not have",
                               "manifest.features");
      }
    }
  }
  return Status::Ok();
}

std::string EntryToJson(const ModelEntry& e) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("name").String(e.name).Key("version").String(e.version).Key("sha256").String(e.sha256);
  w.Key("registered_at_us").Int(e.registered_at_us).Key("registered_by").String(e.registered_by);
  w.Key("num_trees").Uint(e.num_trees).Key("num_features").Uint(e.num_features);
  w.Key("has_reference").Bool(e.has_reference);
  w.Key("manifest");
  if (e.manifest_json.empty()) {
    w.Null();
  } else {
    w.Raw(e.manifest_json);
  }
  w.EndObject();
  return out;
}

Result<ModelEntry> EntryFromJson(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::object obj;
  if (parser.parse(padded).get_object().get(obj) != simdjson::SUCCESS) {
    return Internal("a model registry entry is unreadable");
  }
  ModelEntry e;
  std::string_view s;
  bool ok = obj["name"].get_string().get(s) == simdjson::SUCCESS;
  e.name = std::string(s);
  ok = ok && obj["version"].get_string().get(s) == simdjson::SUCCESS;
  e.version = std::string(s);
  ok = ok && obj["sha256"].get_string().get(s) == simdjson::SUCCESS;
  e.sha256 = std::string(s);
  ok = ok && obj["registered_by"].get_string().get(s) == simdjson::SUCCESS;
  e.registered_by = std::string(s);
  ok = ok && obj["registered_at_us"].get_int64().get(e.registered_at_us) == simdjson::SUCCESS;
  ok = ok && obj["num_trees"].get_uint64().get(e.num_trees) == simdjson::SUCCESS;
  ok = ok && obj["num_features"].get_uint64().get(e.num_features) == simdjson::SUCCESS;
  ok = ok && obj["has_reference"].get_bool().get(e.has_reference) == simdjson::SUCCESS;
  simdjson::dom::element manifest;
  ok = ok && obj["manifest"].get(manifest) == simdjson::SUCCESS;
  if (!ok) return Internal("a model registry entry is incomplete");
  if (manifest.is_object()) e.manifest_json = simdjson::minify(manifest);
  return e;
}

}  // namespace

Status ValidateModelId(std::string_view value, std::string_view field) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  bool ok = !value.empty() && value.size() <= 64 && alnum(value.front());
  for (char c : value) ok = ok && (alnum(c) || c == '.' || c == '_' || c == '-');
  if (!ok) {
    return InvalidArgument(std::string(field) +
                               " must be 1 to 64 characters of A-Z a-z 0-9 . _ - starting with a "
                               "letter or digit",
                           std::string(field));
  }
  return Status::Ok();
}

namespace {

// The scoring stage with the optional anomaly model and risk calibration, each refused with its
// own field when malformed.
Result<std::shared_ptr<const ScoringModel>> CreateScoring(
    const std::string& name, const std::string& version,
    std::shared_ptr<const model::Forest> forest, const std::string& anomaly_text,
    const std::string& risk_json, std::span<const std::string_view> schema) {
  std::shared_ptr<const model::IsolationForest> anomaly;
  if (!anomaly_text.empty()) {
    auto parsed = model::IsolationForest::Parse(anomaly_text);
    if (!parsed.ok()) return InvalidArgument("anomaly: " + parsed.status().message(), "anomaly");
    anomaly = *parsed;
  }
  std::optional<model::RiskCalibration> risk;
  if (!risk_json.empty()) {
    auto parsed = model::RiskCalibration::ParseJson(risk_json);
    if (!parsed.ok()) return InvalidArgument("risk: " + parsed.status().message(), "risk");
    risk = *parsed;
  }
  return ScoringModel::Create(name, version, std::move(forest), schema, "model", std::move(anomaly),
                              risk);
}

}  // namespace

ModelRegistry::ModelRegistry(RegistryOptions options, RegistryStore& store, const Clock& clock)
    : options_(std::move(options)), store_(store), clock_(clock) {}

std::string ModelRegistry::IndexKey(std::string_view name, std::string_view version) const {
  return std::string(kIndexPrefix) + std::string(name) + "/" + std::string(version);
}

Status ModelRegistry::WriteFiles(const ModelUpload& upload, const std::string& dir) const {
  // Written under a temporary name and renamed, so a crash never leaves a half-written
  // version directory; an orphan (files without an index entry) is replaced.
  const fs::path final_dir(dir);
  const fs::path tmp = final_dir.parent_path() / ("." + upload.version + ".tmp");
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) return Internal("cannot create '" + tmp.string() + "': " + ec.message());
  VERDICT_RETURN_IF_ERROR(WriteFileSynced((tmp / "model.json").string(), upload.model_json));
  if (!upload.manifest_json.empty()) {
    VERDICT_RETURN_IF_ERROR(
        WriteFileSynced((tmp / "manifest.json").string(), upload.manifest_json));
  }
  if (!upload.reference_json.empty()) {
    VERDICT_RETURN_IF_ERROR(
        WriteFileSynced((tmp / "reference.json").string(), upload.reference_json));
  }
  if (!upload.anomaly_text.empty()) {
    VERDICT_RETURN_IF_ERROR(
        WriteFileSynced((tmp / kAnomalyFileName).string(), upload.anomaly_text));
  }
  if (!upload.risk_json.empty()) {
    VERDICT_RETURN_IF_ERROR(WriteFileSynced((tmp / kRiskFileName).string(), upload.risk_json));
  }
  SyncDir(tmp.string());
  fs::remove_all(final_dir, ec);
  fs::rename(tmp, final_dir, ec);
  if (ec) return Internal("cannot store '" + final_dir.string() + "': " + ec.message());
  SyncDir(final_dir.parent_path().string());
  return Status::Ok();
}

Result<ModelRegistry::Checked> ModelRegistry::Check(const ModelUpload& upload) const {
  VERDICT_RETURN_IF_ERROR(ValidateModelId(upload.name, "name"));
  VERDICT_RETURN_IF_ERROR(ValidateModelId(upload.version, "version"));
  if (upload.model_json.empty()) return InvalidArgument("model is required", "model");
  for (const std::string* text : {&upload.model_json, &upload.manifest_json, &upload.reference_json,
                                  &upload.anomaly_text, &upload.risk_json}) {
    if (text->size() > options_.max_file_bytes) {
      return InvalidArgument(
          "a model file is larger than " + std::to_string(options_.max_file_bytes) + " bytes",
          text == &upload.model_json ? "model" : "manifest");
    }
  }
  // The model is untrusted: the loader refuses anything malformed, and its features must be
  // the engine's.
  auto forest = model::Forest::LoadXGBoostJson(upload.model_json);
  if (!forest.ok()) {
    return InvalidArgument("model: " + forest.status().message(), "model");
  }
  Checked checked;
  VERDICT_ASSIGN_OR_RETURN(checked.scoring,
                           CreateScoring(upload.name, upload.version, *forest, upload.anomaly_text,
                                         upload.risk_json, options_.schema));
  checked.sha256 = (*forest)->sha256();

  checked.stored = upload;
  simdjson::dom::parser parser;
  if (!upload.manifest_json.empty()) {
    simdjson::dom::object manifest;
    VERDICT_ASSIGN_OR_RETURN(checked.stored.manifest_json,
                             MinifiedObject(upload.manifest_json, "manifest", parser, &manifest));
    VERDICT_RETURN_IF_ERROR(CheckManifest(manifest, checked.sha256, options_));
  }
  if (!upload.reference_json.empty()) {
    simdjson::dom::object reference;
    VERDICT_ASSIGN_OR_RETURN(std::string minified, MinifiedObject(upload.reference_json,
                                                                  "reference", parser, &reference));
    (void)minified;  // the reference is kept as given
    // Checked now as the drift watch will read it: found unusable only at the model's first
    // decision, it would leave the model unwatched, with a log line.
    if (options_.check_reference) {
      if (Status s = options_.check_reference(upload.reference_json); !s.ok()) {
        const bool whole = s.field().empty() || s.field() == "reference";
        return InvalidArgument(
            s.message().starts_with("reference") ? s.message() : "reference: " + s.message(),
            whole ? "reference" : "reference." + s.field());
      }
    }
  }

  return checked;
}

Status ModelRegistry::Validate(const ModelUpload& upload) const { return Check(upload).status(); }

Result<ModelEntry> ModelRegistry::Register(
    const ModelUpload& upload, std::string_view principal, bool* created,
    const std::function<Status(const ModelEntry&)>& before_store) {
  if (created != nullptr) *created = false;
  VERDICT_ASSIGN_OR_RETURN(Checked checked, Check(upload));
  const std::string& sha256 = checked.sha256;
  const ModelUpload& stored = checked.stored;
  const std::shared_ptr<const ScoringModel>& scoring = checked.scoring;

  MutexLock lock(register_mu_);
  VERDICT_ASSIGN_OR_RETURN(auto existing, Find(upload.name, upload.version));
  if (existing) {
    if (existing->sha256 == sha256) return *existing;
    return Status(StatusCode::kAlreadyExists,
                  "model " + upload.name + " version " + upload.version +
                      " is already registered with another SHA-256 (" +
                      existing->sha256.substr(0, 12) + "); register it under a new version",
                  "version");
  }
  ModelEntry entry;
  entry.name = upload.name;
  entry.version = upload.version;
  entry.sha256 = sha256;
  entry.registered_at_us = clock_.NowMicros();
  entry.registered_by = std::string(principal);
  entry.num_trees = scoring->forest().num_trees();
  entry.num_features = scoring->forest().num_features();
  entry.has_reference = !upload.reference_json.empty();
  entry.manifest_json = stored.manifest_json;
  entry.dir = (fs::path(options_.models_dir) / upload.name / upload.version).string();
  if (before_store) VERDICT_RETURN_IF_ERROR(before_store(entry));
  VERDICT_RETURN_IF_ERROR(WriteFiles(stored, entry.dir));
  VERDICT_RETURN_IF_ERROR(store_.Put(IndexKey(entry.name, entry.version), EntryToJson(entry)));
  if (created != nullptr) *created = true;
  return entry;
}

Result<std::optional<ModelEntry>> ModelRegistry::Find(std::string_view name,
                                                      std::string_view version) const {
  VERDICT_ASSIGN_OR_RETURN(auto value, store_.Get(IndexKey(name, version)));
  if (!value) {
    if (options_.fallback != nullptr) return options_.fallback->Find(name, version);
    return std::optional<ModelEntry>();
  }
  VERDICT_ASSIGN_OR_RETURN(ModelEntry entry, EntryFromJson(*value));
  entry.dir = (fs::path(options_.models_dir) / entry.name / entry.version).string();
  return std::optional<ModelEntry>(std::move(entry));
}

Result<std::vector<ModelEntry>> ModelRegistry::ListOwn() const {
  VERDICT_ASSIGN_OR_RETURN(auto rows, store_.List(kIndexPrefix));
  std::vector<ModelEntry> out;
  for (const auto& [key, value] : rows) {
    VERDICT_ASSIGN_OR_RETURN(ModelEntry entry, EntryFromJson(value));
    entry.dir = (fs::path(options_.models_dir) / entry.name / entry.version).string();
    out.push_back(std::move(entry));
  }
  return out;
}

Result<std::vector<ModelEntry>> ModelRegistry::List() const {
  VERDICT_ASSIGN_OR_RETURN(std::vector<ModelEntry> out, ListOwn());
  if (options_.fallback == nullptr) return out;
  VERDICT_ASSIGN_OR_RETURN(std::vector<ModelEntry> shared, options_.fallback->List());
  // Register refuses a name and version the fallback holds, so the two never overlap.
  for (ModelEntry& entry : shared) out.push_back(std::move(entry));
  return out;
}

Result<std::shared_ptr<const ScoringModel>> ModelRegistry::Load(std::string_view name,
                                                                std::string_view version) const {
  VERDICT_RETURN_IF_ERROR(ValidateModelId(name, "name"));
  VERDICT_RETURN_IF_ERROR(ValidateModelId(version, "version"));
  VERDICT_ASSIGN_OR_RETURN(auto own, store_.Get(IndexKey(name, version)));
  if (!own && options_.fallback != nullptr) return options_.fallback->Load(name, version);
  VERDICT_ASSIGN_OR_RETURN(auto entry, Find(name, version));
  if (!entry) {
    return NotFound("model " + std::string(name) + " version " + std::string(version) +
                    " is not registered");
  }
  VERDICT_RETURN_IF_ERROR(CheckJournaled(*entry));
  VERDICT_ASSIGN_OR_RETURN(std::string text,
                           ReadFile(entry->dir + "/model.json", options_.max_file_bytes));
  if (Sha256Hex(text) != entry->sha256) {
    return Internal("stored model " + entry->name + " v" + entry->version +
                    " does not match its recorded SHA-256; refusing to load it");
  }
  auto forest = model::Forest::LoadXGBoostJson(text);
  if (!forest.ok()) return Internal("stored model: " + forest.status().message());
  // Directories stored before the anomaly model and risk calibration existed have neither.
  std::string anomaly_text;
  std::string risk_json;
  std::error_code ec;
  for (auto [file, out] :
       {std::pair{kAnomalyFileName, &anomaly_text}, std::pair{kRiskFileName, &risk_json}}) {
    const std::string path = entry->dir + "/" + file;
    if (fs::exists(path, ec)) {
      VERDICT_ASSIGN_OR_RETURN(*out, ReadFile(path, options_.max_file_bytes));
    }
  }
  return CreateScoring(entry->name, entry->version, *forest, anomaly_text, risk_json,
                       options_.schema);
}

Status ModelRegistry::CheckJournaled(const ModelEntry& entry) const {
  if (!options_.journaled_sha256s) return Status::Ok();
  VERDICT_ASSIGN_OR_RETURN(std::vector<std::string> journaled,
                           options_.journaled_sha256s(entry.name + "/" + entry.version));
  for (const std::string& sha256 : journaled) {
    if (sha256.empty() || sha256 == entry.sha256) return Status::Ok();
  }
  return DataLoss("model " + entry.name + " version " + entry.version +
                  ": its registry entry (SHA-256 " + entry.sha256.substr(0, 12) + ") is " +
                  (journaled.empty() ? "not a registration the journal holds"
                                     : "not the model its journaled registration recorded") +
                  "; refusing to load it");
}

Result<ModelUpload> ModelRegistry::ReadFromPath(const std::string& path, std::string name,
                                                std::string version, size_t max_file_bytes) {
  ModelUpload upload;
  upload.name = std::move(name);
  upload.version = std::move(version);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    VERDICT_ASSIGN_OR_RETURN(upload.model_json, ReadFile(path + "/model.json", max_file_bytes));
    for (auto [file, out] : {std::pair{"/manifest.json", &upload.manifest_json},
                             std::pair{"/reference.json", &upload.reference_json},
                             std::pair{"/anomaly.txt", &upload.anomaly_text},
                             std::pair{"/risk.json", &upload.risk_json}}) {
      if (fs::exists(path + file, ec)) {
        VERDICT_ASSIGN_OR_RETURN(*out, ReadFile(path + file, max_file_bytes));
      }
    }
  } else {
    VERDICT_ASSIGN_OR_RETURN(upload.model_json, ReadFile(path, max_file_bytes));
    // A model directory's model.json named directly (as `[model] path` does) brings the
    // directory's anomaly model and risk calibration along.
    const fs::path file(path);
    if (file.filename() == "model.json") {
      for (auto [name, out] : {std::pair{kAnomalyFileName, &upload.anomaly_text},
                               std::pair{kRiskFileName, &upload.risk_json}}) {
        const std::string sibling = (file.parent_path() / name).string();
        if (fs::exists(sibling, ec)) {
          VERDICT_ASSIGN_OR_RETURN(*out, ReadFile(sibling, max_file_bytes));
        }
      }
    }
  }
  return upload;
}

}  // namespace verdict::lifecycle
