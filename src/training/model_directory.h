// A model directory as `verdict train` writes it: model.json (XGBoost Booster JSON),
// manifest.json (what the model is and how it was made), reference.json (training-time
// distributions for drift watch). This file reads the manifest's identity back (replay,
// backtest) and writes files atomically. Free functions; no shared state.
#pragma once

#include <string>

#include "common/result.h"
#include "engine/engine_options.h"

namespace verdict::training {

inline constexpr const char* kModelFile = "model.json";
inline constexpr const char* kManifestFile = "manifest.json";
inline constexpr const char* kReferenceFile = "reference.json";
inline constexpr const char* kAnomalyFile = "anomaly.txt";  // optional: isolation forest
inline constexpr const char* kRiskFile = "risk.json";       // optional: risk calibration
inline constexpr const char* kCardFile = "card.md";         // the model card, for people
inline constexpr const char* kManifestSchema = "manifest-1";

struct ManifestIdentity {
  std::string name;
  std::string version;
  std::string feature_schema;
  std::string sha256;  // of model.json
};

// Reads DIR/manifest.json (strictly: the identity fields must be strings). Checks that the
// feature schema is the one this binary computes and that model.json's SHA-256 matches.
Result<ManifestIdentity> ReadManifestIdentity(const std::string& dir);

// ModelOptions for the engine from a model directory (path to model.json, name, version), or
// from a bare model .json file (name "aml", version "1").
Result<ModelOptions> ModelOptionsFromPath(const std::string& path);

// Writes `content` to `path` through a temporary file renamed into place.
Status WriteFileAtomically(const std::string& path, const std::string& content);
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace verdict::training
