#include "core/decision.h"

namespace verdict {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kAllow:
      return "allow";
    case Outcome::kReview:
      return "review";
    case Outcome::kBlock:
      return "block";
  }
  return "allow";
}

std::string_view DecisionPathName(DecisionPath path) {
  return path == DecisionPath::kModel ? "model" : "fallback";
}

}  // namespace verdict
