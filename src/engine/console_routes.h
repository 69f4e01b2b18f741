// The analyst console's static files (web/, built into BUILD/console) served at /console/.
// The files are read once at start-up into memory; only those names are ever served, so no
// request path can reach outside the directory. Immutable after Load; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "api/router.h"
#include "common/result.h"

namespace verdict {

struct StaticFile {
  std::string content_type;
  std::string body;
};

class ConsoleFiles {
 public:
  // Reads every regular file of `dir` and of its subdirectories one level down (Vite's
  // index.html and assets/); kNotFound when `dir` has no index.html.
  static Result<std::shared_ptr<const ConsoleFiles>> Load(const std::string& dir);
  // "index.html", "assets/app-1234.js"; null when there is no such file.
  const StaticFile* Find(std::string_view relative_path) const;
  size_t size() const { return files_.size(); }

 private:
  std::map<std::string, StaticFile, std::less<>> files_;
};

// The media type for a file name's extension (application/octet-stream when unknown).
std::string_view ContentTypeFor(std::string_view file_name);

// The console directory beside the binary: <dir of the executable>/../console; empty when it
// does not exist.
std::string DefaultConsoleDir();

// GET /console (redirect), /console/, /console/{file}, /console/assets/{file}; public routes
// (the page itself holds no data; every API call it makes carries the analyst's key).
void RegisterConsoleRoutes(std::shared_ptr<const ConsoleFiles> files, Router& router);

}  // namespace verdict
