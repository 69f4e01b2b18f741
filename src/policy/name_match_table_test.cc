// The name-matching table (docs/policy.md, "Matching quality"): hand-written pairs of a
// screened name and a listed name, each with what an analyst expects (match or no match), in
// the cases sanctions screening meets: word order and "SURNAME, Given", transliteration and
// diacritics, missing parts, legal forms, spelling slips, and near-miss innocents. The test
// screens each pair through the index and reports precision and recall at the review
// threshold (0.85) and the block threshold (0.92); it fails if they fall below the figures
// recorded in docs/policy.md.
#include <gtest/gtest.h>

#include <cstdio>

#include "policy/watchlist.h"

namespace verdict {
namespace {

struct Pair {
  const char* screened;
  const char* listed;
  bool match;
};

constexpr Pair kTable[] = {
    // Word order and "SURNAME, Given".
    {"Ivan Petrov", "PETROV, Ivan", true},
    {"Karim Youssef Haddad", "HADDAD, Karim Youssef", true},
    {"Haddad Karim", "HADDAD, Karim", true},
    {"Maria Lopez Garcia", "LOPEZ GARCIA, Maria", true},
    {"Chol Song Kim", "KIM Song Chol", true},
    {"Wei Li", "LI, Wei", true},
    {"Smith, John Robert", "John Robert Smith", true},
    {"van der Berg Pieter", "Pieter van der Berg", true},
    {"Tanaka Hiroshi", "HIROSHI TANAKA", true},
    {"Oumar Diallo", "DIALLO Oumar", true},
    // Transliteration, scripts and diacritics.
    {"Иван Сергеевич Волков", "Ivan Sergeyevich Volkov", true},
    {"Ivan Sergeevich Volkov", "Ivan Sergeyevich Volkov", true},
    {"Müller, José", "Jose Mueller", true},
    {"José Müller", "Jose Muller", true},
    {"Mohammed Hassan", "Mohamed Hasan", true},
    {"Muhammad Rahman", "Mohammad Rahman", true},
    {"Abdel Rahman Al-Masri", "Abd al-Rahman al Masri", true},
    {"Abdulrahman Almasri", "Abd al-Rahman al Masri", true},
    {"Aleksandr Ivanov", "Alexander Ivanov", true},
    {"Sergei Morozov", "Sergey Morozov", true},
    {"Yevgeny Popov", "Evgeny Popov", true},
    {"Dmitriy Sokolov", "Dmitry Sokolov", true},
    {"Ελένη Παπαδοπούλου", "Eleni Papadopoulou", true},
    {"Łukasz Wiśniewski", "Lukasz Wisniewski", true},
    {"François Lefèvre", "Francois Lefevre", true},
    {"Søren Kierkegaard", "Soren Kierkegaard", true},
    {"Youssef El Amrani", "Yusuf El-Amrani", true},
    {"Osama Hamdan", "Usama Hamdan", true},
    {"Khaled Nasser", "Khalid Nasir", true},
    {"Gaddafi Moammar", "Muammar Qadhafi", true},
    {"Zhang Wei Guo", "张卫国", true},
    {"Nguyễn Văn An", "Nguyen Van An", true},
    {"Çelik Mehmet", "Mehmet Celik", true},
    {"Иванов Пётр", "Pyotr Ivanov", true},
    {"Hussein Ali", "Husayn Ali", true},
    // Missing and extra parts.
    {"John Smith", "John Michael Smith", true},
    {"Karim Haddad", "Karim Youssef Haddad", true},
    {"Ivan Volkov", "Ivan Sergeyevich Volkov", true},
    {"Maria Garcia", "Maria Lopez Garcia", true},
    {"Ahmad Testkhan", "AHMAD JAVED TESTKHAN", true},
    {"Pieter Berg", "Pieter van der Berg", true},
    {"Soo-Min Testpark", "SOO-MIN TESTPARK", true},
    {"Soomin Testpark", "SOO-MIN TESTPARK", true},
    {"Volkov", "Ivan Sergeyevich Volkov", false},
    {"Ivan", "Ivan Sergeyevich Volkov", false},
    {"Mr. Ivan Volkov", "Ivan Volkov", true},
    {"Ivan S. Volkov", "Ivan Sergeyevich Volkov", true},
    // Legal forms and company names.
    {"Northwind Maritime Trading LLC", "Northwind Maritime Trading L.L.C.", true},
    {"Northwind Maritime Trading Ltd", "NORTHWIND MARITIME TRADING L.L.C.", true},
    {"Kestrel Shipping SA", "KESTREL SHIPPING S.A.", true},
    {"Kestrel Shipping", "KESTREL SHIPPING S.A.", true},
    {"Müller Handels GmbH", "Mueller Handels GmbH", true},
    {"Golden Lantern Trading Co., Ltd.", "GOLDEN LANTERN TRADING COMPANY LIMITED", true},
    {"Golden Lantern Trading Limited", "Golden Lantern Trading Co. Ltd", true},
    {"Acme Holdings Inc.", "ACME HOLDINGS INCORPORATED", true},
    {"Acme Holdings Corp", "Acme Holdings Corporation", true},
    {"Oceanic Shipping PLC", "Oceanic Shipping plc", true},
    {"Petrosur Trading FZE", "PETROSUR TRADING FZE", true},
    {"Aurora Metals OOO", "OOO AURORA METALS", true},
    {"Aurora Metals JSC", "Aurora Metals PJSC", true},
    {"Sea Swallow Shipping Pte Ltd", "SEA SWALLOW SHIPPING PTE. LTD.", true},
    {"Banco Central S.A.", "Banco Central SA", true},
    {"Trans-Asia Logistics Sdn Bhd", "TRANS ASIA LOGISTICS SDN. BHD.", true},
    {"Kestrel Shiping S.A.", "KESTREL SHIPPING S.A.", true},
    {"Blue Ocean Holdings BV", "Blue Ocean Holding B.V.", true},
    // Spelling slips.
    {"Jon Smith", "John Smith", true},
    {"Viktor Morozov", "Victor Morozov", true},
    {"Ivan Petrovitch Sidorow", "Ivan Petrovich Sidorov", true},
    {"Karim Hadad", "Karim Haddad", true},
    {"Alexandre Dumont", "Alexander Dumont", true},
    {"Catherine Zeta", "Katherine Zeta", true},
    {"Jonathon Blake", "Jonathan Blake", true},
    {"Stephen Kowalski", "Steven Kowalski", true},
    {"Mikhail Gorbunov", "Mikhail Gorbunv", true},
    {"Oksana Shevchenko", "Oxana Shevchenko", true},
    // Near-miss innocents: sharing a given name, a surname, or a word of a company name.
    {"John Brown", "John Smith", false},
    {"John", "John Smith", false},
    {"Ivan Smith", "Ivan Petrov", false},
    {"Li Wu", "Lu Wo", false},
    {"Kim Jong", "Kim Song Chol", false},
    {"Maria Lopez", "Mario Lopes", false},
    {"Northwind Bakery", "Northwind Maritime Trading LLC", false},
    {"Northwind Maritime Insurance", "Northwind Maritime Trading LLC", false},
    {"Golden Lantern Restaurant", "Golden Lantern Trading Company Limited", false},
    {"Kestrel Consulting Ltd", "Kestrel Shipping S.A.", false},
    {"Sea Swallow Bakery", "Sea Swallow Shipping Pte Ltd", false},
    {"Acme Foods Inc", "Acme Holdings Inc", false},
    {"Peter Ivanov", "Pyotr Volkov", false},
    {"Anna Haddad", "Karim Haddad", false},
    {"Mohammed Ali", "Mohammed Hassan", false},
    {"Ali Hassan", "Mohammed Hassan Ali Nasser", false},
    {"Jose Garcia", "Maria Lopez Garcia", false},
    {"Paul Martin", "Martina Paulsen", false},
    {"Chen Jing", "Cheng Jun", false},
    {"Carlos Mendes", "Carla Mendez", false},
    {"Daniel Okafor", "Daniela Okoro", false},
    {"Hans Becker", "Hanna Baker", false},
    {"Ahmed Khan", "Ahmad Javed Testkhan", false},
    {"Smith Trading LLC", "Smith & Wesson Holding Corp", false},
    {"Ocean Trading SA", "Oceanic Shipping SA", false},
    {"Blue Ocean Bakery", "Blue Ocean Holdings BV", false},
    {"Eleni Papadaki", "Eleni Papadopoulou", false},
    {"Olga Petrova", "Oleg Petrov", false},
    {"Ivana Petrovic", "Ivan Petrov", false},
    {"Maria", "Maria Lopez Garcia", false},
    {"Bank of Cyprus", "Bank Melli Iran", false},
    {"Limited", "Golden Lantern Trading Company Limited", false},
    {"LLC", "Northwind Maritime Trading LLC", false},
    {"Sergey Morozov Jr", "Sergey Morozenko", false},
    {"Karima Haddadi", "Karim Haddad", false},
    {"Rahman Trading", "Mohammad Rahman", false},
    {"Wei Zhang", "Wei Zhao", false},
    {"Kim Min-jun", "Kim Min-ji", false},
};

struct Counts {
  int tp = 0, fp = 0, fn = 0, tn = 0;
  double precision() const { return tp + fp == 0 ? 1.0 : static_cast<double>(tp) / (tp + fp); }
  double recall() const { return tp + fn == 0 ? 1.0 : static_cast<double>(tp) / (tp + fn); }
};

Counts Screen(double threshold, bool print_misses) {
  Counts counts;
  for (const Pair& p : kTable) {
    auto list = Watchlist::Build({{"L", p.listed}});
    const double score = list->Match(p.screened).score;
    const bool matched = score >= threshold;
    if (matched && p.match) ++counts.tp;
    if (matched && !p.match) ++counts.fp;
    if (!matched && p.match) ++counts.fn;
    if (!matched && !p.match) ++counts.tn;
    if (print_misses && matched != p.match) {
      std::printf("  %s at %.2f: '%s' vs '%s' scores %.3f\n", p.match ? "missed" : "false hit",
                  threshold, p.screened, p.listed, score);
    }
  }
  return counts;
}

TEST(NameMatchTableTest, PrecisionAndRecallAtTheThresholds) {
  static_assert(std::size(kTable) >= 100, "the table holds at least 100 pairs");
  int matches = 0;
  for (const Pair& p : kTable) matches += p.match;
  std::printf("%zu pairs: %d expected matches, %zu expected non-matches\n", std::size(kTable),
              matches, std::size(kTable) - static_cast<size_t>(matches));
  for (double threshold : {0.85, 0.92}) {
    const Counts c = Screen(threshold, true);
    std::printf("threshold %.2f: tp %d fp %d fn %d tn %d, precision %.3f, recall %.3f\n", threshold,
                c.tp, c.fp, c.fn, c.tn, c.precision(), c.recall());
  }
  // The figures docs/policy.md records; a change to the matcher that lowers them fails here.
  const Counts review = Screen(0.85, false);
  EXPECT_LE(review.fp, 2);   // precision 0.968
  EXPECT_LE(review.fn, 13);  // recall 0.822
  const Counts block = Screen(0.92, false);
  EXPECT_LE(block.fp, 2);   // precision 0.964
  EXPECT_LE(block.fn, 20);  // recall 0.726
}

}  // namespace
}  // namespace verdict
