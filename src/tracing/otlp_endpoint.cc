#include "tracing/otlp_endpoint.h"

#include <charconv>

namespace verdict::tracing {

Result<OtlpEndpoint> ParseOtlpEndpoint(std::string_view url, std::string_view field) {
  const std::string name(field);
  auto invalid = [&](std::string_view why) {
    return InvalidArgument(name + " must be http://HOST:PORT/v1/traces (" + std::string(why) + ")",
                           name);
  };
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) return invalid("only plain http is supported");
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return invalid("no path");
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = rest.substr(slash);
  if (path.find_first_of("?# ") != std::string_view::npos) return invalid("a path only");
  if (authority.find('@') != std::string_view::npos) return invalid("no user info");
  std::string_view host;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos || authority.substr(close + 1, 1) != ":") {
      return invalid("bad IPv6 address or no port");
    }
    host = authority.substr(1, close - 1);
    port = authority.substr(close + 2);
  } else {
    const size_t colon = authority.rfind(':');
    if (colon == std::string_view::npos) return invalid("no port");
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return invalid("bracket an IPv6 address");
  }
  int number = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (host.empty() || port.empty() || error != std::errc() || end != port.data() + port.size() ||
      number < 1 || number > 65535) {
    return invalid("bad host or port");
  }
  return OtlpEndpoint{std::string(host), std::string(port), std::string(path)};
}

}  // namespace verdict::tracing
