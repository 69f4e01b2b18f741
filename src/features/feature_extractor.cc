#include "features/feature_extractor.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "features/counterparty_risk.h"
#include "features/cycle_index.h"

namespace verdict {

namespace {

constexpr int64_t kWindowUs[4] = {kUsPerHour, kUsPerDay, 7 * kUsPerDay, 30 * kUsPerDay};

struct SideWindows {
  double count[4] = {};
  double sum[4] = {};
  double max[4] = {};
  double near_count_24h = 0;
  double near_sum_24h = 0;
  double near_count_7d = 0;
  double round_count_24h = 0;
};

// Windows are (t - L, t]. Exact events count in every window they fall in; buckets (events
// older than 24 h + tolerance) count in the 7 d and 30 d windows when they start inside them.
void QueryWindows(ConstSideView side, int64_t t, SideWindows* w) {
  for (const RecentEvent& e : side.recent()) {
    if (e.timestamp_us > t) break;
    const int64_t age = t - e.timestamp_us;
    const double amount = e.amount_usd;
    for (int i = 0; i < 4; ++i) {
      if (age >= kWindowUs[i]) continue;
      w->count[i] += 1;
      w->sum[i] += amount;
      w->max[i] = std::max(w->max[i], amount);
    }
    if (age < kUsPerDay) {
      if (e.flags & kEventNear) {
        w->near_count_24h += 1;
        w->near_sum_24h += amount;
      }
      if (e.flags & kEventRound) w->round_count_24h += 1;
    }
    if (age < 7 * kUsPerDay && (e.flags & kEventNear)) w->near_count_7d += 1;
  }
  for (const WindowBucket& b : side.buckets()) {
    if (BucketStartUs(b) > t) continue;
    const int64_t start = BucketEffectiveStartUs(b, t);
    // Hour buckets (a busy side's overflow) count in every window they start in; day and week
    // buckets only in the 7 d and 30 d windows.
    const bool hour = b.level >= kLevelFirstHour;
    for (int i = hour ? 0 : 2; i < 4; ++i) {
      if (start <= t - kWindowUs[i]) continue;
      w->count[i] += b.count;
      w->sum[i] += b.sum;
      w->max[i] = std::max(w->max[i], static_cast<double>(b.max));
    }
    if (hour && start > t - kUsPerDay) {
      w->near_count_24h += b.near_count;
      w->round_count_24h += b.round_count;
    }
    if (start > t - 7 * kUsPerDay) w->near_count_7d += b.near_count;
  }
}

struct PeerWindows {
  double distinct[3] = {};  // 24 h, 7 d, 30 d
  double new_share_7d = 0;
};

void QueryPeers(ConstSideView side, int64_t t, PeerWindows* p) {
  const int64_t now_s = t / kUsPerSecond;
  double new_7d = 0;
  for (const PeerEntry& e : side.peers()) {
    if (e.first_s > now_s) continue;
    for (int i = 0; i < 3; ++i) {
      if (static_cast<int64_t>(e.last_s) > now_s - kWindowUs[i + 1] / kUsPerSecond) {
        p->distinct[i] += 1;
      }
    }
    if (static_cast<int64_t>(e.first_s) > now_s - 7 * kUsPerDay / kUsPerSecond) new_7d += 1;
  }
  p->new_share_7d = p->distinct[1] > 0 ? new_7d / p->distinct[1] : 0;
}

double HoursSince(int64_t last_us, int64_t t) {
  if (last_us == kNever) return -1;
  return static_cast<double>(std::max<int64_t>(0, t - last_us)) / static_cast<double>(kUsPerHour);
}

double DaysSince(int64_t since_us, int64_t t) {
  if (since_us == kNever) return -1;
  return static_cast<double>(std::max<int64_t>(0, t - since_us)) / static_cast<double>(kUsPerDay);
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

double LogZscore(ConstSideView side, double amount_usd) {
  const SideScalars& s = side.scalars();
  if (s.last_us == kNever) return 0;
  const double sd = std::sqrt(static_cast<double>(s.ew_var) + 1e-4);
  return (std::log1p(amount_usd) - s.ew_mean) / sd;
}

template <size_t N>
double CodeOf(const std::array<std::string_view, N>& codes, std::string_view text) {
  if (text.empty()) return 0;
  char lower[16];
  if (text.size() > sizeof(lower)) return N - 1;
  for (size_t i = 0; i < text.size(); ++i) {
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  const std::string_view key(lower, text.size());
  for (size_t i = 1; i < N; ++i) {
    if (codes[i] == key) return static_cast<double>(i);
  }
  return static_cast<double>(N - 1);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

void FillSide(const SideWindows& w, FeatureVector& f, size_t first_velocity) {
  for (int i = 0; i < 4; ++i) {
    f[first_velocity + 3 * i] = w.count[i];
    f[first_velocity + 3 * i + 1] = w.sum[i];
    f[first_velocity + 3 * i + 2] = w.max[i];
  }
}

}  // namespace

std::string_view PartyCountry(const Party& party) {
  if (!party.country.empty()) return party.country;
  const std::string& bic = party.ref.bank;
  if ((bic.size() == 8 || bic.size() == 11) && std::isupper(static_cast<unsigned char>(bic[4])) &&
      std::isupper(static_cast<unsigned char>(bic[5]))) {
    return std::string_view(bic).substr(4, 2);
  }
  return {};
}

Result<std::unique_ptr<FeatureExtractor>> FeatureExtractor::Create(const FeatureOptions& options) {
  VERDICT_RETURN_IF_ERROR(options.Validate());
  return std::make_unique<FeatureExtractor>(options);
}

FeatureExtractor::FeatureExtractor(FeatureOptions options) : options_(std::move(options)) {
  for (const std::string& c : options_.high_risk_countries) {
    if (c.size() == 2 && c[0] >= 'A' && c[0] <= 'Z' && c[1] >= 'A' && c[1] <= 'Z') {
      high_risk_.set(static_cast<size_t>((c[0] - 'A') * 26 + (c[1] - 'A')));
    }
  }
}

bool FeatureExtractor::IsHighRisk(std::string_view c) const {
  if (c.size() != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z') return false;
  return high_risk_.test(static_cast<size_t>((c[0] - 'A') * 26 + (c[1] - 'A')));
}

bool FeatureExtractor::IsNearThreshold(double amount_usd) const {
  for (double t : options_.reporting_thresholds_usd) {
    if (amount_usd >= t * (1 - options_.threshold_band) && amount_usd < t) return true;
  }
  return false;
}

bool FeatureExtractor::IsRound(const Money& amount) const {
  if (!amount.valid() || amount.minor_units() == 0) return false;
  int64_t unit = options_.round_multiple_major;
  for (int i = 0; i < amount.currency().minor_digits; ++i) unit *= 10;
  return amount.minor_units() % unit == 0;
}

FeatureCounters FeatureExtractor::counters() const {
  FeatureCounters c;
  c.transactions = transactions_.load(std::memory_order_relaxed);
  c.late_events = late_events_.load(std::memory_order_relaxed);
  c.recent_overflow = recent_overflow_.load(std::memory_order_relaxed);
  c.unknown_currency = unknown_currency_.load(std::memory_order_relaxed);
  return c;
}

void FeatureExtractor::Extract(const Transaction& txn, const AccountState& sender,
                               const AccountState& receiver, FeatureVector* out) const {
  FeatureVector& f = *out;
  const int64_t t = txn.timestamp_us;
  const double usd = options_.fx.ToUsd(txn.amount);
  const std::string_view sender_country = PartyCountry(txn.sender);
  const std::string_view receiver_country = PartyCountry(txn.receiver);

  f[kAmount] = txn.amount.valid() ? txn.amount.ToMajor() : 0;
  f[kAmountUsd] = usd;
  f[kAmountIsRound] = IsRound(txn.amount);
  f[kAmountNearThreshold] = IsNearThreshold(usd);
  f[kCrossBorder] =
      !sender_country.empty() && !receiver_country.empty() && sender_country != receiver_country;
  f[kSenderHighRiskCountry] = IsHighRisk(sender_country);
  f[kReceiverHighRiskCountry] = IsHighRisk(receiver_country);
  f[kChannelCode] = CodeOf(kChannelCodes, txn.channel);
  f[kTypeCode] = CodeOf(kTypeCodes, txn.type);
  const int64_t day = FloorDiv(t, kUsPerDay);
  f[kHourOfDay] = static_cast<double>(FloorDiv(t - day * kUsPerDay, kUsPerHour));
  const int64_t weekday = ((day + 3) % 7 + 7) % 7;  // 1970-01-01 was a Thursday; Monday = 0
  f[kDayOfWeek] = static_cast<double>(weekday);
  f[kIsWeekend] = weekday >= 5;
  const int64_t tol = options_.late_tolerance_us;
  f[kLateEvent] = (sender.last_seen_us() != kNever && t < sender.last_seen_us() - tol) ||
                  (receiver.last_seen_us() != kNever && t < receiver.last_seen_us() - tol);

  SideWindows s_out, s_in, r_in, r_out;
  QueryWindows(sender.out(), t, &s_out);
  QueryWindows(sender.in(), t, &s_in);
  QueryWindows(receiver.in(), t, &r_in);
  QueryWindows(receiver.out(), t, &r_out);

  FillSide(s_out, f, kSenderOutCount1h);
  f[kSenderAmountRatioMean30d] = Ratio(usd, Ratio(s_out.sum[3], s_out.count[3]));
  f[kSenderAmountRatioMax30d] = Ratio(usd, s_out.max[3]);
  f[kSenderAmountLogZscore] = LogZscore(sender.out(), usd);
  f[kSenderNearThresholdCount24h] = s_out.near_count_24h;
  f[kSenderNearThresholdSum24h] = s_out.near_sum_24h;
  f[kSenderNearThresholdCount7d] = s_out.near_count_7d;
  f[kSenderRoundCount24h] = s_out.round_count_24h;

  const uint32_t receiver_hash = AccountHash32(txn.receiver.ref.account);
  PeerWindows s_peers, r_peers;
  QueryPeers(sender.out(), t, &s_peers);
  QueryPeers(receiver.in(), t, &r_peers);
  f[kPairFirstTime] = FindPeer(sender.out(), receiver_hash) == nullptr;
  f[kSenderDistinctReceivers24h] = s_peers.distinct[0];
  f[kSenderDistinctReceivers7d] = s_peers.distinct[1];
  f[kSenderDistinctReceivers30d] = s_peers.distinct[2];
  f[kSenderNewReceiverShare7d] = s_peers.new_share_7d;

  f[kSenderInCount24h] = s_in.count[1];
  f[kSenderInSum24h] = s_in.sum[1];
  f[kSenderPassThroughRatio24h] = Ratio(usd, s_in.sum[1]);
  f[kSenderHoursSinceLastIn] = HoursSince(sender.in().scalars().last_us, t);
  f[kSenderHoursSinceLastOut] = HoursSince(sender.out().scalars().last_us, t);
  f[kSenderDaysSinceLastActivity] = DaysSince(sender.last_seen_us(), t);
  f[kSenderAccountAgeDays] = std::max(0.0, DaysSince(sender.first_seen_us(), t));

  FillSide(r_in, f, kReceiverInCount1h);
  f[kReceiverAmountRatioMean30d] = Ratio(usd, Ratio(r_in.sum[3], r_in.count[3]));
  f[kReceiverAmountRatioMax30d] = Ratio(usd, r_in.max[3]);
  f[kReceiverAmountLogZscore] = LogZscore(receiver.in(), usd);
  f[kReceiverNearThresholdCount24h] = r_in.near_count_24h;
  f[kReceiverNearThresholdSum24h] = r_in.near_sum_24h;
  f[kReceiverNearThresholdCount7d] = r_in.near_count_7d;
  f[kReceiverDistinctSenders24h] = r_peers.distinct[0];
  f[kReceiverDistinctSenders7d] = r_peers.distinct[1];
  f[kReceiverDistinctSenders30d] = r_peers.distinct[2];
  f[kReceiverNewSenderShare7d] = r_peers.new_share_7d;
  f[kReceiverOutSum24h] = r_out.sum[1];
  f[kReceiverHoursSinceLastOut] = HoursSince(receiver.out().scalars().last_us, t);
  f[kReceiverDaysSinceLastActivity] = DaysSince(receiver.last_seen_us(), t);
  f[kReceiverAccountAgeDays] = std::max(0.0, DaysSince(receiver.first_seen_us(), t));

  CycleHits cycles;
  if (&sender != &receiver) cycles = DetectCycles(sender, receiver_hash, t, options_);
  f[kClosesCycle2] = cycles.length2;
  f[kClosesCycle3] = cycles.length3;
  f[kClosesCycle4] = cycles.length4;

  const RiskLevels sender_risk = ReadRisk(sender, t, options_);
  const RiskLevels receiver_risk = ReadRisk(receiver, t, options_);
  f[kSenderUnusualTransfers] = sender_risk.own;
  f[kReceiverUnusualTransfers] = receiver_risk.own;
  f[kSenderPeerUnusualMax] = sender_risk.peer_max;
  f[kReceiverPeerUnusualMax] = receiver_risk.peer_max;
}

void FeatureExtractor::Apply(const Transaction& txn, AccountState& sender,
                             AccountState& receiver) const {
  const int64_t t = txn.timestamp_us;
  if (txn.amount.valid() && !options_.fx.HasRate(txn.amount.currency().code)) {
    unknown_currency_.fetch_add(1, std::memory_order_relaxed);
  }
  const double usd_double = options_.fx.ToUsd(txn.amount);
  const float usd = static_cast<float>(usd_double);
  uint32_t flags = 0;
  if (IsNearThreshold(usd_double)) flags |= kEventNear;
  if (IsRound(txn.amount)) flags |= kEventRound;
  const int64_t tol = options_.late_tolerance_us;
  if ((sender.last_seen_us() != kNever && t < sender.last_seen_us() - tol) ||
      (receiver.last_seen_us() != kNever && t < receiver.last_seen_us() - tol)) {
    late_events_.fetch_add(1, std::memory_order_relaxed);
  }
  const uint32_t sender_hash = AccountHash32(txn.sender.ref.account);
  const uint32_t receiver_hash = AccountHash32(txn.receiver.ref.account);
  // From the state before this transfer, as Extract saw it.
  const bool unusual =
      IsUnusualTransfer(sender, receiver_hash, t, LogZscore(sender.out(), usd_double), options_);

  PropagatePaths(sender, receiver, receiver_hash, t, options_);
  ApplyRisk(sender, receiver, unusual, t, options_);
  for (AccountState* a : {&sender, &receiver}) {
    const int64_t first = a->first_seen_us();
    a->set_first_seen_us(first == kNever ? t : std::min(first, t));
    a->set_last_seen_us(std::max(a->last_seen_us(), t));
  }
  uint32_t overflow = AddToSide(sender.out(), t, usd, flags, sender.last_seen_us(), options_);
  TouchPeer(sender.out(), receiver_hash, t, sender.last_seen_us(), options_);
  overflow += AddToSide(receiver.in(), t, usd, flags, receiver.last_seen_us(), options_);
  TouchPeer(receiver.in(), sender_hash, t, receiver.last_seen_us(), options_);
  if (overflow > 0) recent_overflow_.fetch_add(overflow, std::memory_order_relaxed);
  transactions_.fetch_add(1, std::memory_order_relaxed);
}

FeatureExtractor& DefaultFeatureExtractor() {
  static FeatureExtractor* extractor = new FeatureExtractor();
  return *extractor;
}

void ExtractFeatures(const Transaction& txn, const AccountState& sender,
                     const AccountState& receiver, FeatureVector* out) {
  DefaultFeatureExtractor().Extract(txn, sender, receiver, out);
}

void ApplyTransaction(const Transaction& txn, AccountState& sender, AccountState& receiver) {
  DefaultFeatureExtractor().Apply(txn, sender, receiver);
}

}  // namespace verdict
