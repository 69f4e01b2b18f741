// CaseIndex: the in-memory index of every tenant's cases, for listing the review queue with
// filters, a sort order and opaque cursors. Not synchronized: CaseStore guards it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cases/case.h"
#include "common/result.h"

namespace verdict::cases {

enum class CaseSort {
  // Triage order, the default: block before review, then the highest risk first (the score
  // for a case without a risk), ties oldest first.
  kSeverity,
  kScore,   // highest score first (ties: oldest first)
  kAge,     // oldest first: the queue's natural working order
  kNewest,  // newest first
};
// "severity", "score", "age", "newest"
Result<CaseSort> ParseCaseSort(std::string_view name);
std::string_view CaseSortName(CaseSort sort);

inline constexpr size_t kDefaultPageSize = 50;
inline constexpr size_t kMaxPageSize = 500;

// What a case ranks by under kSeverity: block 2, review 1, anything else 0.
int SeverityOf(const Case& c);
// The case's risk, or its score when it has none.
double RiskOrScore(const Case& c);

struct CaseQuery {
  std::optional<CaseStatus> status;
  std::string typology;  // a reason code the case must carry; empty: any
  std::string account;   // sender or receiver; empty: any
  // The assignee the case must have; "" means unassigned; nullopt: any.
  std::optional<std::string> assignee;
  // Opened at or after `opened_from_us` and before `opened_to_us` (0: unbounded).
  int64_t opened_from_us = 0;
  int64_t opened_to_us = 0;
  CaseSort sort = CaseSort::kSeverity;
  size_t limit = kDefaultPageSize;
  std::string cursor;  // from a previous page's next_cursor, with the same sort
};

struct CasePage {
  std::vector<Case> cases;
  std::string next_cursor;  // empty: this was the last page
  size_t total = 0;         // cases matching the filters, over all pages
};

class CaseIndex {
 public:
  void Put(Case c);  // insert or replace (by tenant and case id)
  const Case* Find(std::string_view tenant, std::string_view case_id) const;
  // kInvalidArgument for a cursor that is malformed or was made for another sort.
  Result<CasePage> List(std::string_view tenant, const CaseQuery& query) const;
  size_t size() const { return size_; }

 private:
  std::map<std::string, std::unordered_map<std::string, Case>, std::less<>> by_tenant_;
  size_t size_ = 0;
};

}  // namespace verdict::cases
