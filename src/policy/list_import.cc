#include "policy/list_import.h"

#include <simdjson.h>

#include "common/json_writer.h"
#include "policy/parser.h"

namespace verdict {

std::string ListImportJson(const ListImport& import) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("tenant").String(import.tenant).Key("list").String(import.list);
  w.Key("format").String(ListFormatName(import.format)).Key("version").String(import.version);
  w.Key("files").BeginArray();
  for (const std::string& f : import.files) w.String(f);
  w.EndArray().EndObject();
  return out;
}

Result<ListImport> ParseListImportJson(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::padded_string padded(body);
  if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    return InvalidArgument(std::string("body is not valid JSON: ") +
                           simdjson::error_message(error));
  }
  simdjson::dom::object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS) {
    return InvalidArgument("body must be a JSON object with tenant, list, format, version, files");
  }
  ListImport import;
  bool has_format = false;
  bool has_files = false;
  for (auto [key, value] : obj) {
    std::string_view s;
    if (key == "files") {
      simdjson::dom::array files;
      if (value.get_array().get(files) != simdjson::SUCCESS) {
        return InvalidArgument("files must be an array of file texts", "files");
      }
      for (simdjson::dom::element f : files) {
        if (f.get_string().get(s) != simdjson::SUCCESS) {
          return InvalidArgument("each file must be a string holding its text", "files");
        }
        import.files.emplace_back(s);
      }
      has_files = true;
      continue;
    }
    if (value.get_string().get(s) != simdjson::SUCCESS) {
      return InvalidArgument(std::string(key) + " must be a string", std::string(key));
    }
    if (key == "tenant") {
      import.tenant = std::string(s);
    } else if (key == "list") {
      import.list = std::string(s);
    } else if (key == "version") {
      import.version = std::string(s);
    } else if (key == "format") {
      std::optional<ListFormat> format = ListFormatFromName(s);
      if (!format) {
        return InvalidArgument(
            "format '" + std::string(s) + "'; expected opensanctions, ofac_sdn or un_consolidated",
            "format");
      }
      import.format = *format;
      has_format = true;
    } else {
      return InvalidArgument(
          "unknown field '" + std::string(key) + "'; expected tenant, list, format, version, files",
          std::string(key));
    }
  }
  if (import.tenant.empty()) return InvalidArgument("tenant is required", "tenant");
  if (import.list.empty()) return InvalidArgument("list is required", "list");
  if (import.version.empty()) return InvalidArgument("version is required", "version");
  if (!has_format) return InvalidArgument("format is required", "format");
  const size_t want = static_cast<size_t>(ListFormatFileCount(import.format));
  if (!has_files || import.files.size() != want) {
    return InvalidArgument("format " + std::string(ListFormatName(import.format)) + " takes " +
                               std::to_string(want) + " file(s)" +
                               (want == 2 ? " (sdn.csv, then alt.csv)" : "") + ", found " +
                               std::to_string(import.files.size()),
                           "files");
  }
  return import;
}

Result<BundleSource> WithImportedList(const BundleSource& bundle, const ListImport& import) {
  if (import.files.size() != static_cast<size_t>(ListFormatFileCount(import.format))) {
    return InvalidArgument("wrong number of files for the format", "files");
  }
  std::vector<Diagnostic> ignored;  // CompileBundle reports the policy's errors
  PolicyAst ast = ParsePolicy(bundle.policy_text, bundle.policy_file, ignored);
  for (const ListDecl& decl : ast.lists) {
    if (decl.name != import.list) continue;
    if (decl.kind != ListKind::kNames || decl.format != import.format || !decl.file) {
      const std::string declared = decl.format == ListFormat::kIdNameCsv
                                       ? "not from a published file"
                                       : "from " + std::string(ListFormatName(decl.format));
      return InvalidArgument("list @" + import.list + " is " + declared + "; expected `list " +
                                 import.list + " = names from " +
                                 std::string(ListFormatName(import.format)) + " ...`",
                             "format");
    }
    BundleSource out = bundle;
    out.files[*decl.file] = import.files[0];
    if (decl.second_file) out.files[*decl.second_file] = import.files[1];
    return out;
  }
  return InvalidArgument("the tenant's policy declares no list @" + import.list, "list");
}

std::string BundleJson(const BundleSource& source) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("version").String(source.version).Key("policy").String(source.policy_text);
  w.Key("files").BeginObject();
  for (const auto& [name, text] : source.files) w.Key(name).String(text);
  w.EndObject().EndObject();
  return out;
}

}  // namespace verdict
