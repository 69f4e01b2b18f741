// ModelRegistry: the models an engine can activate, each stored with name, version, SHA-256
// and metadata: files under <models_dir>/<name>/<version>/ (model.json, manifest.json and
// reference.json when given), the index in a RegistryStore. Every model is validated before
// it is stored and again when loaded (the file is untrusted). Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "lifecycle/registry_store.h"
#include "lifecycle/scoring_model.h"

namespace verdict::lifecycle {

struct ModelUpload {
  std::string name;
  std::string version;
  std::string model_json;      // XGBoost JSON model text
  std::string manifest_json;   // a JSON object from `verdict train`; empty: none
  std::string reference_json;  // reference distributions (a JSON object); empty: none
  std::string anomaly_text;    // anomaly model (model/isolation_forest.h format); empty: none
  std::string risk_json;       // risk calibration (model/risk_calibration.h); empty: none
};

struct ModelEntry {
  std::string name;
  std::string version;
  std::string sha256;  // of model.json, as recorded in every decision it makes
  int64_t registered_at_us = 0;
  std::string registered_by;
  uint64_t num_trees = 0;
  uint64_t num_features = 0;
  bool has_reference = false;
  std::string manifest_json;  // minified; empty when none was given
  std::string dir;            // where its files are
};

class ModelRegistry;

struct RegistryOptions {
  std::string models_dir;                    // e.g. <data_dir>/models
  std::span<const std::string_view> schema;  // the engine's feature names
  std::string_view schema_version;           // a manifest's feature_schema must equal it
  size_t max_file_bytes = size_t{256} << 20;
  // A tenant's registry reads through to the deployment's (shared, read-only: a tenant can
  // activate the deployment's models but never change them); null for the deployment's own.
  const ModelRegistry* fallback = nullptr;
  // Checks an upload's reference as the drift watch will read it (the engine sets it: the
  // lifecycle does not know the drift monitor's format); an error names the field within the
  // reference. Unset: any JSON object is taken.
  std::function<Status(std::string_view reference_json)> check_reference;
  // The SHA-256s the journal recorded for the registrations of `object` ("name/version"; an
  // empty string for one recorded without a digest). The index entry is a registry row that
  // anyone with disk access can edit along with model.json; with this set, Load refuses
  // (kDataLoss naming the model) an entry whose SHA-256 no journaled registration recorded.
  // Unset: not checked.
  std::function<Result<std::vector<std::string>>(std::string_view object)> journaled_sha256s;
};

// "aml", "4", "2026-12.1": 1 to 64 of [A-Za-z0-9._-], starting with a letter or digit.
Status ValidateModelId(std::string_view value, std::string_view field);

class ModelRegistry {
 public:
  // `store` and `clock` must outlive the registry.
  ModelRegistry(RegistryOptions options, RegistryStore& store, const Clock& clock);

  // Validates (the model parses, its features are in the schema, the manifest agrees with it)
  // and stores the files, then the index entry. Uploading the same model again under its
  // name and version returns the existing entry with *created = false; another model under a
  // name and version already taken (here or in the fallback) is kAlreadyExists. A new entry is
  // first given to `before_store` (when set), which can still refuse it: then nothing is stored.
  Result<ModelEntry> Register(const ModelUpload& upload, std::string_view principal,
                              bool* created = nullptr,
                              const std::function<Status(const ModelEntry&)>& before_store = {})
      EXCLUDES(register_mu_);
  // Register's checks of the upload alone, storing nothing (not whether its name and version
  // are taken).
  Status Validate(const ModelUpload& upload) const;
  // Find, List and Load see this registry's entries, then the fallback's.
  Result<std::optional<ModelEntry>> Find(std::string_view name, std::string_view version) const;
  Result<std::vector<ModelEntry>> List() const;
  // Only this registry's entries (a tenant's own, without the deployment's).
  Result<std::vector<ModelEntry>> ListOwn() const;
  // Reads the stored files, checks model.json against the recorded SHA-256 (and that against
  // the journaled registrations, when options().journaled_sha256s is set) and loads it. A
  // model of the fallback is loaded by the fallback.
  Result<std::shared_ptr<const ScoringModel>> Load(std::string_view name,
                                                   std::string_view version) const;

  // Reads a model directory as `verdict train` writes it (model.json, optional manifest.json,
  // reference.json, anomaly.txt, risk.json) or a single XGBoost JSON file, for registration; a
  // file named model.json brings its directory's anomaly.txt and risk.json when present.
  static Result<ModelUpload> ReadFromPath(const std::string& path, std::string name,
                                          std::string version, size_t max_file_bytes);

  const RegistryOptions& options() const { return options_; }

 private:
  // An upload that passed every check: what Register stores.
  struct Checked {
    std::shared_ptr<const ScoringModel> scoring;
    std::string sha256;
    ModelUpload stored;  // the manifest minified
  };
  Result<Checked> Check(const ModelUpload& upload) const;
  std::string IndexKey(std::string_view name, std::string_view version) const;
  // kDataLoss unless a journaled registration of the entry's model recorded its SHA-256.
  Status CheckJournaled(const ModelEntry& entry) const;
  Status WriteFiles(const ModelUpload& upload, const std::string& dir) const;

  const RegistryOptions options_;
  RegistryStore& store_;
  const Clock& clock_;
  // One registration at a time (name/version uniqueness): it guards no member, only the
  // find-then-store of Register. Held while the store is read and written.
  Mutex register_mu_;
};

}  // namespace verdict::lifecycle
