// Screening: name normalization (ICU), Jaro-Winkler, the name score, the watchlist index,
// list files and Hyperscan patterns.
#include <gtest/gtest.h>

#include <thread>

#include "policy/list_file.h"
#include "policy/name_normalizer.h"
#include "policy/pattern_set.h"
#include "policy/similarity.h"
#include "policy/watchlist.h"

namespace verdict {
namespace {

TEST(NameNormalizerTest, CaseDiacriticsPunctuationAndTokenOrder) {
  EXPECT_EQ(NormalizeName("José  MÜLLER-Lüdenscheidt"), "jose ludenscheidt muller");
  EXPECT_EQ(NormalizeName("Müller, José"), "jose muller");
  EXPECT_EQ(NormalizeName("O'Brien, Seán"), "obrien sean");
  EXPECT_EQ(NormalizeName("  ...  "), "");
  EXPECT_EQ(NormalizeName("Smith John"), NormalizeName("JOHN smith"));
}

TEST(NameNormalizerTest, TransliteratesOtherScripts) {
  EXPECT_EQ(NormalizeName("Иван Петров"), "ivan petrov");
  EXPECT_EQ(NormalizeName("Ελένη Παπαδοπούλου"), "elene papadopoulou");
  // Han is romanized (pinyin) with tone marks that Latin-ASCII then drops; tokens sorted.
  EXPECT_EQ(NormalizeName("张卫国"), "guo wei zhang");
  EXPECT_FALSE(NormalizeName("أبو بكر").empty());
}

TEST(NameNormalizerTest, DottedAbbreviationsAndLegalForms) {
  EXPECT_EQ(NormalizeName("NORTHWIND MARITIME TRADING L.L.C."), "maritime northwind trading");
  EXPECT_EQ(NormalizeName("Northwind Maritime Trading LLC"), "maritime northwind trading");
  EXPECT_EQ(NormalizeName("Kestrel Shipping S.A."), "kestrel shipping");
  EXPECT_EQ(NormalizeName("Golden Lantern Trading Co., Ltd."), "golden lantern trading");
  EXPECT_EQ(NormalizeName("GOLDEN LANTERN TRADING COMPANY LIMITED"), "golden lantern trading");
  EXPECT_EQ(NormalizeName("Trans Asia Logistics Sdn. Bhd."), "asia logistics trans");
  // A dot after a longer token, or before one, still separates.
  EXPECT_EQ(NormalizeName("J.Smith"), "j smith");
  EXPECT_EQ(NormalizeName("Ivan S. Volkov"), "ivan s volkov");
  EXPECT_EQ(NormalizeName("U.S.A. Metals"), "metals usa");
  // Companions stay when there is no legal form; a name of legal forms only stays whole.
  EXPECT_EQ(NormalizeName("Co Van Minh"), "co minh van");
  EXPECT_EQ(NormalizeName("Limited"), "limited");
  EXPECT_EQ(NormalizeName("LLC"), "llc");
}

TEST(NameNormalizerTest, BoundsAndInvalidUtf8) {
  std::string many;
  for (int i = 0; i < 20; ++i) many += "tok" + std::to_string(i) + " ";
  EXPECT_EQ(NormalizeNameTokens(many).size(), kMaxNameTokens);
  EXPECT_LE(NormalizeNameTokens(std::string(5000, 'a')).at(0).size(), kMaxNameBytes);
  EXPECT_NO_FATAL_FAILURE(NormalizeNameTokens("\xff\xfe bad \xc3"));
}

TEST(SimilarityTest, JaroWinklerKnownValues) {
  EXPECT_DOUBLE_EQ(JaroWinkler("martha", "martha"), 1.0);
  EXPECT_NEAR(JaroWinkler("martha", "marhta"), 0.9611, 1e-4);
  EXPECT_NEAR(JaroWinkler("dwayne", "duane"), 0.84, 1e-2);
  EXPECT_NEAR(JaroWinkler("dixon", "dicksonx"), 0.8133, 1e-4);
  EXPECT_DOUBLE_EQ(JaroWinkler("abc", "xyz"), 0.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("", "x"), 0.0);
}

TEST(SimilarityTest, NameScoreProperties) {
  auto t = [](std::string_view s) { return NormalizeNameTokens(s); };
  EXPECT_DOUBLE_EQ(NameScore(t("Ivan Petrov"), t("Petrov Ivan")), 1.0);
  // Near-miss spellings stay high.
  EXPECT_GT(NameScore(t("Jon Smith"), t("John Smith")), 0.95);
  EXPECT_GT(NameScore(t("Mohamed Hassan"), t("Mohammed Hasan")), 0.9);
  EXPECT_GT(NameScore(t("Viktor Morozov"), t("Victor Morozov")), 0.9);
  // A shared first name alone is no match.
  EXPECT_LT(NameScore(t("John"), t("John Smith")), 0.7);
  EXPECT_LT(NameScore(t("John Brown"), t("John Smith")), 0.6);
  // Short tokens must match exactly (no JW inflation for "li" vs "lu").
  EXPECT_LT(NameScore(t("Li Wu"), t("Lu Wo")), 0.01);
  // A missing middle name is a review (0.90), not a block; two missing parts are not.
  EXPECT_DOUBLE_EQ(NameScore(t("John Smith"), t("John Michael Smith")), kMissingPartScore);
  EXPECT_LT(NameScore(t("John Smith"), t("John Michael Peter Smith")), 0.85);
  EXPECT_LT(NameScore(t("Ivan Petrov"), t("Ivan Petrovich Sidorov")), 0.85);
  // Symmetric.
  EXPECT_DOUBLE_EQ(NameScore(t("Ivan Petrovich Sidorov"), t("Ivan Sidorov")),
                   NameScore(t("Ivan Sidorov"), t("Ivan Petrovich Sidorov")));
}

std::unique_ptr<const Watchlist> SmallList() {
  return Watchlist::Build({{"S-1", "Ivan Petrovich Sidorov"},
                           {"S-1", "Иван Петрович Сидоров"},
                           {"S-2", "Abu Bakr Al-Hashimi"},
                           {"S-3", "Kim Song Chol"},
                           {"S-4", "Oceanic Shipping Trading Co., Ltd."},
                           {"S-5", "Li Wei"},
                           {"S-6", "Müller-Lüdenscheidt Handels GmbH"}});
}

TEST(WatchlistTest, TransliterationTokenOrderAndNearMisses) {
  auto list = SmallList();
  auto m = list->Match("SIDOROV, Ivan Petrovich");
  EXPECT_DOUBLE_EQ(m.score, 1.0);
  EXPECT_EQ(list->entries()[m.entry].id, "S-1");
  m = list->Match("Иван Петрович Сидоров");
  EXPECT_DOUBLE_EQ(m.score, 1.0);
  m = list->Match("Ivan Petrovitch Sidorow");  // two misspellings
  EXPECT_GT(m.score, 0.9);
  EXPECT_EQ(list->entries()[m.entry].id, "S-1");
  m = list->Match("Abu-Bakr al Hashimi");
  EXPECT_DOUBLE_EQ(m.score, 1.0);
  m = list->Match("Mueller-Luedenscheidt Handels GmbH");
  EXPECT_GT(m.score, 0.9);
  EXPECT_EQ(list->entries()[m.entry].id, "S-6");
  m = list->Match("Oceanic Shiping Trading Co Ltd");
  EXPECT_GT(m.score, 0.9);
}

TEST(WatchlistTest, NoFalseMatchOnShortCommonNames) {
  auto list = SmallList();
  EXPECT_EQ(list->Match("Li").score, 0.0);
  EXPECT_EQ(list->Match("Li Wu").score, 0.0);
  EXPECT_EQ(list->Match("Kim").score, 0.0);
  EXPECT_EQ(list->Match("Ivan Smith").score, 0.0);
  EXPECT_EQ(list->Match("Lee Way").score, 0.0);
  EXPECT_EQ(list->Match("Kim Jong").score, 0.0);
  EXPECT_EQ(list->Match("John Brown").score, 0.0);
  EXPECT_EQ(list->Match("John Brown").entry, -1);
  EXPECT_EQ(list->Match("").score, 0.0);
  EXPECT_DOUBLE_EQ(list->Match("Wei Li").score, 1.0);
}

TEST(WatchlistTest, IndexAgreesWithExhaustiveScoring) {
  // The index may only skip entries that share no similar token with the query.
  std::vector<Watchlist::Input> names;
  const char* first[] = {"anna", "boris", "carlos", "dmitri", "elena", "fatima", "gustav"};
  const char* last[] = {"ivanova", "kowalski", "haddad", "okafor", "lindqvist", "moreau"};
  int n = 0;
  for (const char* f : first) {
    for (const char* l : last) names.push_back({std::to_string(n++), std::string(f) + " " + l});
  }
  auto list = Watchlist::Build(names);
  for (const char* q : {"ana ivanowa", "borris kovalski", "karlos hadad", "elena", "x okafor",
                        "fatima lindquist moreau"}) {
    auto query = NormalizeNameTokens(q);
    double best = 0;
    for (const auto& e : list->entries()) best = std::max(best, NameScore(query, e.tokens));
    if (best < kWatchlistFloor) best = 0;
    EXPECT_NEAR(list->Match(q).score, best, 1e-12) << q;
  }
}

TEST(WatchlistTest, ConcurrentMatchesAgree) {
  auto list = SmallList();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (list->Match("Иван Сидоров Петрович").score != 1.0) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ListFileTest, CsvQuotingAndLines) {
  std::vector<Diagnostic> errors;
  auto records = ParseNamesCsv(
      "program,ID,Name\r\nX,1,\"Smith, John\"\r\nX,2,\"Say \"\"Hi\"\"\"\n\nX,3,Plain  \n", "f",
      errors);
  ASSERT_TRUE(errors.empty()) << JoinDiagnostics(errors);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].name, "Smith, John");
  EXPECT_EQ(records[1].name, "Say \"Hi\"");
  EXPECT_EQ(records[2].name, "Plain");
  EXPECT_EQ(records[2].line, 5);
  records = ParseNamesCsv("id,name\n1,\"unterminated\n", "f", errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].pos.line, 2);
  auto lines = ParseLineList("# c\n a \n\nb\r\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].value, "a");
  EXPECT_EQ(lines[1].line, 4);
}

