// Policy benchmarks: evaluation of a 100-rule compiled policy per transaction, and watchlist
// screening against 100,000 synthetic names. Figures in docs/PERFORMANCE.md (Policy).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/currency.h"
#include "core/transaction.h"
#include "features/feature_vector.h"
#include "policy/name_normalizer.h"
#include "policy/pattern_set.h"
#include "policy/policy_bundle.h"
#include "policy/watchlist.h"

namespace verdict {
namespace {

// 100 rules over the real feature schema: thresholds with and/or, money bands (with an FX
// rate), list membership, model-score bands, functions; 10 typologies of 5 rules each.
std::string HundredRulePolicy() {
  std::string p = "policy \"bench\" version \"1\"\n";
  p += "list hr = countries [\"IR\", \"KP\", \"SY\", \"MM\", \"YE\", \"AF\"]\n";
  p += "list ch = strings [\"cash\", \"atm\", \"crypto\"]\n";
  p += "list bad = accounts [\"ACC-X1\", \"ACC-X2\", \"ACC-X3\"]\n";
  p += "rate 1 EUR = 1.08 USD\n";
  const char* f[] = {"sender_out_count_1h",   "sender_out_sum_1h",    "sender_out_count_24h",
                     "sender_out_sum_24h",    "receiver_in_count_1h", "receiver_in_sum_1h",
                     "receiver_in_count_24h", "receiver_in_sum_24h"};
  char buf[512];
  for (int i = 0; i < 100; ++i) {
    const char* a = f[i % 8];
    const char* b = f[(i + 3) % 8];
    switch (i % 5) {
      case 0:
        std::snprintf(buf, sizeof(buf), "%s >= %d and %s > %d", a, 50 + i, b, 1000 + i);
        break;
      case 1:
        std::snprintf(buf, sizeof(buf), "txn.amount >= %d USD and txn.amount < %d USD and %s > 3",
                      20000 + 100 * i, 30000 + 100 * i, a);
        break;
      case 2:
        std::snprintf(buf, sizeof(buf),
                      "txn.receiver.country in @hr or txn.sender.account in @bad or %s > %d", a,
                      100000 + i);
        break;
      case 3:
        std::snprintf(buf, sizeof(buf), "model.score >= 0.%02d and %s > %d", 90 + i % 10, a, 5 + i);
        break;
      default:
        std::snprintf(buf, sizeof(buf),
                      "txn.channel in @ch and log1p(%s) > %d or max(%s, %s) / (1 + amount) > %d", a,
                      8 + i % 3, a, b, 500 + i);
        break;
    }
    p += "rule r" + std::to_string(i) + " {\n  when " + buf + "\n  then review\n  reason \"R" +
         std::to_string(i) + "\"\n  weight 0.2\n}\n";
  }
  for (int t = 0; t < 10; ++t) {
    p += "typology t" + std::to_string(t) + " {\n";
    for (int k = 0; k < 5; ++k) p += "  rule r" + std::to_string(t * 10 + k * 2) + "\n";
    p += "  alert 0.6\n  block 1.0\n  reason \"T" + std::to_string(t) + "\"\n}\n";
  }
  return p;
}

Transaction BenchTxn() {
  Transaction txn;
  txn.transaction_id = "tx-bench";
  txn.timestamp_us = 1'764'670'530'000'000;
  txn.amount = Money(995'000, *FindCurrency("USD"));
  txn.sender = {{"ACC-1", "BANKUS33"}, "US", "John Smith"};
  txn.receiver = {{"ACC-2", "BANKGB22"}, "GB", "Acme Ltd"};
  txn.channel = "wire";
  txn.type = "transfer";
  txn.remittance = "invoice 4411";
  return txn;
}

std::shared_ptr<const CompiledPolicy> CompileOrDie(const std::string& text) {
  BundleSource source;
  source.policy_text = text;
  auto policy = CompileBundle(source, kFeatureNames);
  if (!policy.ok()) {
    std::fprintf(stderr, "%s\n", policy.status().message().c_str());
    std::abort();
  }
  return *policy;
}

// The common case: a clean transaction; no rule fires.
void BM_Evaluate100Rules(benchmark::State& state) {
  auto policy = CompileOrDie(HundredRulePolicy());
  Transaction txn = BenchTxn();
  FeatureVector values{9950, 2, 12000, 5, 30000, 1, 9950, 3, 25000};
  FeatureView view{values, kFeatureNames, kFeatureSchemaVersion};
  for (auto _ : state) {
    PolicyResult r = policy->Evaluate(txn, view, 0.42);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::to_string(policy->rule_count()) + " rules");
}
BENCHMARK(BM_Evaluate100Rules);

// A suspicious transaction: high-risk corridor, 20 rules and 10 typologies fire (reasons
// with messages are built).
void BM_Evaluate100RulesTwentyFire(benchmark::State& state) {
  auto policy = CompileOrDie(HundredRulePolicy());
  Transaction txn = BenchTxn();
  txn.receiver.country = "IR";
  FeatureVector values{9950, 2, 12000, 5, 30000, 1, 9950, 3, 25000};
  FeatureView view{values, kFeatureNames, kFeatureSchemaVersion};
  size_t reasons = 0;
  for (auto _ : state) {
    PolicyResult r = policy->Evaluate(txn, view, 0.42);
    reasons = r.reasons.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::to_string(reasons) + " reasons");
}
BENCHMARK(BM_Evaluate100RulesTwentyFire);

// Synthetic names with a skewed (Zipf-like) choice of first and last names, so that common
// tokens have long posting lists as in real lists.
class NameGenerator {
 public:
  explicit NameGenerator(uint32_t seed) : rng_(seed) {
    for (int i = 0; i < 600; ++i) first_.push_back(Word(2, 3));
    for (int i = 0; i < 40000; ++i) last_.push_back(Word(2, 4));
  }
  std::string Name() {
    std::string name = Pick(first_) + " ";
    if (Uniform() < 0.3) name += Pick(first_) + " ";
    name += Pick(last_);
    if (Uniform() < 0.1) name += " " + Pick(last_);
    return name;
  }
  // A near-miss spelling: one character substituted, dropped or doubled.
  std::string Misspell(std::string name) {
    size_t i = 1 + static_cast<size_t>(Uniform() * static_cast<double>(name.size() - 2));
    if (name[i] == ' ') ++i;
    double u = Uniform();
    if (u < 0.33) {
      name[i] = static_cast<char>('a' + static_cast<int>(Uniform() * 26));
    } else if (u < 0.66) {
      name.erase(i, 1);
    } else {
      name.insert(i, 1, name[i]);
    }
    return name;
  }

 private:
  double Uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  std::string Word(int lo, int hi) {
    static const char* kSyllables[] = {
        "ka", "ri", "mo", "an",  "el",  "so",  "vi",  "ta", "ne", "lu", "bar", "dra", "ha",
        "mi", "ro", "sa", "te",  "zu",  "fa",  "kin", "or", "im", "ya", "cho", "ol",  "ev",
        "ud", "ar", "is", "gor", "pet", "nov", "sk",  "ov", "al", "ib", "ra"};
    int n = lo + static_cast<int>(Uniform() * (hi - lo + 1));
    std::string w;
    for (int i = 0; i < n; ++i) w += kSyllables[static_cast<size_t>(Uniform() * 37) % 37];
    w[0] = static_cast<char>(w[0] - 'a' + 'A');
    return w;
  }
  const std::string& Pick(const std::vector<std::string>& pool) {
    double u = Uniform();
    return pool[static_cast<size_t>(u * u * static_cast<double>(pool.size())) % pool.size()];
  }

  std::mt19937 rng_;
  std::vector<std::string> first_;
  std::vector<std::string> last_;
};

struct ScreeningFixture {
  std::unique_ptr<const Watchlist> list;
  std::vector<std::string> hits;    // misspelled list names
  std::vector<std::string> misses;  // names not on the list (same generator, other draw)
};

const ScreeningFixture& Screening() {
  static const ScreeningFixture* fixture = [] {
    auto* f = new ScreeningFixture();
    NameGenerator gen(7);
    std::vector<Watchlist::Input> names;
    for (int i = 0; i < 100000; ++i) names.push_back({"E" + std::to_string(i), gen.Name()});
    f->list = Watchlist::Build(names);
    for (int i = 0; i < 1000; ++i) f->hits.push_back(gen.Misspell(names[i * 97].name));
    NameGenerator other(11);
    for (int i = 0; i < 1000; ++i) f->misses.push_back(other.Name());
    return f;
  }();
  return *fixture;
}

void BM_WatchlistMatch100k(benchmark::State& state) {
  const ScreeningFixture& f = Screening();
  const auto& queries = state.range(0) == 0 ? f.misses : f.hits;
  size_t i = 0;
  double total = 0;
  for (auto _ : state) {
    WatchlistMatch m = f.list->Match(queries[i++ % queries.size()]);
    total += m.score;
    benchmark::DoNotOptimize(m);
  }
  state.SetLabel(std::string(state.range(0) == 0 ? "unlisted names" : "misspelled listed names") +
                 ", mean best score " +
                 std::to_string(total / static_cast<double>(state.iterations())));
}
BENCHMARK(BM_WatchlistMatch100k)->Arg(0)->Arg(1);

void BM_WatchlistBuild100k(benchmark::State& state) {
  NameGenerator gen(7);
  std::vector<Watchlist::Input> names;
  for (int i = 0; i < 100000; ++i) names.push_back({"E" + std::to_string(i), gen.Name()});
  for (auto _ : state) {
    auto list = Watchlist::Build(names);
    benchmark::DoNotOptimize(list);
  }
}
BENCHMARK(BM_WatchlistBuild100k)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_NormalizeName(benchmark::State& state) {
  const char* name = state.range(0) == 0 ? "PETROV, Ivan Sergeyevich" : "Петров Иван Сергеевич";
  for (auto _ : state) {
    auto tokens = NormalizeNameTokens(name);
    benchmark::DoNotOptimize(tokens);
  }
  state.SetLabel(state.range(0) == 0 ? "ASCII" : "Cyrillic (ICU)");
}
BENCHMARK(BM_NormalizeName)->Arg(0)->Arg(1);

void BM_TextMatch(benchmark::State& state) {
  auto set = PatternSet::Compile({"\\bbitcoin\\b|\\bbtc\\b|\\busdt\\b",
                                  "\\bcrypto\\s*(exchange|otc)\\b", "\\bgift\\s*cards?\\b",
                                  "\\b(arms|weapons?|munitions)\\b", "\\bcash\\s+courier\\b"});
  const std::string text = "Invoice 2026-4411 consulting services November, ref PO 99812";
  for (auto _ : state) {
    int m = (*set)->FirstMatch(text);
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_TextMatch);

}  // namespace
}  // namespace verdict

BENCHMARK_MAIN();
