#include "cases/account_network.h"

#include <simdjson.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace verdict::cases {
namespace {

constexpr size_t kPageSize = 500;

// One payment as the journal keeps it.
struct Payment {
  uint64_t seq = 0;
  std::string from, to, amount, currency;
  bool decided = false;  // a decision record (history records were imported, not decided)
  bool flagged = false;  // decided review or block
};

std::optional<Payment> PaymentOf(const journal::JournalRecord& r) {
  if (r.kind != journal::RecordKind::kDecision && r.kind != journal::RecordKind::kHistory) {
    return std::nullopt;
  }
  simdjson::dom::parser parser;
  simdjson::padded_string text(r.canonical_input);
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj) != simdjson::SUCCESS) return std::nullopt;
  Payment p;
  std::string_view s;
  if (obj["sender"]["account"].get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  p.from = s;
  if (obj["receiver"]["account"].get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  p.to = s;
  if (obj["amount"].get_string().get(s) == simdjson::SUCCESS) p.amount = s;
  if (obj["currency"].get_string().get(s) == simdjson::SUCCESS) p.currency = s;
  p.seq = r.seq;
  p.decided = r.kind == journal::RecordKind::kDecision;
  p.flagged = p.decided && r.decision.outcome != Outcome::kAllow;
  return p;
}

// The payments of `account` in the window, newest first, at most `limit` records read;
// `*more` when the limit stopped the reading before the window's start.
Result<std::vector<Payment>> ReadPayments(std::string_view tenant, std::string_view account,
                                          int64_t since_us, size_t limit,
                                          const AccountRecordReader& read, bool* more) {
  std::vector<Payment> out;
  uint64_t before = UINT64_MAX;
  size_t seen = 0;
  while (seen < limit) {
    VERDICT_ASSIGN_OR_RETURN(std::vector<journal::JournalRecord> page,
                             read(account, std::min(kPageSize, limit - seen), before));
    if (page.empty()) return out;
    for (const journal::JournalRecord& r : page) {
      ++seen;
      before = std::min(before, r.seq);
      if (r.tenant != tenant) continue;  // a second wall: the reader is the tenant's
      if (r.decided_at_us < since_us) return out;
      if (auto p = PaymentOf(r)) out.push_back(std::move(*p));
    }
  }
  *more = true;
  return out;
}

void AddTo(NetworkFlow& flow, const Payment& p) {
  ++flow.count;
  if (p.amount.empty()) return;
  auto [it, inserted] = flow.totals.try_emplace(p.currency, p.amount);
  if (inserted) return;
  // A malformed amount is left out of the total rather than failing the whole view.
  if (auto sum = AddDecimal(it->second, p.amount); sum.ok()) it->second = *std::move(sum);
}

// Simple directed cycles of at most kMaxCycleLength nodes, each found once from its
// smallest-index node.
struct CycleFinder {
  const std::vector<std::vector<size_t>>& next;
  std::vector<std::vector<size_t>> found;
  std::vector<size_t> path;
  std::vector<bool> on_path;
  bool truncated = false;

  void From(size_t start) {
    path = {start};
    on_path.assign(next.size(), false);
    on_path[start] = true;
    Walk(start, start);
  }
  void Walk(size_t start, size_t at) {
    for (size_t n : next[at]) {
      if (found.size() >= kMaxCycles) {
        truncated = true;
        return;
      }
      if (n == start && path.size() >= 2) {
        found.push_back(path);
      } else if (n > start && !on_path[n] && path.size() < kMaxCycleLength) {
        path.push_back(n);
        on_path[n] = true;
        Walk(start, n);
        on_path[n] = false;
        path.pop_back();
      }
    }
  }
};

}  // namespace

