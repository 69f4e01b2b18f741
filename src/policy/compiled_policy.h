// CompiledPolicy: an activated policy bundle: its compiled program, lists and identity
// (version, SHA-256). Immutable once built and shared as shared_ptr<const CompiledPolicy>;
// Evaluate is thread-safe and allocates only for the reasons it returns.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/decision.h"
#include "core/feature_view.h"
#include "core/transaction.h"
#include "policy/fixed_rules.h"  // PolicyResult
#include "policy/program.h"

namespace verdict {

// A typology's score for one transaction (every typology, fired or not).
struct TypologyScore {
  std::string_view id;                // points into the CompiledPolicy
  double score = 0;                   // weighted sum of the weights of its rules that fired
  Outcome outcome = Outcome::kAllow;  // kReview at/above alert, kBlock at/above block
};

// One screening call's result for one transaction.
struct ScreeningHit {
  std::string_view function;  // "watchlist_match" or "text_match"
  std::string_view list;
  int entry = -1;                  // best/first matching entry, -1 when none
  std::string_view entry_id;       // watchlist entry id or the pattern text
  std::string_view entry_name;     // the name that matched (primary or alias)
  std::string_view entry_primary;  // the target's primary name when an alias matched
  std::string_view alias_kind;     // "aka", "low", ... when an alias matched
  double score = 0;                // similarity (watchlist) or 1/0 (text)
};

// What Evaluate saw beyond the outcome, for analysts, backtests and tests.
struct PolicyTrace {
  std::vector<uint32_t> fired_rules;  // indices into rule_ids()
  std::vector<TypologyScore> typologies;
  std::vector<ScreeningHit> screenings;  // the calls the policy evaluated
};

// The bundle's identity and contents, for GET /v1/policy.
struct BundleFile {
  std::string name;
  size_t bytes = 0;
  std::string sha256;
};
struct ListSummary {
  std::string name;
  std::string_view kind;
  size_t entries = 0;
};
struct BundleInfo {
  std::string name;  // `policy "name"`
  PolicyRef ref;     // version and SHA-256 of the canonical bundle serialization
  std::vector<BundleFile> files;
  std::vector<ListSummary> lists;
  size_t rules = 0;
  size_t typologies = 0;
  std::vector<std::string> feature_names;  // the schema it was checked against
};

class CompiledPolicy {
 public:
  static std::shared_ptr<const CompiledPolicy> Create(PolicyProgram program, BundleInfo info);

  // Same contract as FixedRules::Evaluate: outcome is the most severe of the fired rules'
  // and typologies' outcomes (block > review > allow); one reason per fired rule and per
  // typology at or above its alert threshold, in policy order. `features` must come from the
  // schema the policy was compiled against. `model_score` is empty on the fallback path:
  // conditions that read model.score are then unknown and do not fire.
  PolicyResult Evaluate(const Transaction& txn, const FeatureView& features,
                        std::optional<double> model_score) const;
  // The same, also filling `trace` (cleared first) when not null.
  PolicyResult Evaluate(const Transaction& txn, const FeatureView& features,
                        std::optional<double> model_score, PolicyTrace* trace) const;

  const PolicyRef& ref() const { return info_.ref; }
  const BundleInfo& info() const { return info_; }
  size_t rule_count() const { return program_.rules.size(); }
  std::string_view rule_id(size_t i) const { return program_.rules[i].id; }
  // The policy's `names` lists (name, index), in policy order: what continuous screening
  // compares between two versions (policy/list_rescreen.h).
  std::vector<std::pair<std::string_view, const Watchlist*>> NameLists() const;

 private:
  explicit CompiledPolicy(PolicyProgram program, BundleInfo info)
      : program_(std::move(program)), info_(std::move(info)) {}

  PolicyProgram program_;
  BundleInfo info_;
};

}  // namespace verdict
