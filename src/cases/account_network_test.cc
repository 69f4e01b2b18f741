#include "cases/account_network.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "journal/test_util.h"

namespace verdict::cases {
namespace {

constexpr int64_t kDay = 86'400'000'000;
constexpr int64_t kNow = 100 * kDay;

// A journal of payments, read as Journal::ListByAccount reads its account index.
struct FakeJournal {
  std::vector<journal::JournalRecord> records;
  size_t reads = 0;

  void Pay(std::string from, std::string to, std::string amount, Outcome outcome = Outcome::kAllow,
           int64_t at = kNow - kDay, std::string tenant = "bank-a") {
    journal::JournalRecord r = journal::testing_util::MakeRecord(records.size() + 1);
    r.seq = records.size() + 1;
    r.tenant = std::move(tenant);
    r.decided_at_us = at;
    r.decision.outcome = outcome;
    r.canonical_input = R"({"amount":")" + amount + R"(","currency":"EUR","sender":{"account":")" +
                        from + R"("},"receiver":{"account":")" + to + R"("}})";
    r.accounts = {from, to};
    records.push_back(std::move(r));
  }

  AccountRecordReader Reader(std::string tenant) {
    return [this, tenant](std::string_view account, size_t limit,
                          uint64_t before_seq) -> Result<std::vector<journal::JournalRecord>> {
      ++reads;
      std::vector<journal::JournalRecord> out;
      for (auto it = records.rbegin(); it != records.rend() && out.size() < limit; ++it) {
        if (it->seq >= before_seq || it->tenant != tenant) continue;
        if (std::find(it->accounts.begin(), it->accounts.end(), account) == it->accounts.end()) {
          continue;
        }
        out.push_back(*it);
      }
      return out;
    };
  }
};

const NetworkNode* Node(const AccountNetwork& n, std::string_view account) {
  for (const NetworkNode& node : n.nodes) {
    if (node.account == account) return &node;
  }
  return nullptr;
}

const NetworkEdge* Edge(const AccountNetwork& n, std::string_view from, std::string_view to) {
  for (const NetworkEdge& e : n.edges) {
    if (e.from == from && e.to == to) return &e;
  }
  return nullptr;
}

