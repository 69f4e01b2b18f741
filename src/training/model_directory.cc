#include "training/model_directory.h"

#include <simdjson.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/sha256.h"
#include "features/feature_vector.h"

namespace verdict::training {

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Internal(path + ": read error");
  return ss.str();
}

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Internal(tmp + ": cannot create");
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    std::remove(tmp.c_str());
    return Internal(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Internal(path + ": rename failed");
  return Status::Ok();
}

Result<ManifestIdentity> ReadManifestIdentity(const std::string& dir) {
  const std::string path = dir + "/" + kManifestFile;
  VERDICT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text).get(root) != simdjson::SUCCESS || !root.is_object()) {
    return InvalidArgument(path + ": not a JSON object", "manifest");
  }
  ManifestIdentity id;
  const std::pair<const char*, std::string*> fields[] = {{"name", &id.name},
                                                         {"version", &id.version},
                                                         {"feature_schema", &id.feature_schema},
                                                         {"sha256", &id.sha256}};
  for (const auto& [key, out] : fields) {
    std::string_view value;
    if (root[key].get_string().get(value) != simdjson::SUCCESS || value.empty()) {
      return InvalidArgument(path + ": '" + key + "' must be a non-empty string", key);
    }
    *out = std::string(value);
  }
  if (id.feature_schema != kFeatureSchemaVersion) {
    return InvalidArgument(path + ": model was trained on feature schema '" + id.feature_schema +
                               "', this binary computes '" + std::string(kFeatureSchemaVersion) +
                               "'",
                           "feature_schema");
  }
  VERDICT_ASSIGN_OR_RETURN(std::string model, ReadWholeFile(dir + "/" + kModelFile));
  if (Sha256Hex(model) != id.sha256) {
    return InvalidArgument(dir + "/" + kModelFile + ": SHA-256 differs from the manifest's",
                           "sha256");
  }
  return id;
}

Result<ModelOptions> ModelOptionsFromPath(const std::string& path) {
  ModelOptions options;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    VERDICT_ASSIGN_OR_RETURN(ManifestIdentity id, ReadManifestIdentity(path));
    options.path = path + "/" + kModelFile;
    options.name = id.name;
    options.version = id.version;
    return options;
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    return NotFound(path + ": no such model directory or file");
  }
  options.path = path;
  return options;
}

}  // namespace verdict::training
