#include "features/counterparty_risk.h"

#include <algorithm>
#include <cmath>

namespace verdict {
namespace {

// The factor a level fades by from `since_s` to `now_s`: 2^(-elapsed / half-life); 1 when the
// time does not move forward (a late event neither fades nor rewinds the levels).
double FadeFactor(uint32_t since_s, uint32_t now_s, const FeatureOptions& options) {
  if (now_s <= since_s) return 1.0;
  const double half_life_s = static_cast<double>(options.unusual_half_life_us) / kUsPerSecond;
  return std::exp2(-static_cast<double>(now_s - since_s) / half_life_s);
}

// Fades the stored levels to `now_s` and moves their time there (never backwards).
void FadeTo(AccountState& account, uint32_t now_s, const FeatureOptions& options) {
  StateHeader& h = account.mutable_header();
  const double factor = FadeFactor(h.risk_s, now_s, options);
  h.unusual = static_cast<float>(h.unusual * factor);
  h.peer_unusual = static_cast<float>(h.peer_unusual * factor);
  h.risk_s = std::max(h.risk_s, now_s);
}

}  // namespace

bool IsUnusualTransfer(const AccountState& sender, uint32_t receiver_hash, int64_t timestamp_us,
                       double sender_log_zscore, const FeatureOptions& options) {
  if (std::abs(sender_log_zscore) > options.unusual_log_zscore) return true;
  const PeerEntry* peer = FindPeer(sender.out(), receiver_hash);
  if (peer == nullptr) return false;
  const int64_t now_s = timestamp_us / kUsPerSecond;
  const int64_t window_s = options.unusual_repeat_window_us / kUsPerSecond;
  // The peer's last transfer inside (t - window, t]; a newer one (this is a late event) does
  // not count, since the repeat must come before.
  const int64_t last_s = peer->last_s;
  return last_s > now_s - window_s && last_s <= now_s;
}

RiskLevels ReadRisk(const AccountState& account, int64_t timestamp_us,
                    const FeatureOptions& options) {
  const StateHeader& h = account.header();
  const double factor = FadeFactor(h.risk_s, ToUnixSeconds(timestamp_us), options);
  return RiskLevels{h.unusual * factor, h.peer_unusual * factor};
}

void ApplyRisk(AccountState& sender, AccountState& receiver, bool unusual, int64_t timestamp_us,
               const FeatureOptions& options) {
  const uint32_t now_s = ToUnixSeconds(timestamp_us);
  FadeTo(sender, now_s, options);
  if (&receiver == &sender) {
    if (unusual) sender.mutable_header().unusual += 1;
    return;
  }
  FadeTo(receiver, now_s, options);
  StateHeader& s = sender.mutable_header();
  StateHeader& r = receiver.mutable_header();
  if (unusual) {
    s.unusual += 1;
    r.unusual += 1;
  }
  s.peer_unusual = std::max(s.peer_unusual, r.unusual);
  r.peer_unusual = std::max(r.peer_unusual, s.unusual);
}

}  // namespace verdict
