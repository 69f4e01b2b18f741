// AuthContext: who made a request (tenant, principal, roles), filled by the server's
// authenticator before a route handler runs. Value type, copied freely; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// A route open to several roles names their union, e.g. Role::kAnalyst | Role::kAdmin.
constexpr Role operator|(Role a, Role b) {
  return static_cast<Role>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}

// "scorer", "analyst", "admin", "auditor" (a single role); ParseRole is false for other names.
std::string_view RoleName(Role role);
bool ParseRole(std::string_view name, Role* role);

struct AuthContext {
  bool authenticated = false;
  std::string tenant;
  std::string principal;  // key id, or the client certificate's subject
  uint32_t roles = 0;     // bitwise OR of Role values

  // True when the caller holds any of the roles in `role` (a single role or a union).
  bool Has(Role role) const {
    return role == Role::kPublic || (roles & static_cast<uint32_t>(role)) != 0;
  }
};

}  // namespace verdict
