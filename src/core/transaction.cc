#include "core/transaction.h"

namespace verdict {

std::string_view PriorityName(Priority priority) {
  switch (priority) {
    case Priority::kRealtime:
      return "realtime";
    case Priority::kStandard:
      return "standard";
    case Priority::kBulk:
      return "bulk";
  }
  return "standard";
}

}  // namespace verdict
