#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "formats/verdict_csv.h"

namespace verdict {
namespace {

SimOptions SmallOptions(uint64_t seed = 42) {
  SimOptions o;
  o.accounts = 3000;
  o.days = 30;
  o.seed = seed;
  o.patterns_per_typology = 3;
  return o;
}

std::vector<LabelledTransaction> RunAll(Simulator& sim) {
  std::vector<LabelledTransaction> out;
  EXPECT_TRUE(sim.Run([&](const LabelledTransaction& t) {
                   out.push_back(t);
                   return Status::Ok();
                 })
                  .ok());
  return out;
}

TEST(SimulatorTest, EveryTypologyIsPresentAndLabelled) {
  auto sim = Simulator::Create(SmallOptions());
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  const auto txns = RunAll(**sim);
  std::map<std::string, std::set<std::string>> patterns_by_typology;
  size_t normal = 0;
  int64_t previous = INT64_MIN;
  for (const LabelledTransaction& t : txns) {
    ASSERT_TRUE(t.label.has_value());
    EXPECT_GE(t.txn.timestamp_us, previous);  // time order
    previous = t.txn.timestamp_us;
    if (*t.label) {
      EXPECT_FALSE(t.typology.empty());
      EXPECT_EQ(t.pattern_id.rfind(t.typology + "-", 0), 0u) << t.pattern_id;
      patterns_by_typology[t.typology].insert(t.pattern_id);
    } else {
      EXPECT_TRUE(t.typology.empty());
      EXPECT_TRUE(t.pattern_id.empty());
      ++normal;
    }
  }
  for (std::string_view typology : kTypologies) {
    EXPECT_EQ(patterns_by_typology[std::string(typology)].size(), 3u) << typology;
  }
  EXPECT_GT(normal, 20u * txns.size() / 21);  // laundering is rare
  EXPECT_EQ((*sim)->summary().transactions, txns.size());
  EXPECT_EQ((*sim)->summary().patterns, 21u);
}

TEST(SimulatorTest, DeterministicForASeedAndDifferentAcrossSeeds) {
  auto csv = [](uint64_t seed) {
    auto sim = Simulator::Create(SmallOptions(seed));
    EXPECT_TRUE(sim.ok());
    std::string out;
    EXPECT_TRUE((*sim)
                    ->Run([&](const LabelledTransaction& t) {
                      AppendVerdictCsvRow(t, &out);
                      out += '\n';
                      return Status::Ok();
                    })
                    .ok());
    return out;
  };
  const std::string a = csv(7);
  EXPECT_EQ(a, csv(7));
  EXPECT_NE(a, csv(8));
}

TEST(SimulatorTest, StructuringPartsLieBelowTheThresholdAndSumToTheOriginal) {
  SimOptions options = SmallOptions();
  options.structuring_epsilon = 0.02;
  auto sim = Simulator::Create(options);
  ASSERT_TRUE(sim.ok());
  const auto txns = RunAll(**sim);
  std::map<std::string, int64_t> sums;
  std::map<std::string, int> parts;
  for (const LabelledTransaction& t : txns) {
    if (t.typology != "structuring") continue;
    EXPECT_EQ(t.txn.amount.currency().code, "USD");
    EXPECT_LT(t.txn.amount.minor_units(), 10'000'00);
    EXPECT_GE(t.txn.amount.minor_units(), 9'800'00);
    sums[t.pattern_id] += t.txn.amount.minor_units();
    ++parts[t.pattern_id];
  }
  size_t checked = 0;
  for (const SimPattern& p : (*sim)->patterns()) {
    if (p.typology != "structuring") continue;
    EXPECT_EQ(sums[p.id], p.original_minor) << p.id;
    EXPECT_GE(parts[p.id], 3);
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
}

TEST(SimulatorTest, TypologiesHaveTheirShape) {
  auto sim = Simulator::Create(SmallOptions());
  ASSERT_TRUE(sim.ok());
  const auto txns = RunAll(**sim);
  std::map<std::string, std::set<std::string>> fan_in_senders, fan_out_receivers;
  std::map<std::string, std::set<std::string>> corridor_countries;
  for (const LabelledTransaction& t : txns) {
    if (t.typology == "fan_in") fan_in_senders[t.pattern_id].insert(t.txn.sender.ref.account);
    if (t.typology == "fan_out") {
      fan_out_receivers[t.pattern_id].insert(t.txn.receiver.ref.account);
    }
    if (t.typology == "high_risk_corridor") {
      corridor_countries[t.pattern_id].insert(t.txn.receiver.country);
    }
  }
  for (const auto& [id, senders] : fan_in_senders) EXPECT_GE(senders.size(), 8u) << id;
  for (const auto& [id, receivers] : fan_out_receivers) EXPECT_GE(receivers.size(), 8u) << id;
  const std::vector<std::string> listed = SmallOptions().high_risk_countries;
  const std::set<std::string> high_risk(listed.begin(), listed.end());
  for (const auto& [id, countries] : corridor_countries) {
    for (const std::string& c : countries) EXPECT_TRUE(high_risk.contains(c)) << id << " " << c;
  }
  // Dormant accounts are silent between their first two days and their activation.
  for (const SimPattern& p : (*sim)->patterns()) {
    if (p.typology != "dormant_activation") continue;
    const std::string sleeper = (*sim)->population().AccountId(p.accounts[0]);
    int64_t first_pattern_ts = INT64_MAX;
    for (const LabelledTransaction& t : txns) {
      if (t.pattern_id == p.id) first_pattern_ts = std::min(first_pattern_ts, t.txn.timestamp_us);
    }
    int64_t last_before = INT64_MIN;
    for (const LabelledTransaction& t : txns) {
      if (t.txn.timestamp_us >= first_pattern_ts) break;
      if (t.txn.sender.ref.account == sleeper || t.txn.receiver.ref.account == sleeper) {
        last_before = t.txn.timestamp_us;
      }
    }
    if (last_before != INT64_MIN) {
      EXPECT_GE(first_pattern_ts - last_before, int64_t{20} * 86'400'000'000) << p.id;
    }
  }
}

TEST(SimulatorTest, OptionsAreValidated) {
  SimOptions o = SmallOptions();
  o.accounts = 9;
  Result<std::unique_ptr<Simulator>> sim = Simulator::Create(o);
  ASSERT_FALSE(sim.ok());
  EXPECT_EQ(sim.status().field(), "accounts");
  o = SmallOptions();
  o.days = 0;
  sim = Simulator::Create(o);
  ASSERT_FALSE(sim.ok());
  EXPECT_EQ(sim.status().field(), "days");
  o = SmallOptions();
  o.structuring_epsilon = 0;
  EXPECT_FALSE(Simulator::Create(o).ok());
}

// A first try with a small population over a few days works: what does not fit is left out
// with a warning naming the typology, and no account serves two patterns.
TEST(SimulatorTest, SmallPopulationsAndFewDaysSkipTypologiesThatDoNotFit) {
  SimOptions o;
  o.accounts = 20;
  o.days = 2;
  o.seed = 7;
  auto sim = Simulator::Create(o);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  const auto txns = RunAll(**sim);
  EXPECT_FALSE(txns.empty());
  const std::vector<std::string>& warnings = (*sim)->warnings();
  auto warned = [&](std::string_view typology) {
    for (const std::string& w : warnings) {
      if (w.starts_with("typology " + std::string(typology) + " ")) return true;
    }
    return false;
  };
  EXPECT_TRUE(warned("dormant_activation"));  // 2 days: no room for a dormancy
  EXPECT_TRUE(warned("fan_in"));              // 20 accounts: too few mules for 22
  std::set<std::string> planned;
  std::set<uint32_t> mules;
  for (const SimPattern& p : (*sim)->patterns()) {
    planned.insert(p.typology);
    EXPECT_NE(p.typology, "dormant_activation");
    EXPECT_NE(p.typology, "fan_in");
    for (uint32_t a : p.accounts) {
      if (a < o.accounts) {
        EXPECT_TRUE(mules.insert(a).second) << "account " << a << " reused";
      }
    }
  }
  EXPECT_TRUE(planned.contains("high_risk_corridor")) << "a one-mule typology fits";
  for (const LabelledTransaction& t : txns) {
    EXPECT_LT(t.txn.timestamp_us, o.start_us + int64_t{2} * 86'400'000'000);
  }
  EXPECT_EQ((*sim)->summary().warnings, warnings);

  // With enough accounts and days nothing is left out.
  auto roomy = Simulator::Create(SmallOptions());
  ASSERT_TRUE(roomy.ok());
  EXPECT_TRUE((*roomy)->warnings().empty());
}

}  // namespace
}  // namespace verdict
