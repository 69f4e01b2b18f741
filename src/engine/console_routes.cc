#include "engine/console_routes.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "api/error_response.h"

namespace verdict {
namespace {

// Refuse to hold anything unreasonable in memory: the console is a few hundred kilobytes.
constexpr uintmax_t kMaxFileBytes = uintmax_t{8} << 20;
constexpr size_t kMaxFiles = 512;

// Only same-origin scripts, styles and requests; no framing.
constexpr std::string_view kSecurityPolicy =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

Status ReadFile(const std::filesystem::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Internal("cannot read " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *out = std::move(buffer).str();
  return Status::Ok();
}

HttpResponse FileResponse(const StaticFile& file, bool immutable) {
  HttpResponse response;
  response.content_type = file.content_type;
  response.body = file.body;
  // Vite names assets by content hash, so they never change; the page itself must be fresh.
  response.headers.emplace_back("Cache-Control",
                                immutable ? "public, max-age=31536000, immutable" : "no-cache");
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Content-Security-Policy", std::string(kSecurityPolicy));
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  return response;
}

HttpResponse NotFoundResponse(std::string_view what) {
  return ErrorResponse(NotFound("no console file " + std::string(what.substr(0, 200))));
}

}  // namespace

std::string_view ContentTypeFor(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kTypes{{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
      {".woff2", "font/woff2"},
      {".webmanifest", "application/manifest+json"},
  }};
  for (const auto& [ext, type] : kTypes) {
    if (name.size() > ext.size() && name.ends_with(ext)) return type;
  }
  return "application/octet-stream";
}

Result<std::shared_ptr<const ConsoleFiles>> ConsoleFiles::Load(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / "index.html", ec)) {
    return NotFound("console directory '" + dir + "' has no index.html");
  }
  auto files = std::make_shared<ConsoleFiles>();
  // Depth 0 and 1 only: the routes have no deeper patterns.
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it.depth() >= 1) it.disable_recursion_pending();
    // Symbolic links are skipped: what is served is what the build put there.
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    if (it->file_size(ec) > kMaxFileBytes) {
      return InvalidArgument("console file too large: " + it->path().string());
    }
    if (files->files_.size() >= kMaxFiles) {
      return InvalidArgument("console directory '" + dir + "' holds too many files");
    }
    const std::string relative = fs::relative(it->path(), dir, ec).generic_string();
    if (ec) break;
    StaticFile file;
    file.content_type = std::string(ContentTypeFor(relative));
    VERDICT_RETURN_IF_ERROR(ReadFile(it->path(), &file.body));
    files->files_.emplace(relative, std::move(file));
  }
  if (ec) return Internal("reading console directory '" + dir + "': " + ec.message());
  return std::shared_ptr<const ConsoleFiles>(std::move(files));
}

const StaticFile* ConsoleFiles::Find(std::string_view relative_path) const {
  auto it = files_.find(relative_path);
  return it == files_.end() ? nullptr : &it->second;
}

std::string DefaultConsoleDir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path().parent_path() / "console";
  return fs::is_regular_file(dir / "index.html", ec) ? dir.string() : std::string();
}

void RegisterConsoleRoutes(std::shared_ptr<const ConsoleFiles> files, Router& router) {
  router.Add("GET", "/console", [](HttpRequest&&, Responder respond) {
    HttpResponse response;
    response.status = 301;
    response.content_type = "text/plain; charset=utf-8";
    response.body = "/console/\n";
    response.headers.emplace_back("Location", "/console/");
    respond(std::move(response));
  });
  router.Add("GET", "/console/", [files](HttpRequest&&, Responder respond) {
    const StaticFile* index = files->Find("index.html");
    respond(index ? FileResponse(*index, false) : NotFoundResponse("index.html"));
  });
  // Names are looked up in the table loaded at start-up, never opened: "..", "%2e%2e" or an
  // absolute path are just names that are not there.
  router.Add("GET", "/console/{file}", [files](HttpRequest&& request, Responder respond) {
    const std::string_view name = request.PathParam("file");
    const StaticFile* file = name.find('/') == std::string_view::npos ? files->Find(name) : nullptr;
    respond(file ? FileResponse(*file, false) : NotFoundResponse(name));
  });
  router.Add("GET", "/console/assets/{file}", [files](HttpRequest&& request, Responder respond) {
    const std::string name = "assets/" + std::string(request.PathParam("file"));
    const StaticFile* file = files->Find(name);
    respond(file ? FileResponse(*file, true) : NotFoundResponse(name));
  });
}

}  // namespace verdict
