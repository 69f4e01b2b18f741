#include "lifecycle/model_set.h"

#include <cmath>
#include <string>

#include "common/hash.h"

namespace verdict::lifecycle {

std::string_view CandidateModeName(CandidateMode mode) {
  switch (mode) {
    case CandidateMode::kNone:
      return "none";
    case CandidateMode::kShadow:
      return "shadow";
    case CandidateMode::kCanary:
      return "canary";
  }
  return "none";
}

uint32_t CanaryBucket(std::string_view account) {
  // Salted so that canary buckets are independent of the account store's stripes.
  std::string key = "canary\x1f";
  key.append(account);
  return static_cast<uint32_t>(StableHash64(key) % 10000);
}

ModelSet::Assignment ModelSet::Assign(std::string_view sender_account) const {
  Assignment a;
  a.decider = primary.get();
  if (candidate == nullptr || mode == CandidateMode::kNone) return a;
  if (mode == CandidateMode::kCanary && primary != nullptr) {
    // In the canary when the bucket is below weight x 10,000 (docs/lifecycle.md); the slack
    // keeps a product such as 0.15 x 10,000 = 1500.0000000000002 from taking one bucket more.
    const auto cut = static_cast<uint32_t>(std::ceil(traffic_weight * 10000.0 - 1e-6));
    if (CanaryBucket(sender_account) < cut) {
      a.decider = candidate.get();
      a.observer = primary.get();
      a.candidate_decides = true;
      return a;
    }
  }
  if (mode == CandidateMode::kCanary && primary == nullptr) {
    // Without a primary there is nothing to fall back to: the candidate decides everything.
    a.decider = candidate.get();
    a.candidate_decides = true;
    return a;
  }
  a.observer = candidate.get();
  if (a.decider == nullptr) a.observer = nullptr;  // a shadow needs a primary to compare with
  return a;
}

}  // namespace verdict::lifecycle