Result<std::string> AddDecimal(std::string_view a, std::string_view b) {
  auto split = [](std::string_view v, std::string_view* whole, std::string_view* frac) {
    const size_t dot = v.find('.');
    *whole = v.substr(0, dot);
    *frac = dot == std::string_view::npos ? std::string_view() : v.substr(dot + 1);
    auto digits = [](std::string_view d) {
      return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    return !whole->empty() && digits(*whole) && digits(*frac) &&
           (dot == std::string_view::npos || !frac->empty());
  };
  std::string_view aw, af, bw, bf;
  if (!split(a, &aw, &af) || !split(b, &bw, &bf)) {
    return InvalidArgument("amounts must be non-negative decimals", "amount");
  }
  const size_t frac = std::max(af.size(), bf.size());
  const size_t whole = std::max(aw.size(), bw.size());
  // Both aligned to whole + frac digits, then added from the right.
  auto align = [&](std::string_view w, std::string_view f) {
    return std::string(whole - w.size(), '0') + std::string(w) + std::string(f) +
           std::string(frac - f.size(), '0');
  };
  const std::string x = align(aw, af), y = align(bw, bf);
  std::string sum(x.size(), '0');
  int carry = 0;
  for (size_t i = x.size(); i-- > 0;) {
    const int d = (x[i] - '0') + (y[i] - '0') + carry;
    sum[i] = static_cast<char>('0' + d % 10);
    carry = d / 10;
  }
  if (carry) sum.insert(sum.begin(), '1');
  std::string out = sum.substr(0, sum.size() - frac);
  const size_t nonzero = out.find_first_not_of('0');
  out = nonzero == std::string::npos ? "0" : out.substr(nonzero);
  if (frac > 0) out += "." + sum.substr(sum.size() - frac);
  return out;
}

Result<AccountNetwork> BuildAccountNetwork(std::string_view tenant, std::string_view account,
                                           int days, int64_t now_us,
                                           const AccountRecordReader& read) {
  if (days < 1 || days > kMaxNetworkDays) {
    return InvalidArgument("days must be from 1 to " + std::to_string(kMaxNetworkDays), "days");
  }
  if (account.empty()) return InvalidArgument("account must not be empty", "account");
  AccountNetwork net;
  net.account = std::string(account);
  net.days = days;
  net.since_us = now_us - int64_t{days} * 86'400'000'000;

  bool more = false;
  VERDICT_ASSIGN_OR_RETURN(std::vector<Payment> own, ReadPayments(tenant, account, net.since_us,
                                                                  kMaxCenterRecords, read, &more));
  net.truncated = more;
  // Counterparties by the number of payments with the account.
  std::unordered_map<std::string, uint64_t> with_center;
  for (const Payment& p : own) {
    if (p.from == p.to) continue;
    ++with_center[p.from == account ? p.to : p.from];
  }
  std::vector<std::pair<std::string, uint64_t>> ranked(with_center.begin(), with_center.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return std::tie(b.second, a.first) < std::tie(a.second, b.first);
  });
  if (ranked.size() > kMaxNetworkNodes) {
    ranked.resize(kMaxNetworkNodes);
    net.truncated = true;
  }
  std::unordered_map<std::string, size_t> index;  // account -> node
  net.nodes.push_back({std::string(account), true, {}, {}, 0, 0});
  index.emplace(account, 0);
  for (const auto& [party, count] : ranked) {
    index.emplace(party, net.nodes.size());
    net.nodes.push_back({party, false, {}, {}, 0, 0});
  }

  // Every payment among the graph's parties, once (a payment is in both parties' records).
  std::map<uint64_t, Payment> payments;
  auto take = [&](const std::vector<Payment>& list, NetworkNode& node) {
    for (const Payment& p : list) {
      if (p.decided) {
        ++node.decisions;
        if (p.flagged) ++node.flagged;
      }
      if (p.from != p.to && index.contains(p.from) && index.contains(p.to)) {
        payments.emplace(p.seq, p);
      }
    }
  };
  take(own, net.nodes[0]);
  for (size_t i = 1; i < net.nodes.size(); ++i) {
    bool cut = false;
    VERDICT_ASSIGN_OR_RETURN(std::vector<Payment> theirs,
                             ReadPayments(tenant, net.nodes[i].account, net.since_us,
                                          kMaxCounterpartyRecords, read, &cut));
    net.truncated = net.truncated || cut;
    take(theirs, net.nodes[i]);
  }

  std::map<std::pair<size_t, size_t>, NetworkEdge> edges;
  for (const auto& [seq, p] : payments) {
    const size_t from = index.at(p.from), to = index.at(p.to);
    NetworkEdge& e = edges[{from, to}];
    e.from = p.from;
    e.to = p.to;
    AddTo(e.flow, p);
    if (p.flagged) ++e.flagged;
    AddTo(net.nodes[from].out, p);
    AddTo(net.nodes[to].in, p);
  }

  std::vector<std::vector<size_t>> next(net.nodes.size());
  for (const auto& [key, e] : edges) next[key.first].push_back(key.second);
  CycleFinder finder{next, {}, {}, {}, false};
  for (size_t s = 0; s < net.nodes.size() && !finder.truncated; ++s) finder.From(s);
  net.truncated = net.truncated || finder.truncated;
  for (const std::vector<size_t>& cycle : finder.found) {
    std::vector<std::string> names;
    for (size_t k = 0; k < cycle.size(); ++k) {
      names.push_back(net.nodes[cycle[k]].account);
      edges.at({cycle[k], cycle[(k + 1) % cycle.size()]}).in_cycle = true;
    }
    net.cycles.push_back(std::move(names));
  }
  for (auto& [key, e] : edges) net.edges.push_back(std::move(e));
  std::sort(net.edges.begin(), net.edges.end(), [](const NetworkEdge& a, const NetworkEdge& b) {
    return std::tie(a.from, a.to) < std::tie(b.from, b.to);
  });
  return net;
}

}  // namespace verdict::cases
