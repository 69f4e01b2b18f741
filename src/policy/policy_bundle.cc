#include "policy/policy_bundle.h"

#include <simdjson.h>

#include <fstream>
#include <set>
#include <sstream>

#include "common/sha256.h"
#include "policy/checker.h"
#include "policy/compiler.h"
#include "policy/list_builder.h"
#include "policy/list_file.h"
#include "policy/parser.h"

namespace verdict {
namespace {

constexpr size_t kMaxBundleFiles = 64;

Result<std::string> ReadText(const std::filesystem::path& path, size_t limit) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return NotFound("cannot read " + path.string() + ": " + ec.message());
  if (size > limit) return InvalidArgument(path.string() + " is larger than the limit");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string BundleSha256(const BundleSource& source) {
  std::string canonical = "verdict-policy-bundle-v1\n";
  auto add = [&canonical](std::string_view kind, std::string_view name, std::string_view body) {
    canonical += std::string(kind) + " " + std::to_string(name.size()) + ":" + std::string(name) +
                 " " + std::to_string(body.size()) + ":";
    canonical += body;
    canonical += '\n';
  };
  add("policy", "", source.policy_text);
  for (const auto& [name, body] : source.files) add("file", name, body);  // std::map: sorted
  return Sha256Hex(canonical);
}

Result<BundleSource> ReadBundle(const std::filesystem::path& path) {
  std::filesystem::path file = path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.path().extension() == ".policy") found.push_back(entry.path());
    }
    if (found.size() != 1) {
      return InvalidArgument(path.string() + " holds " + std::to_string(found.size()) +
                             " .policy files; expected exactly one");
    }
    file = found[0];
  }
  BundleSource source;
  source.policy_file = file.filename().string();
  VERDICT_ASSIGN_OR_RETURN(source.policy_text, ReadText(file, kMaxPolicyBytes));
  std::vector<Diagnostic> ignored;
  PolicyAst ast = ParsePolicy(source.policy_text, source.policy_file, ignored);
  for (const ListDecl& list : ast.lists) {
    for (const std::optional<std::string>& name : {list.file, list.second_file}) {
      if (!name || source.files.contains(*name)) continue;
      auto text = ReadText(file.parent_path() / *name, kMaxListFileBytes);
      if (text.ok()) source.files.emplace(*name, std::move(text).value());
    }
  }
  return source;
}

Result<BundleSource> ParseBundleJson(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::padded_string padded(body);
  if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    return InvalidArgument(std::string("body is not valid JSON: ") +
                           simdjson::error_message(error));
  }
  simdjson::dom::object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument(
        "body must be a JSON object with \"policy\" and optional "
        "\"version\" and \"files\"");
  }
  BundleSource source;
  bool has_policy = false;
  for (auto [key, value] : obj) {
    std::string_view s;
    if (key == "version") {
      if (value.get_string().get(s) != simdjson::SUCCESS) {
        return InvalidArgument("version must be a string", "version");
      }
      source.version = std::string(s);
    } else if (key == "policy") {
      if (value.get_string().get(s) != simdjson::SUCCESS) {
        return InvalidArgument("policy must be a string holding the policy text", "policy");
      }
      source.policy_text = std::string(s);
      has_policy = true;
    } else if (key == "files") {
      simdjson::dom::object files;
      if (value.get_object().get(files) != simdjson::SUCCESS) {
        return InvalidArgument("files must be an object of file name to text", "files");
      }
      for (auto [name, text] : files) {
        if (text.get_string().get(s) != simdjson::SUCCESS) {
          return InvalidArgument("each file must be a string", "files." + std::string(name));
        }
        if (source.files.size() >= kMaxBundleFiles) {
          return InvalidArgument("more than 64 files", "files");
        }
        source.files[std::string(name)] = std::string(s);
      }
    } else {
      return InvalidArgument(
          "unknown field '" + std::string(key) + "'; expected version, policy, files",
          std::string(key));
    }
  }
  if (!has_policy) return InvalidArgument("policy is required", "policy");
  return source;
}