TEST(PatternSetTest, MatchesCaselessAndReportsLowestPattern) {
  auto set = PatternSet::Compile({"\\bbitcoin\\b", "gift ?cards?", "arms"});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ((*set)->FirstMatch("pay in BITCOIN now"), 0);
  EXPECT_EQ((*set)->FirstMatch("giftcard and arms"), 1);
  EXPECT_EQ((*set)->FirstMatch("bitcoiner"), -1);
  EXPECT_EQ((*set)->FirstMatch("invoice 4411"), -1);
  EXPECT_EQ((*set)->FirstMatch(""), -1);
}

TEST(PatternSetTest, BadPatternNamesItsIndex) {
  int bad = -1;
  auto set = PatternSet::Compile({"fine", "(open"}, &bad);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(bad, 1);
  EXPECT_NE(set.status().message().find("pattern 2"), std::string::npos);
}

TEST(PatternSetTest, ScratchPerThread) {
  auto a = PatternSet::Compile({"alpha"});
  auto b = PatternSet::Compile({"beta", "(gamma|delta)+x{2,40}"});
  ASSERT_TRUE(a.ok() && b.ok());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        if ((*a)->FirstMatch("x alpha") != 0) ++wrong;
        if ((*b)->FirstMatch("gammaxx") != 1) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace verdict
