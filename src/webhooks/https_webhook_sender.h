// HTTPS webhook deliveries: a WebhookSender over TLS (OpenSSL through Boost.Beast's
// ssl_stream), TLS 1.2 or later, the server's certificate verified against the system's
// trusted store or, when the endpoint names one, a `ca_file` of PEM certificates, and the
// certificate's name checked against the URL's host (its IP address for an IP literal). One
// kept-alive connection; a deadline on every call. Not thread-safe: each endpoint's worker owns
// its sender.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "webhooks/webhook_sender.h"

namespace verdict::webhooks {

// The parts of an https:// URL; the port 443 when it names none.
struct HttpsUrl {
  std::string host;
  std::string port;
  std::string target;  // path and query; "/" when none
};
Result<HttpsUrl> ParseHttpsUrl(std::string_view url);

// A sender for `url` (https://host[:port]/path). `ca_file` "": the system's trusted store.
// An unreadable or invalid `ca_file` is an error (kInvalidArgument, field "ca_file").
Result<std::unique_ptr<WebhookSender>> MakeHttpsWebhookSender(std::string_view url,
                                                              const std::string& ca_file);

}  // namespace verdict::webhooks