TEST(AccountNetworkTest, CounterpartiesWithMoneyInAndOutFlaggedPartiesAndACycle) {
  FakeJournal j;
  j.Pay("A", "B", "100.50");
  j.Pay("A", "B", "0.75");
  j.Pay("C", "A", "20");
  j.Pay("B", "C", "99.25");               // A -> B -> C -> A
  j.Pay("C", "X", "5", Outcome::kBlock);  // X is not A's counterparty: not in the graph
  j.Pay("A", "D", "1", Outcome::kReview);
  auto net = BuildAccountNetwork("bank-a", "A", 30, kNow, j.Reader("bank-a"));
  ASSERT_TRUE(net.ok()) << net.status().message();
  ASSERT_EQ(net->nodes.size(), 4u);
  EXPECT_EQ(net->nodes[0].account, "A");
  EXPECT_TRUE(net->nodes[0].center);
  EXPECT_EQ(net->nodes[1].account, "B");  // two payments with A: first
  EXPECT_EQ(Node(*net, "X"), nullptr);
  const NetworkEdge* ab = Edge(*net, "A", "B");
  ASSERT_NE(ab, nullptr);
  EXPECT_EQ(ab->flow.count, 2u);
  EXPECT_EQ(ab->flow.totals.at("EUR"), "101.25");
  EXPECT_TRUE(ab->in_cycle);
  ASSERT_NE(Edge(*net, "B", "C"), nullptr);  // among counterparties, from their own records
  EXPECT_TRUE(Edge(*net, "B", "C")->in_cycle);
  EXPECT_TRUE(Edge(*net, "C", "A")->in_cycle);
  EXPECT_FALSE(Edge(*net, "A", "D")->in_cycle);
  EXPECT_EQ(Edge(*net, "A", "D")->flagged, 1u);
  ASSERT_EQ(net->cycles.size(), 1u);
  EXPECT_EQ(net->cycles[0], (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(Node(*net, "A")->out.count, 3u);
  EXPECT_EQ(Node(*net, "A")->in.totals.at("EUR"), "20");
  EXPECT_EQ(Node(*net, "C")->flagged, 1u);  // its block with X counts, though X is not shown
  EXPECT_EQ(Node(*net, "D")->flagged, 1u);
  EXPECT_EQ(Node(*net, "B")->flagged, 0u);
  EXPECT_FALSE(net->truncated);
}

TEST(AccountNetworkTest, OnlyTheWindowAndTheTenantCount) {
  FakeJournal j;
  j.Pay("A", "OLD", "1", Outcome::kAllow, kNow - 40 * kDay);
  j.Pay("A", "B", "1");
  j.Pay("A", "OTHER", "1", Outcome::kBlock, kNow - kDay, "bank-b");
  auto net = BuildAccountNetwork("bank-a", "A", 30, kNow, j.Reader("bank-a"));
  ASSERT_TRUE(net.ok());
  EXPECT_EQ(net->nodes.size(), 2u);
  EXPECT_EQ(Node(*net, "OLD"), nullptr);
  EXPECT_EQ(Node(*net, "OTHER"), nullptr);
  auto wide = BuildAccountNetwork("bank-a", "A", 45, kNow, j.Reader("bank-a"));
  EXPECT_NE(Node(*wide, "OLD"), nullptr);
  // A reader that (wrongly) answers another tenant's record: dropped all the same.
  auto leaky = [&j](std::string_view, size_t,
                    uint64_t before) -> Result<std::vector<journal::JournalRecord>> {
    std::vector<journal::JournalRecord> out;
    for (auto it = j.records.rbegin(); it != j.records.rend(); ++it) {
      if (it->seq < before) out.push_back(*it);
    }
    return out;
  };
  auto walled = BuildAccountNetwork("bank-a", "A", 30, kNow, leaky);
  ASSERT_TRUE(walled.ok());
  EXPECT_EQ(Node(*walled, "OTHER"), nullptr);
}

TEST(AccountNetworkTest, BoundedInNodesAndCycles) {
  FakeJournal j;
  for (size_t i = 0; i < kMaxNetworkNodes + 5; ++i) {
    const std::string p = "P" + std::to_string(100 + i);
    j.Pay("A", p, "1");
    j.Pay(p, "A", "1");  // a two-party cycle each
  }
  auto net = BuildAccountNetwork("bank-a", "A", 30, kNow, j.Reader("bank-a"));
  ASSERT_TRUE(net.ok());
  EXPECT_EQ(net->nodes.size(), kMaxNetworkNodes + 1);
  EXPECT_LE(net->cycles.size(), kMaxCycles);
  EXPECT_TRUE(net->truncated);
}

TEST(AccountNetworkTest, RefusesBadDaysAndAddsDecimalsExactly) {
  FakeJournal j;
  EXPECT_EQ(BuildAccountNetwork("bank-a", "A", 0, kNow, j.Reader("bank-a")).status().field(),
            "days");
  EXPECT_EQ(BuildAccountNetwork("bank-a", "A", 91, kNow, j.Reader("bank-a")).status().field(),
            "days");
  EXPECT_EQ(*AddDecimal("0.1", "0.2"), "0.3");
  EXPECT_EQ(*AddDecimal("999.99", "0.01"), "1000.00");
  EXPECT_EQ(*AddDecimal("7", "0.125"), "7.125");
  EXPECT_EQ(*AddDecimal("12345678901234567890", "1"), "12345678901234567891");
  EXPECT_FALSE(AddDecimal("-1", "1").ok());
  EXPECT_FALSE(AddDecimal("1.", "1").ok());
  EXPECT_FALSE(AddDecimal("1e3", "1").ok());
}

}  // namespace
}  // namespace verdict::cases
