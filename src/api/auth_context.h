// AuthContext: who made a request (tenant, principal, roles), filled by the server's
// authenticator before a route handler runs. Value type, copied freely; thread-compatible.
#pragma once

#include <cstdint>
#include <string>

namespace verdict {

// Roles as bits, so that one key can hold several. kPublic marks a route that needs no key
// (liveness, readiness); every other route names the one role it requires.
enum class Role : uint32_t {
  kPublic = 0,
  kScorer = 1u << 0,   // decide
  kAnalyst = 1u << 1,  // read decisions and cases
  kAdmin = 1u << 2,    // policies, models, keys
  kAuditor = 1u << 3,  // read and verify the journal
};

struct AuthContext {
  bool authenticated = false;
  std::string tenant;
  std::string principal;  // key id, or the client certificate's subject
  uint32_t roles = 0;     // bitwise OR of Role values

  bool Has(Role role) const {
    return role == Role::kPublic || (roles & static_cast<uint32_t>(role)) != 0;
  }
};

}  // namespace verdict
