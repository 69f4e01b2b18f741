#include "cases/case_index.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <tuple>

namespace verdict::cases {
namespace {

// Where a case sits in an ordering: enough to resume after it.
struct SortKey {
  int severity = 0;
  double risk = 0;  // the risk, or the score without one
  double score = 0;
  int64_t opened_at_us = 0;
  std::string case_id;
};

SortKey KeyOf(const Case& c) {
  return {SeverityOf(c), RiskOrScore(c), c.score, c.opened_at_us, c.case_id};
}

bool Before(CaseSort sort, const SortKey& a, const SortKey& b) {
  switch (sort) {
    case CaseSort::kSeverity:
      return std::tie(b.severity, b.risk, a.opened_at_us, a.case_id) <
             std::tie(a.severity, a.risk, b.opened_at_us, b.case_id);
    case CaseSort::kScore:
      return std::tie(b.score, a.opened_at_us, a.case_id) <
             std::tie(a.score, b.opened_at_us, b.case_id);
    case CaseSort::kAge:
      return std::tie(a.opened_at_us, a.case_id) < std::tie(b.opened_at_us, b.case_id);
    case CaseSort::kNewest:
      return std::tie(b.opened_at_us, b.case_id) < std::tie(a.opened_at_us, a.case_id);
  }
  return false;
}

constexpr char kHex[] = "0123456789abcdef";

std::string ExactDouble(double v) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

// Cursor: hex of "<sort>\n<severity>\n<risk>\n<score>\n<opened_at_us>\n<case_id>"; opaque to
// clients.
std::string EncodeCursor(CaseSort sort, const SortKey& key) {
  const std::string plain = std::string(CaseSortName(sort)) + "\n" + std::to_string(key.severity) +
                            "\n" + ExactDouble(key.risk) + "\n" + ExactDouble(key.score) + "\n" +
                            std::to_string(key.opened_at_us) + "\n" + key.case_id;
  std::string out;
  out.reserve(plain.size() * 2);
  for (unsigned char ch : plain) {
    out.push_back(kHex[ch >> 4]);
    out.push_back(kHex[ch & 15]);
  }
  return out;
}

Status BadCursor(std::string_view why) {
  return InvalidArgument("cursor is not one this server issued: " + std::string(why), "cursor");
}

int HexValue(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  return -1;
}

Result<SortKey> DecodeCursor(CaseSort sort, std::string_view cursor) {
  if (cursor.size() % 2 != 0 || cursor.size() > 4096) return BadCursor("bad length");
  std::string plain;
  for (size_t i = 0; i < cursor.size(); i += 2) {
    const int hi = HexValue(cursor[i]), lo = HexValue(cursor[i + 1]);
    if (hi < 0 || lo < 0) return BadCursor("not hex");
    plain.push_back(static_cast<char>(hi * 16 + lo));
  }
  std::vector<std::string_view> parts;
  std::string_view rest = plain;
  for (int i = 0; i < 5; ++i) {
    const size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) return BadCursor("truncated");
    parts.push_back(rest.substr(0, nl));
    rest.remove_prefix(nl + 1);
  }
  parts.push_back(rest);
  if (parts[0] != CaseSortName(sort)) {
    return BadCursor("it was made for sort=" + std::string(parts[0]));
  }
  SortKey key;
  auto number = [](std::string_view text, double* out) {
    const std::string s(text);
    char* end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  };
  auto integer = [](std::string_view text, auto* out) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && p == text.data() + text.size();
  };
  if (!integer(parts[1], &key.severity)) return BadCursor("bad severity");
  if (!number(parts[2], &key.risk)) return BadCursor("bad risk");
  if (!number(parts[3], &key.score)) return BadCursor("bad score");
  if (!integer(parts[4], &key.opened_at_us)) return BadCursor("bad time");
  key.case_id = std::string(parts[5]);
  return key;
}

bool Matches(const Case& c, const CaseQuery& q) {
  if (q.status && c.status != *q.status) return false;
  if (!q.account.empty() && c.sender_account != q.account && c.receiver_account != q.account) {
    return false;
  }
  if (q.assignee && c.assignee != *q.assignee) return false;
  if (q.opened_from_us != 0 && c.opened_at_us < q.opened_from_us) return false;
  if (q.opened_to_us != 0 && c.opened_at_us >= q.opened_to_us) return false;
  if (!q.typology.empty() &&
      std::find(c.typologies.begin(), c.typologies.end(), q.typology) == c.typologies.end()) {
    return false;
  }
  return true;
}

}  // namespace

int SeverityOf(const Case& c) {
  if (c.outcome == "block") return 2;
  if (c.outcome == "review") return 1;
  return 0;
}

double RiskOrScore(const Case& c) { return c.risk.value_or(c.score); }

Result<CaseSort> ParseCaseSort(std::string_view name) {
  if (name == "severity") return CaseSort::kSeverity;
  if (name == "score") return CaseSort::kScore;
  if (name == "age") return CaseSort::kAge;
  if (name == "newest") return CaseSort::kNewest;
  return InvalidArgument(
      "sort must be severity, score, age or newest, not '" + std::string(name) + "'", "sort");
}

std::string_view CaseSortName(CaseSort sort) {
  switch (sort) {
    case CaseSort::kSeverity:
      return "severity";
    case CaseSort::kScore:
      return "score";
    case CaseSort::kAge:
      return "age";
    case CaseSort::kNewest:
      return "newest";
  }
  return "severity";
}

void CaseIndex::Put(Case c) {
  auto& cases = by_tenant_[c.tenant];
  std::string id = c.case_id;
  auto [it, inserted] = cases.insert_or_assign(std::move(id), std::move(c));
  (void)it;
  if (inserted) ++size_;
}

const Case* CaseIndex::Find(std::string_view tenant, std::string_view case_id) const {
  auto t = by_tenant_.find(tenant);
  if (t == by_tenant_.end()) return nullptr;
  auto c = t->second.find(std::string(case_id));
  return c == t->second.end() ? nullptr : &c->second;
}

Result<CasePage> CaseIndex::List(std::string_view tenant, const CaseQuery& query) const {
  if (query.limit == 0 || query.limit > kMaxPageSize) {
    return InvalidArgument("limit must be between 1 and 500", "limit");
  }
  std::optional<SortKey> after;
  if (!query.cursor.empty()) {
    VERDICT_ASSIGN_OR_RETURN(after, DecodeCursor(query.sort, query.cursor));
  }
  CasePage page;
  auto t = by_tenant_.find(tenant);
  if (t == by_tenant_.end()) return page;
  std::vector<std::pair<SortKey, const Case*>> matches;
  for (const auto& [id, c] : t->second) {
    if (Matches(c, query)) matches.emplace_back(KeyOf(c), &c);
  }
  page.total = matches.size();
  auto before = [&query](const auto& a, const auto& b) {
    return Before(query.sort, a.first, b.first);
  };
  std::sort(matches.begin(), matches.end(), before);
  auto it = matches.begin();
  if (after) {
    it = std::upper_bound(
        matches.begin(), matches.end(), std::make_pair(*after, nullptr),
        [&query](const auto& a, const auto& b) { return Before(query.sort, a.first, b.first); });
  }
  for (; it != matches.end() && page.cases.size() < query.limit; ++it) {
    page.cases.push_back(*it->second);
  }
  if (it != matches.end() && !page.cases.empty()) {
    page.next_cursor = EncodeCursor(query.sort, KeyOf(page.cases.back()));
  }
  return page;
}

}  // namespace verdict::cases
