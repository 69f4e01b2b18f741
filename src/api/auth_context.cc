#include "api/auth_context.h"

namespace verdict {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kScorer:
      return "scorer";
    case Role::kAnalyst:
      return "analyst";
    case Role::kAdmin:
      return "admin";
    case Role::kAuditor:
      return "auditor";
    default:
      return "public";
  }
}

bool ParseRole(std::string_view name, Role* role) {
  for (Role r : {Role::kScorer, Role::kAnalyst, Role::kAdmin, Role::kAuditor}) {
    if (name == RoleName(r)) {
      *role = r;
      return true;
    }
  }
  return false;
}

}  // namespace verdict
