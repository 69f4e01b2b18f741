// Continuous screening's delta between list versions, the hits on it and their identity.
#include "policy/list_rescreen.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

std::unique_ptr<const Watchlist> List(const std::vector<Watchlist::Input>& inputs) {
  return Watchlist::Build(inputs);
}

const std::vector<Watchlist::Input> kVersion1 = {
    {"NK-1", "Ivan Petrovich Sidorov"},
    {"NK-2", "Golden Lantern Trading Co., Ltd."},
};

TEST(ListRescreen, AddedEntriesAreNewEntriesAndNewAliases) {
  auto v1 = List(kVersion1);
  auto v2 = List({{"NK-1", "Ivan Petrovich Sidorov"},
                  {"NK-1", "Ivan Petrov", "Ivan Petrovich Sidorov", "alias"},
                  {"NK-2", "GOLDEN LANTERN TRADING COMPANY LIMITED"},  // same tokens as before
                  {"NK-3", "Maria Gonzalez"}});
  std::vector<Watchlist::Input> added = AddedEntries(v1.get(), *v2);
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0].id, "NK-1");
  EXPECT_EQ(added[0].name, "Ivan Petrov");
  EXPECT_EQ(added[0].primary, "Ivan Petrovich Sidorov");
  EXPECT_EQ(added[0].alias_kind, "alias");
  EXPECT_EQ(added[1].id, "NK-3");
}

TEST(ListRescreen, SameNameUnderAnotherIdIsNew) {
  auto v1 = List(kVersion1);
  auto v2 = List({{"NK-9", "Ivan Petrovich Sidorov"}});
  ASSERT_EQ(AddedEntries(v1.get(), *v2).size(), 1u);
  EXPECT_TRUE(AddedEntries(v2.get(), *v2).empty());
}

TEST(ListRescreen, NoPreviousListMeansEveryEntryIsNew) {
  auto v1 = List(kVersion1);
  EXPECT_EQ(AddedEntries(nullptr, *v1).size(), 2u);
}

TEST(ListRescreen, OnlyHitsOnAddedNamesCount) {
  auto v1 = List(kVersion1);
  auto v2 = List({{"NK-1", "Ivan Petrovich Sidorov"},
                  {"NK-1", "Ivan Petrov", "Ivan Petrovich Sidorov", "alias"},
                  {"NK-2", "Golden Lantern Trading Co., Ltd."}});
  auto added = List(AddedEntries(v1.get(), *v2));
  // The second party matches an entry both versions list: no new hit. The third is innocent.
  const std::vector<std::string> parties = {"PETROV, Ivan", "Golden Lantern Trading LLC",
                                            "Olga Ivanova"};
  std::vector<RescreenHit> hits = ScreenAgainstAdded(*added, parties, 0.85);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].party, 0u);
  EXPECT_EQ(added->entries()[hits[0].entry].name, "Ivan Petrov");
  EXPECT_DOUBLE_EQ(hits[0].score, 1.0);
  // Under the threshold: no hit.
  EXPECT_TRUE(ScreenAgainstAdded(*added, {"Ivan Petrovich"}, 0.999).empty());
}

TEST(ListRescreen, PendingDeltaKeepsWhatTheUnfinishedRunOwedAndStillListed) {
  auto v1 = List(kVersion1);
  auto v2 = List({{"NK-1", "Ivan Petrovich Sidorov"},
                  {"NK-1", "Ivan Petrov", "Ivan Petrovich Sidorov", "alias"},
                  {"NK-3", "Maria Gonzalez"}});
  const std::vector<Watchlist::Input> owed = AddedEntries(v1.get(), *v2);
  // Version 3 drops NK-3 and adds NK-4; the alias of version 2 was never re-screened.
  auto v3 = List({{"NK-1", "Ivan Petrovich Sidorov"},
                  {"NK-1", "Ivan Petrov", "Ivan Petrovich Sidorov", "alias"},
                  {"NK-4", "Oceanic Shipping"}});
  std::vector<Watchlist::Input> delta = PendingDelta(owed, v2.get(), *v3);
  ASSERT_EQ(delta.size(), 2u);
  EXPECT_EQ(delta[0].name, "Ivan Petrov");
  EXPECT_EQ(delta[1].id, "NK-4");
}

TEST(ListRescreen, TheSameHitHasTheSameCaseIdEveryTime) {
  auto v2 = List({{"NK-1", "Ivan Petrov", "Ivan Petrovich Sidorov", "alias"},
                  {"NK-1", "Ivan Sidorov", "Ivan Petrovich Sidorov", "alias"}});
  const WatchlistEntry& e = v2->entries()[0];
  const std::string id = RescreenCaseId("acme", "sanctions", e, "Ivan Petrov");
  EXPECT_EQ(id.rfind("rescreen-", 0), 0u);
  EXPECT_EQ(id.size(), 9u + 32u);
  // The same party written otherwise is the same hit.
  EXPECT_EQ(RescreenCaseId("acme", "sanctions", e, "PETROV, Ivan"), id);
  // Another tenant, list, entry or party is another hit.
  EXPECT_NE(RescreenCaseId("other", "sanctions", e, "Ivan Petrov"), id);
  EXPECT_NE(RescreenCaseId("acme", "pep", e, "Ivan Petrov"), id);
  EXPECT_NE(RescreenCaseId("acme", "sanctions", v2->entries()[1], "Ivan Petrov"), id);
  EXPECT_NE(RescreenCaseId("acme", "sanctions", e, "Ivan Petrova"), id);
}

TEST(ListRescreen, ReasonNamesTheEntryAndAlias) {
  auto v2 = List({{"NK-1", "Ivan Petrov", "Ivan Petrovich Sidorov", "alias"}});
  EXPECT_EQ(RescreenReason("sanctions", "2", "receiver", "PETROV, Ivan", v2->entries()[0], 1.0),
            "@sanctions version 2: receiver 'PETROV, Ivan' matches 'Ivan Petrov' (alias alias of "
            "'Ivan Petrovich Sidorov') [NK-1] score 1.000");
}

}  // namespace
}  // namespace verdict