Result<std::shared_ptr<const CompiledPolicy>> CompileBundle(
    const BundleSource& source, std::span<const std::string_view> feature_names,
    std::vector<Diagnostic>* errors_out) {
  std::vector<Diagnostic> errors;
  const std::string& file = source.policy_file;
  PolicyAst ast = ParsePolicy(source.policy_text, file, errors);

  std::string version = source.version.empty() ? ast.version : source.version;
  if (!source.version.empty() && !ast.version.empty() && source.version != ast.version) {
    errors.push_back({file,
                      {1, 1},
                      "bundle version '" + source.version +
                          "' differs from the policy's version '" + ast.version +
                          "'; expected them to agree (or omit one)"});
  }
  if (version.empty() && errors.empty()) {
    errors.push_back({file,
                      {1, 1},
                      "bundle has no version; expected 'policy \"name\" version \"1\"' at the "
                      "top or a version with the bundle"});
  }

  std::set<std::string> referenced;
  std::vector<CompiledList> lists;
  for (const ListDecl& decl : ast.lists) {
    // The content of a list file the declaration names, "" (and an error) when the bundle
    // lacks it.
    auto text_of = [&](const std::optional<std::string>& name, SourcePos pos) {
      if (!name) return std::string_view();
      referenced.insert(*name);
      auto it = source.files.find(*name);
      if (it != source.files.end()) return std::string_view(it->second);
      errors.push_back({file, pos,
                        "list file '" + *name +
                            "' is missing from the bundle (or could "
                            "not be read); expected it next to the policy"});
      return std::string_view();
    };
    const std::string_view text = text_of(decl.file, decl.file_pos);
    const std::string_view second = text_of(decl.second_file, decl.second_file_pos);
    lists.push_back(BuildList(decl, text, second, file, errors));
  }
  for (const auto& [name, body] : source.files) {
    if (!referenced.contains(name)) {
      errors.push_back(
          {name, {1, 1}, "file is not named by any list; expected every bundle file to be used"});
    }
  }
  CheckPolicy(ast, file, feature_names, errors);
  PolicyProgram program;
  if (errors.empty()) program = CompilePolicy(ast, std::move(lists), feature_names, file, errors);
  if (!errors.empty()) {
    Status status = InvalidArgument(JoinDiagnostics(errors), "policy");
    if (errors_out != nullptr) *errors_out = std::move(errors);
    return status;
  }

  BundleInfo info;
  info.name = ast.name;
  info.ref = PolicyRef{version, BundleSha256(source)};
  info.files.push_back({file, source.policy_text.size(), Sha256Hex(source.policy_text)});
  for (const auto& [name, body] : source.files) {
    info.files.push_back({name, body.size(), Sha256Hex(body)});
  }
  for (const CompiledList& list : program.lists) {
    info.lists.push_back({list.name, ListKindName(list.kind), list.size});
  }
  info.rules = program.rules.size();
  info.typologies = program.typologies.size();
  info.feature_names = program.feature_names;
  if (errors_out != nullptr) errors_out->clear();
  return CompiledPolicy::Create(std::move(program), std::move(info));
}

std::vector<Diagnostic> ValidateBundle(const BundleSource& source,
                                       std::span<const std::string_view> feature_names) {
  std::vector<Diagnostic> errors;
  auto compiled = CompileBundle(source, feature_names, &errors);
  if (!compiled.ok() && errors.empty())
    errors.push_back({source.policy_file, {1, 1}, compiled.status().message()});
  return errors;
}

Result<std::shared_ptr<const CompiledPolicy>> LoadBundle(
    const std::filesystem::path& path, std::span<const std::string_view> feature_names) {
  VERDICT_ASSIGN_OR_RETURN(BundleSource source, ReadBundle(path));
  return CompileBundle(source, feature_names);
}

void WriteBundleInfoJson(const BundleInfo& info, JsonWriter& out) {
  out.BeginObject();
  out.Key("name").String(info.name);
  out.Key("version").String(info.ref.version);
  out.Key("sha256").String(info.ref.sha256);
  out.Key("rules").Uint(info.rules);
  out.Key("typologies").Uint(info.typologies);
  out.Key("lists").BeginArray();
  for (const ListSummary& l : info.lists) {
    out.BeginObject().Key("name").String(l.name).Key("kind").String(l.kind);
    out.Key("entries").Uint(l.entries).EndObject();
  }
  out.EndArray();
  out.Key("files").BeginArray();
  for (const BundleFile& f : info.files) {
    out.BeginObject().Key("name").String(f.name).Key("bytes").Uint(f.bytes);
    out.Key("sha256").String(f.sha256).EndObject();
  }
  out.EndArray();
  out.Key("feature_schema").BeginArray();
  for (const std::string& f : info.feature_names) out.String(f);
  out.EndArray();
  out.EndObject();
}

void WriteDiagnosticsJson(const std::vector<Diagnostic>& errors, JsonWriter& out) {
  out.BeginArray();
  for (const Diagnostic& d : errors) {
    out.BeginObject().Key("file").String(d.file).Key("line").Int(d.pos.line);
    out.Key("column").Int(d.pos.column).Key("message").String(d.message).EndObject();
  }
  out.EndArray();
}

}  // namespace verdict
