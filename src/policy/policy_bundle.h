// PolicyBundle: a policy text plus the list files it names, as one versioned unit with a
// SHA-256 over a canonical serialization. Reads bundles from disk or from the ingest JSON
// body, validates them (every error with file:line:column) and compiles them into an
// immutable CompiledPolicy for atomic activation. Stateless functions; thread-safe.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_writer.h"
#include "common/result.h"
#include "policy/compiled_policy.h"
#include "policy/diagnostic.h"

namespace verdict {

struct BundleSource {
  // The bundle version given by the caller (e.g. the ingest body); may be empty, and then the
  // policy's `version` header is used. When both are given they must agree.
  std::string version;
  std::string policy_file = "policy";  // name of the policy text in diagnostics
  std::string policy_text;
  // List files by the name written after `from` in the policy → their contents.
  std::map<std::string, std::string> files;
};

// Hex SHA-256 of the canonical serialization (docs/policy.md, "Bundles"): the policy text and
// every file, sorted by name, each length-prefixed. Same contents, same hash.
std::string BundleSha256(const BundleSource& source);

// Reads `path` (a .policy file, or a folder holding exactly one) and every list file it names,
// relative to the policy file's folder. A list file that cannot be read is left out, and
// CompileBundle then reports it at its `from` position.
Result<BundleSource> ReadBundle(const std::filesystem::path& path);

// Parses the body of POST /v1/policy/ingest and /v1/policy:validate:
// {"version":"7","policy":"<policy text>","files":{"lists/sanctions.csv":"<csv>",...}}.
Result<BundleSource> ParseBundleJson(std::string_view body);

// Checks and compiles `source` against the feature schema. On failure the Status carries all
// errors, one per line; `errors` (when given) receives them as structured diagnostics.
Result<std::shared_ptr<const CompiledPolicy>> CompileBundle(
    const BundleSource& source, std::span<const std::string_view> feature_names,
    std::vector<Diagnostic>* errors = nullptr);

// Every error CompileBundle would report; empty when the bundle would activate.
std::vector<Diagnostic> ValidateBundle(const BundleSource& source,
                                       std::span<const std::string_view> feature_names);

// ReadBundle + CompileBundle.
Result<std::shared_ptr<const CompiledPolicy>> LoadBundle(
    const std::filesystem::path& path, std::span<const std::string_view> feature_names);

// JSON for GET /v1/policy: {"name","version","sha256","rules","typologies","lists":[...],
// "files":[...],"feature_schema":[...]}.
void WriteBundleInfoJson(const BundleInfo& info, JsonWriter& out);
// JSON for validation errors: [{"file","line","column","message"},...].
void WriteDiagnosticsJson(const std::vector<Diagnostic>& errors, JsonWriter& out);

}  // namespace verdict
