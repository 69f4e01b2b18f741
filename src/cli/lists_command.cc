#include "cli/lists_command.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "policy/list_file.h"
#include "policy/list_import.h"
#include "policy/published_list.h"

namespace verdict {
namespace {

struct ListsImportFlags {
  std::string format;
  std::string list;
  std::string tenant;
  std::string version;
  std::vector<std::string> files;
  std::string url = "http://127.0.0.1:8080";
  std::string api_key_file;
  std::string out;  // write the request body here instead of sending it
};

bool ReadListFile(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

// The readers the engine runs, here first: every error with file and line, nothing sent.
bool ValidateListFiles(ListFormat format, const std::vector<std::string>& names,
                       const std::vector<std::string>& texts, size_t& targets) {
  std::vector<Diagnostic> errors;
  std::vector<ListTarget> read;
  switch (format) {
    case ListFormat::kOpenSanctions:
      read = ParseOpenSanctionsCsv({names[0], texts[0]}, errors);
      break;
    case ListFormat::kOfacSdn:
      read = ParseOfacSdn({names[0], texts[0]}, {names[1], texts[1]}, errors);
      break;
    case ListFormat::kUnConsolidated:
      read = ParseUnConsolidatedXml({names[0], texts[0]}, errors);
      break;
    case ListFormat::kIdNameCsv:
      break;
  }
  for (const Diagnostic& d : errors) std::fprintf(stderr, "%s\n", d.ToString().c_str());
  targets = read.size();
  return errors.empty();
}

// POSTs `body` to http://host:port/path over a plain connection ("Connection: close") and
// returns the status code (0 when the engine cannot be reached) and the response body.
int PostListImport(const std::string& url, const std::string& path, const std::string& api_key,
                   const std::string& body, std::string& response_body) {
  const std::string prefix = "http://";
  if (url.rfind(prefix, 0) != 0) {
    std::fprintf(stderr,
                 "--url %s: expected http://HOST:PORT (for https, write the body with "
                 "--out and send it with curl)\n",
                 url.c_str());
    return 0;
  }
  std::string host_port = url.substr(prefix.size());
  while (!host_port.empty() && host_port.back() == '/') host_port.pop_back();
  const size_t colon = host_port.rfind(':');
  const std::string host = colon == std::string::npos ? host_port : host_port.substr(0, colon);
  const std::string port = colon == std::string::npos ? "80" : host_port.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
    std::fprintf(stderr, "cannot resolve %s\n", host_port.c_str());
    return 0;
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, freeaddrinfo);
  const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  // A large list takes the engine a few seconds to compile; an engine that never answers
  // must not hang the command.
  const timeval timeout{120, 0};
  if (fd >= 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  }
  if (fd < 0 || connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    if (fd >= 0) close(fd);
    std::fprintf(stderr, "cannot connect to %s\n", host_port.c_str());
    return 0;
  }
  std::string request = "POST " + path + " HTTP/1.1\r\nHost: " + host_port +
                        "\r\nContent-Type: application/json\r\nConnection: close\r\n";
  if (!api_key.empty()) request += "Authorization: Bearer " + api_key + "\r\n";
  request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      close(fd);
      std::fprintf(stderr, "the connection to %s closed while sending\n", host_port.c_str());
      return 0;
    }
    sent += static_cast<size_t>(n);
  }
  std::string response;
  char buf[8192];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;)
    response.append(buf, static_cast<size_t>(n));
  close(fd);
  // "HTTP/1.1 200 OK\r\n...\r\n\r\nbody" (the engine sends a Content-Length body).
  const size_t space = response.find(' ');
  const size_t head_end = response.find("\r\n\r\n");
  if (space == std::string::npos || head_end == std::string::npos) {
    std::fprintf(stderr, "no HTTP response from %s\n", host_port.c_str());
    return 0;
  }
  response_body = response.substr(head_end + 4);
  return std::atoi(response.c_str() + space + 1);
}

int RunListsImport(const ListsImportFlags& flags) {
  std::optional<ListFormat> format = ListFormatFromName(flags.format);
  if (!format) {
    std::fprintf(stderr, "--format %s: expected opensanctions, ofac_sdn or un_consolidated\n",
                 flags.format.c_str());
    return 1;
  }
  const size_t want = static_cast<size_t>(ListFormatFileCount(*format));
  if (flags.files.size() != want) {
    std::fprintf(stderr, "%s takes %zu file(s)%s, found %zu\n", flags.format.c_str(), want,
                 want == 2 ? " (sdn.csv, then alt.csv)" : "", flags.files.size());
    return 1;
  }
  ListImport import{flags.tenant, flags.list, *format, flags.version, {}};
  for (const std::string& path : flags.files) {
    std::string text;
    if (!ReadListFile(path, text)) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
    import.files.push_back(std::move(text));
  }
  size_t targets = 0;
  if (!ValidateListFiles(*format, flags.files, import.files, targets)) {
    std::fprintf(stderr, "the list was not sent: fix the errors above\n");
    return 1;
  }
  const std::string body = ListImportJson(import);
  if (!flags.out.empty()) {
    std::ofstream out(flags.out, std::ios::binary);
    out << body;
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", flags.out.c_str());
      return 2;
    }
    std::printf("%zu targets read; request body for POST /v1/lists/import written to %s\n", targets,
                flags.out.c_str());
    return 0;
  }
  std::string api_key;
  if (!flags.api_key_file.empty()) {
    if (!ReadListFile(flags.api_key_file, api_key)) {
      std::fprintf(stderr, "cannot read %s\n", flags.api_key_file.c_str());
      return 2;
    }
    while (!api_key.empty() && (api_key.back() == '\n' || api_key.back() == '\r'))
      api_key.pop_back();
  }
  std::string response;
  const int status = PostListImport(flags.url, "/v1/lists/import", api_key, body, response);
  if (status == 0) return 2;
  std::printf("%s\n", response.c_str());
  if (status != 200) {
    std::fprintf(stderr, "the engine refused the list (HTTP %d)\n", status);
    return 1;
  }
  return 0;
}

}  // namespace

void RegisterListsCommand(CLI::App& app) {
  CLI::App* lists = app.add_subcommand("lists", "Published sanctions lists");
  lists->require_subcommand(1);
  auto flags = std::make_shared<ListsImportFlags>();
  CLI::App* import = lists->add_subcommand(
      "import", "Send a new version of a list to a running engine (POST /v1/lists/import)");
  import->add_option("--format", flags->format, "opensanctions, ofac_sdn or un_consolidated")
      ->required();
  import->add_option("--list", flags->list, "the list's name in the tenant's policy")->required();
  import->add_option("--tenant", flags->tenant, "the tenant whose policy declares the list")
      ->required();
  import->add_option("--version", flags->version, "the list's version, e.g. its publication date")
      ->required();
  import->add_option("files", flags->files, "the list file(s); ofac_sdn: sdn.csv alt.csv")
      ->required();
  import->add_option("--url", flags->url, "the engine, http://HOST:PORT");
  import->add_option("--api-key-file", flags->api_key_file, "a file holding an admin API key");
  import->add_option("--out", flags->out, "write the request body here instead of sending it");
  import->callback([flags] {
    const int status = RunListsImport(*flags);
  if (status != 0) throw CLI::RuntimeError(status);
});
}  // namespace verdict

}  // namespace verdict
