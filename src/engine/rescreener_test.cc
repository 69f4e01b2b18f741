// The re-screen worker against a real journal and case store: a new alias opens one case on
// the party's most recent decision of its own tenant within the window, never a second one,
// and a stored run that had not finished resumes at start; plus the [screening] options and
// the stored run's codec.
#include "engine/rescreener.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/engine_options.h"
#include "features/feature_vector.h"
#include "journal/test_util.h"
#include "policy/list_rescreen.h"
#include "policy/policy_bundle.h"

namespace verdict {
namespace {

using journal::testing_util::MakeRecord;
using journal::testing_util::TempDir;

constexpr char kPolicy[] = R"(policy "rescreen-unit" version "1"
list sanctions = names from opensanctions "targets.simple.csv"
rule sanctioned_receiver {
  description "receiver on the sanctions list"
  when watchlist_match(txn.receiver.name, @sanctions) >= 0.92
  then block
  reason "SANCTIONS"
}
)";

std::string Targets(const std::string& ivan_aliases) {
  return "id,schema,name,aliases,birth_date,countries,addresses,identifiers,sanctions,phones,"
         "emails,dataset,first_seen,last_seen,last_change\n"
         "NK-1,Person,Ivan Petrovich Sidorov,\"" +
         ivan_aliases + "\",,ru,,,,,,Test List,,,\n";
}

std::shared_ptr<const ActivePolicy> Policy(const std::string& targets) {
  BundleSource source;
  source.policy_text = kPolicy;
  source.files["targets.simple.csv"] = targets;
  auto compiled = CompileBundle(source, kFeatureNames);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  return std::make_shared<const ActivePolicy>(*compiled);
}

// Records are stamped relative to the time now: the journal stamps admin events (a run's own)
// with the system clock, and a run reads back to the first record older than its window.
const int64_t kNow = SystemClock::Instance().NowMicros();

class RescreenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    journal::JournalOptions options;
    options.data_dir = dir_.Sub("journal");
    options.min_free_bytes = 0;
    auto j = journal::Journal::Open(options);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    journal_ = std::move(j).value();
    // Oldest first: one decision before the 30-day window, then the window's.
    Decide(1, "bank-a", "Ivan Petrov", 40);
    Decide(2, "bank-a", "Ivan Petrov", 3);
    Decide(3, "bank-a", "PETROV, Ivan", 2);
    Decide(4, "bank-b", "Ivan Petrov", 1);
    Decide(5, "bank-a", "Olga Ivanova", 1);
    ASSERT_TRUE(journal_->Flush().ok());
    auto cases = cases::CaseStore::Open(*journal_, std::make_shared<cases::CaseFeed>(), clock_);
    ASSERT_TRUE(cases.ok()) << cases.status().ToString();
    cases_ = std::move(cases).value();
  }

  void Decide(uint64_t i, const std::string& tenant, const std::string& receiver, int days_ago) {
    journal::JournalEntry entry;
    entry.record = MakeRecord(i, tenant);
    entry.record.decided_at_us = kNow - days_ago * kMicrosPerDay;
    entry.record.decision.outcome = Outcome::kAllow;
    std::string& input = entry.record.canonical_input;
    input.replace(input.find("Acme Ltd"), 8, receiver);
    ASSERT_TRUE(
        journal_->Enqueue(std::move(entry), [](const Result<journal::CommitInfo>&) {}).ok());
  }

  std::unique_ptr<Rescreener> Start() {
    auto r = Rescreener::Start(*journal_, *cases_, clock_, metrics_, Rescreener::Options());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).value();
  }

  // Waits for a run of the tenant other than `not_run` to end; a generous bound turns a run
  // that never ends into a failure rather than a hang (not a timing assertion).
  static RescreenRun WaitEnded(const Rescreener& r, const std::string& tenant,
                               const std::string& not_run = "") {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    for (;;) {
      std::optional<RescreenRun> run = r.Last(tenant);
      if (run && run->run_id != not_run &&
          (run->state == RescreenState::kDone || run->state == RescreenState::kFailed)) {
        return *run;
      }
      if (std::chrono::steady_clock::now() > give_up) {
        ADD_FAILURE() << "no run of " << tenant << " ended";
        return run.value_or(RescreenRun());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  size_t RescreenCases(const std::string& tenant) {
    cases::CaseQuery q;
    q.typology = "SANCTIONS_RESCREEN";
    auto page = cases_->List(tenant, q);
    EXPECT_TRUE(page.ok());
    return page->total;
  }

  TempDir dir_;
  ManualClock clock_{kNow};
  MetricsRegistry metrics_;
  std::unique_ptr<journal::Journal> journal_;
  std::unique_ptr<cases::CaseStore> cases_;
};

TEST_F(RescreenerTest, ANewAliasOpensOneCaseOnTheLatestDecisionNeverTwice) {
  auto v1 = Policy(Targets(""));
  auto v2 = Policy(Targets("Ivan Petrov"));
  auto r = Start();
  r->OnPolicyActivated(Caller{"bank-a", "admin-1"}, v1.get(), *v2);
  RescreenRun run = WaitEnded(*r, "bank-a");
  EXPECT_EQ(run.state, RescreenState::kDone) << run.error;
  ASSERT_EQ(run.lists.size(), 1u);
  EXPECT_EQ(run.lists[0].version, "policy-1");
  EXPECT_EQ(run.parties, 3u);  // Ivan Petrov, John Smith, Olga Ivanova of bank-a's window
  EXPECT_EQ(run.hits, 1u);
  EXPECT_EQ(run.cases_opened, 1u);
  EXPECT_FALSE(run.truncated);
  EXPECT_EQ(RescreenCases("bank-a"), 1u);
  EXPECT_EQ(RescreenCases("bank-b"), 0u);  // its Ivan Petrov is not bank-a's to re-screen
  cases::CaseQuery q;
  q.typology = "SANCTIONS_RESCREEN";
  const cases::Case c = cases_->List("bank-a", q)->cases.at(0);
  EXPECT_EQ(c.transaction_id, "tx-3");  // the party's most recent decision
  EXPECT_NE(c.reasons.at(0).message.find("'PETROV, Ivan' matches 'Ivan Petrov' (alias alias of "
                                         "'Ivan Petrovich Sidorov') [NK-1]"),
            std::string::npos)
      << c.reasons.at(0).message;

  // The same version again from the same baseline: the hit again, its case already there.
  r->OnPolicyActivated(Caller{"bank-a", "admin-1"}, v1.get(), *v2);
  RescreenRun again = WaitEnded(*r, "bank-a", run.run_id);
  EXPECT_EQ(again.hits, 1u);
  EXPECT_EQ(again.cases_opened, 0u);
  EXPECT_EQ(RescreenCases("bank-a"), 1u);
  // A version that adds nothing starts no run.
  clock_.AdvanceMicros(1);
  r->OnPolicyActivated(Caller{"bank-a", "admin-1"}, v2.get(), *v2);
  EXPECT_EQ(r->Last("bank-a")->run_id, again.run_id);
}

TEST_F(RescreenerTest, AStoredUnfinishedRunResumesAtStart) {
  RescreenRun stored;
  stored.run_id = "7@1";
  stored.policy_version = "7";
  stored.principal = "admin-1";
  stored.state = RescreenState::kRunning;  // the engine stopped during the run
  stored.activated_at_us = kNow;
  stored.since_us = kNow - 30 * kMicrosPerDay;
  stored.lists.push_back({"sanctions", "2026-12-07", {{"NK-1", "Olga Ivanova", "", ""}}});
  ASSERT_TRUE(journal_->PutRegistry("rescreen/bank-a", RescreenRunToJson(stored)).ok());
  auto r = Start();
  RescreenRun run = WaitEnded(*r, "bank-a");
  EXPECT_EQ(run.run_id, "7@1");
  EXPECT_EQ(run.state, RescreenState::kDone);
  EXPECT_EQ(run.cases_opened, 1u);
  r.reset();
  // Stored as done: the next start resumes nothing.
  auto text = journal_->GetRegistry("rescreen/bank-a");
  ASSERT_TRUE(text.ok() && text->has_value());
  auto reread = RescreenRunFromJson(**text);
  ASSERT_TRUE(reread.ok()) << reread.status().ToString();
  EXPECT_EQ(reread->state, RescreenState::kDone);
  EXPECT_EQ(reread->lists.at(0).added.at(0).name, "Olga Ivanova");
  EXPECT_EQ(reread->lists.at(0).version, "2026-12-07");
}

TEST(RescreenRunTest, CorruptStoredRunIsAnErrorNotACrash) {
  EXPECT_FALSE(RescreenRunFromJson("").ok());
  EXPECT_FALSE(RescreenRunFromJson("{\"run\":1}").ok());
  RescreenRun run;
  std::string json = RescreenRunToJson(run);
  json.replace(json.find("\"pending\""), 9, "\"paused\"");
  EXPECT_EQ(RescreenRunFromJson(json).status().code(), StatusCode::kDataLoss);
}

TEST(ScreeningOptionsTest, DefaultsAndBadValues) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->screening.rescreen_days, 30);
  EXPECT_EQ(defaults->screening.rescreen_min_score, 0.85);
  auto set = ParseEngineOptions("[screening]\nrescreen_days = 0\nrescreen_min_score = 0.9\n", "t");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->screening.rescreen_days, 0);
  EXPECT_EQ(set->screening.rescreen_min_score, 0.9);
  for (const auto& [toml, field] : std::vector<std::pair<std::string, std::string>>{
           {"[screening]\nrescreen_days = -1\n", "screening.rescreen_days"},
           {"[screening]\nrescreen_min_score = 0.5\n", "screening.rescreen_min_score"},
           {"[screening]\nrescreen_dayz = 3\n", "screening.rescreen_dayz"}}) {
    auto bad = ParseEngineOptions(toml, "t.toml");
    ASSERT_FALSE(bad.ok()) << toml;
    EXPECT_EQ(bad.status().field(), field) << bad.status().ToString();
  }
}

}  // namespace
}  // namespace verdict
