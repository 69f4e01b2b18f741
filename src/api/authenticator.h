// Authenticator: turns a request's credentials (Authorization header, TLS client certificate
// subject) into an AuthContext. Implementations are shared by all I/O threads and must be
// thread-safe; the Router holds a non-owning pointer.
#pragma once

#include <string_view>

#include "api/auth_context.h"
#include "common/result.h"

namespace verdict {

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // kUnauthenticated for a missing, malformed, unknown or revoked credential. The message is
  // safe to send to the client (it never echoes the credential).
  virtual Result<AuthContext> Authenticate(std::string_view authorization_header) const = 0;
};

// `verdict serve --insecure-dev`: no keys; every request is tenant "dev", principal "dev", with
// every role. Never for production; the server logs a warning at start-up.
class InsecureDevAuthenticator final : public Authenticator {
 public:
  Result<AuthContext> Authenticate(std::string_view) const override {
    AuthContext context;
    context.authenticated = true;
    context.tenant = "dev";
    context.principal = "dev";
    context.roles = static_cast<uint32_t>(Role::kScorer) | static_cast<uint32_t>(Role::kAnalyst) |
                    static_cast<uint32_t>(Role::kAdmin) | static_cast<uint32_t>(Role::kAuditor);
    return context;
  }
};

}  // namespace verdict
