// libFuzzer target: the HTTP request path. Arbitrary bytes go through the server's own parsing
// (ParseHttpRequest: Beast's request parser with the server's limits, then the conversion to
// HttpRequest), request after pipelined request, and each parsed request through a Router
// holding the real route table's patterns, roles and body types with stub handlers, behind a
// real KeyStore. Nothing may crash, hang or leak; every request gets exactly one response;
// a 401 never echoes the credential.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "api/http_server.h"
#include "api/router.h"
#include "security/key_store.h"

namespace {

using verdict::HttpRequest;
using verdict::HttpResponse;
using verdict::Responder;
using verdict::Role;

class MemoryStorage final : public verdict::security::KeyStorage {
 public:
  verdict::Status Put(std::string_view key, std::string_view value) override {
    values_[std::string(key)] = std::string(value);
    return verdict::Status::Ok();
  }
  verdict::Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const override {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : values_) {
      if (k.starts_with(prefix)) out.emplace_back(k, v);
    }
    return out;
  }

 private:
  std::map<std::string, std::string> values_;
};

struct Fixture {
  MemoryStorage storage;
  std::unique_ptr<verdict::security::KeyStore> keys;
  verdict::Router router;

  Fixture() {
    keys = std::move(verdict::security::KeyStore::Open(storage)).value();
    (void)keys->Create("bank-a", "", static_cast<uint32_t>(Role::kScorer), 0, "fuzz");
    router.SetAuthenticator(keys.get());
    const std::vector<std::string> json = {"application/json"};
    struct RouteSpec {
      const char* method;
      const char* pattern;
      Role role;
      bool json_body;
    };
    // The patterns, roles and body types of src/engine/*_routes.cc.
    static constexpr RouteSpec kRoutes[] = {
        {"GET", "/healthz", Role::kPublic, false},
        {"GET", "/readyz", Role::kPublic, false},
        {"GET", "/metrics", Role::kAdmin, false},
        {"POST", "/v1/decisions", Role::kScorer, true},
        {"POST", "/v1/decisions:batch", Role::kScorer, true},
        {"GET", "/v1/decisions/{decision_id}", Role::kAnalyst, false},
        {"GET", "/v1/transactions/{transaction_id}/decision", Role::kAnalyst, false},
        {"GET", "/v1/accounts/{account}/decisions", Role::kAnalyst, false},
        {"GET", "/v1/policy", Role::kAnalyst, false},
        {"POST", "/v1/policy:validate", Role::kAdmin, false},
        {"POST", "/v1/policy/ingest", Role::kAdmin, false},
        {"GET", "/v1/models", Role::kAnalyst, false},
        {"POST", "/v1/models", Role::kAdmin, true},
        {"POST", "/v1/models/{name}/{version}:activate", Role::kAdmin, true},
        {"POST", "/v1/models:rollback", Role::kAdmin, true},
        {"GET", "/v1/drift", Role::kAnalyst, false},
        {"POST", "/v1/drift:clear", Role::kAdmin, true},
        {"GET", "/v1/keys", Role::kAdmin, false},
        {"POST", "/v1/keys", Role::kAdmin, true},
        {"POST", "/v1/keys/{id}:revoke", Role::kAdmin, false},
    };
    for (const RouteSpec& spec : kRoutes) {
      verdict::RouteOptions options;
      options.role = spec.role;
      if (spec.json_body) options.content_types = json;
      router.Add(
          spec.method, spec.pattern,
          [](HttpRequest&& request, Responder respond) {
            HttpResponse response;
            for (const auto& [name, value] : request.path_params) response.body += name + value;
            respond(std::move(response));
          },
          options);
    }
  }
};

}  // namespace

HttpResponse DispatchOnce(Fixture& fixture, HttpRequest request, int* responses) {
  HttpResponse last;
  fixture.router.Dispatch(std::move(request), [&](HttpResponse response) {
    ++*responses;
    last = std::move(response);
  });
  return last;
}

// True when `body` is one of the refusals the server gives whatever the credential is (a
// credential that happens to be part of such a fixed text, which the fuzzer's dictionary
// produces, is not a leak): the same request with placeholder credentials of each kind.
bool IsFixedRefusal(Fixture& fixture, const HttpRequest& request, const std::string& body) {
  for (const char* placeholder :
       {"", "Basic placeholder", "Bearer placeholder",
        "Bearer vk_0000000000000000_"
        "0000000000000000000000000000000000000000000000000000000000000000"}) {
    HttpRequest variant = request;
    for (auto& [name, value] : variant.headers) {
      if (name == "authorization") value = placeholder;
    }
    int responses = 0;
    if (DispatchOnce(fixture, std::move(variant), &responses).body == body) return true;
  }
  return false;
}

// Whether two parses of the same bytes came to the same request, or both to none. (Which
// refusal, or a refusal against waiting for more, may depend on how malformed bytes arrive:
// Beast judges a bad start line once it has the whole header block or all the bytes.)
bool SameOutcome(const verdict::ParsedHttpRequest& a, const verdict::ParsedHttpRequest& b) {
  if (a.complete != b.complete) return false;
  if (!a.complete) return true;
  return a.consumed == b.consumed && a.request.method == b.request.method &&
         a.request.path == b.request.path && a.request.query == b.request.query &&
         a.request.headers == b.request.headers && a.request.body == b.request.body;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fixture = new Fixture();
  std::string_view input(reinterpret_cast<const char*>(data), size);

  // The smallest limits the configuration allows, so that short inputs reach them.
  verdict::HttpServerOptions tight;
  tight.max_header_bytes = 1024;
  tight.max_body_bytes = 1024;
  verdict::ParsedHttpRequest small = verdict::ParseHttpRequest(input, tight);
  if (small.consumed > input.size()) __builtin_trap();

  // The server's default limits, request after pipelined request, as one connection reads.
  const verdict::HttpServerOptions defaults;
  std::string_view rest = input;
  while (!rest.empty()) {
    verdict::ParsedHttpRequest parsed = verdict::ParseHttpRequest(rest, defaults);
    if (parsed.consumed > rest.size()) __builtin_trap();
    // Arriving in pieces, as over a socket, parses the same request. (Only well inside the
    // limits: near them Beast's header limit depends on how the bytes arrive.)
    if (rest.size() < defaults.max_header_bytes) {
      for (size_t piece : {size_t{1}, size_t{7}, size_t{64}}) {
        if (!SameOutcome(parsed, verdict::ParseHttpRequest(rest, defaults, piece))) {
          __builtin_trap();
        }
      }
    }
    if (!parsed.complete) {
      if (parsed.error_status != 0 && parsed.error_status != 400 && parsed.error_status != 413 &&
          parsed.error_status != 431) {
        __builtin_trap();
      }
      break;
    }
    if (parsed.consumed == 0) __builtin_trap();  // a whole request takes at least one byte
    rest.remove_prefix(parsed.consumed);

    const std::string credential(parsed.request.Header("authorization"));
    const HttpRequest original = parsed.request;
    int responses = 0;
    HttpResponse last = DispatchOnce(*fixture, std::move(parsed.request), &responses);
    if (responses != 1) __builtin_trap();
    if (last.status < 200 || last.status > 599) __builtin_trap();
    if (last.status == 401 && credential.size() >= 12 &&
        last.body.find(credential) != std::string::npos &&
        !IsFixedRefusal(*fixture, original, last.body)) {
      __builtin_trap();  // the refusal echoes the credential
    }
  }
  return 0;
}
