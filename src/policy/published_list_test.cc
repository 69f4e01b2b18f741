// Published sanctions lists: the readers on hand-written files in the publishers' layouts
// (tests/data/lists), their errors, and a bundle screening against them.
#include "policy/published_list.h"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <sstream>

#include "policy/policy_test_util.h"

namespace verdict {
namespace {

std::string ReadData(const std::string& name) {
  std::ifstream in("tests/data/lists/" + name, std::ios::binary);
  EXPECT_TRUE(in) << "tests/data/lists/" << name << " (tests run in the source folder)";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const ListTarget* Find(const std::vector<ListTarget>& targets, std::string_view id) {
  for (const ListTarget& t : targets) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

std::string Errors(const std::vector<Diagnostic>& errors) { return JoinDiagnostics(errors); }

TEST(OpenSanctionsCsvTest, ReadsTargetsAliasesCountriesAndDatasets) {
  const std::string text = ReadData("targets.simple.csv");
  std::vector<Diagnostic> errors;
  auto targets = ParseOpenSanctionsCsv({"targets.simple.csv", text}, errors);
  ASSERT_TRUE(errors.empty()) << Errors(errors);
  ASSERT_EQ(targets.size(), 3u);
  const ListTarget* volkov = Find(targets, "NK-tst1ivanov");
  ASSERT_NE(volkov, nullptr);
  EXPECT_EQ(volkov->name, "Ivan Sergeyevich Volkov");
  ASSERT_EQ(volkov->aliases.size(), 3u);
  EXPECT_EQ(volkov->aliases[0].name, "Иван Сергеевич Волков");
  EXPECT_EQ(volkov->aliases[1].name, "VOLKOV, Ivan");
  EXPECT_EQ(volkov->aliases[1].kind, "alias");
  EXPECT_EQ(volkov->countries, std::vector<std::string>{"ru"});
  EXPECT_EQ(volkov->line, 2);
  const ListTarget* northwind = Find(targets, "NK-tst2acme");
  ASSERT_NE(northwind, nullptr);
  EXPECT_EQ(northwind->countries, (std::vector<std::string>{"ae", "ir"}));
  EXPECT_EQ(northwind->program, "Test Sanctions List;Other Test List");
  EXPECT_EQ(Find(targets, "NK-tst3lopez")->name, "Maria \"La Reina\" Lopez Garcia");
  EXPECT_TRUE(Find(targets, "NK-tst3lopez")->aliases.empty());
}

TEST(OpenSanctionsCsvTest, MalformedRowsNameFileLineAndFieldAndKeepNothing) {
  const std::string header =
      "id,schema,name,aliases,birth_date,countries,addresses,identifiers,sanctions,phones,"
      "emails,dataset,first_seen,last_seen,last_change\n";
  const std::string good = "A1,Person,Good Name,,,,,,,,,ds,,,\n";
  struct Case {
    std::string text;
    int line;
    std::string message;
  };
  const Case cases[] = {
      {"id,name\n1,x\n", 1, "header lacks the 'aliases' column"},
      {header + good + "A2,Person,,,,,,,,,,ds,,,\n", 3, "field 'name' is empty"},
      {header + good + ",Person,X,,,,,,,,,ds,,,\n", 3, "field 'id' is empty"},
      {header + good + "A1,Person,Other,,,,,,,,,ds,,,\n", 3, "'A1' appears twice"},
      {header + good + "A3,Person,Short\n", 3, "expected 15 fields as in the header, found 3"},
      {header + good + "A4,Person,\"Bad \"quote,,,,,,,,,ds,,,\n", 3, "bad quoting"},
  };
  for (const Case& c : cases) {
    std::vector<Diagnostic> errors;
    auto targets = ParseOpenSanctionsCsv({"os.csv", c.text}, errors);
    EXPECT_TRUE(targets.empty()) << c.message;
    ASSERT_EQ(errors.size(), 1u) << Errors(errors);
    EXPECT_EQ(errors[0].file, "os.csv");
    EXPECT_EQ(errors[0].pos.line, c.line) << errors[0].ToString();
    EXPECT_NE(errors[0].message.find(c.message), std::string::npos) << errors[0].ToString();
  }
}

TEST(OfacSdnTest, ReadsEntriesAndJoinsAlternateNames) {
  const std::string sdn = ReadData("sdn.csv");
  const std::string alt = ReadData("alt.csv");
  std::vector<Diagnostic> errors;
  auto targets = ParseOfacSdn({"sdn.csv", sdn}, {"alt.csv", alt}, errors);
  ASSERT_TRUE(errors.empty()) << Errors(errors);
  ASSERT_EQ(targets.size(), 3u);  // the closing 0x1A line is no entry
  const ListTarget* kestrel = Find(targets, "9001");
  ASSERT_NE(kestrel, nullptr);
  EXPECT_EQ(kestrel->name, "KESTREL SHIPPING S.A.");
  EXPECT_EQ(kestrel->program, "SDGT");
  ASSERT_EQ(kestrel->aliases.size(), 2u);
  EXPECT_EQ(kestrel->aliases[0].name, "KESTREL MARINE SA");
  EXPECT_EQ(kestrel->aliases[0].kind, "aka");
  EXPECT_EQ(kestrel->aliases[1].kind, "fka");
  const ListTarget* haddad = Find(targets, "9002");
  ASSERT_NE(haddad, nullptr);
  EXPECT_EQ(haddad->name, "HADDAD, Karim Youssef");
  EXPECT_EQ(haddad->aliases.size(), 2u);
  const ListTarget* vessel = Find(targets, "9003");
  ASSERT_NE(vessel, nullptr);
  EXPECT_EQ(vessel->countries, std::vector<std::string>{"Iran"});
  EXPECT_TRUE(vessel->aliases.empty());
}

TEST(OfacSdnTest, MalformedRowsNameFileLineAndFieldAndKeepNothing) {
  const std::string sdn_ok =
      "10,\"ONE, Person\",\"individual\",\"SDGT\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n";
  struct Case {
    std::string sdn;
    std::string alt;
    std::string file;
    int line;
    std::string message;
  };
  const Case cases[] = {
      {sdn_ok + "x1,\"TWO\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n", "", "sdn.csv", 2,
       "field 'ent_num': 'x1' is not a positive whole number"},
      {sdn_ok + "11,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n", "", "sdn.csv", 2,
       "field 'SDN_Name' is empty"},
      {sdn_ok + "12,\"THREE\",-0- ,-0- \n", "", "sdn.csv", 2, "expected 12 fields"},
      {sdn_ok + sdn_ok, "", "sdn.csv", 2, "field 'ent_num': 10 appears twice"},
      {sdn_ok, "11,1,\"aka\",\"X\",-0- \n", "alt.csv", 1, "'11' is not an entry of sdn.csv"},
      {sdn_ok, "10,1,\"aka\",\"X\",-0- \n10,2,\"a.k.a\",\"Y\",-0- \n", "alt.csv", 2,
       "field 'alt_type': 'a.k.a'; expected aka, fka or nka"},
      {sdn_ok, "10,1,\"aka\",-0- ,-0- \n", "alt.csv", 1, "field 'alt_name' is empty"},
      {sdn_ok, "10,zz,\"aka\",\"X\",-0- \n", "alt.csv", 1, "field 'alt_num'"},
      {sdn_ok, "10,1,\"aka\"\n", "alt.csv", 1, "expected 5 fields"},
  };
  for (const Case& c : cases) {
    std::vector<Diagnostic> errors;
    auto targets = ParseOfacSdn({"sdn.csv", c.sdn}, {"alt.csv", c.alt}, errors);
    EXPECT_TRUE(targets.empty()) << c.message;
    ASSERT_EQ(errors.size(), 1u) << Errors(errors);
    EXPECT_EQ(errors[0].file, c.file) << errors[0].ToString();
    EXPECT_EQ(errors[0].pos.line, c.line) << errors[0].ToString();
    EXPECT_NE(errors[0].message.find(c.message), std::string::npos) << errors[0].ToString();
  }
}

TEST(UnConsolidatedXmlTest, ReadsIndividualsEntitiesAliasesAndQuality) {
  const std::string text = ReadData("consolidated.xml");
  std::vector<Diagnostic> errors;
  auto targets = ParseUnConsolidatedXml({"consolidated.xml", text}, errors);
  ASSERT_TRUE(errors.empty()) << Errors(errors);
  ASSERT_EQ(targets.size(), 3u);
  const ListTarget* ahmad = Find(targets, "QDi.901");
  ASSERT_NE(ahmad, nullptr);
  EXPECT_EQ(ahmad->name, "AHMAD JAVED TESTKHAN");
  EXPECT_EQ(ahmad->program, "Al-Qaida");
  EXPECT_EQ(ahmad->countries, std::vector<std::string>{"Pakistan"});
  ASSERT_EQ(ahmad->aliases.size(), 2u);  // the empty alias block is skipped
  EXPECT_EQ(ahmad->aliases[0].name, "Ahmed Javid Tesskhan");
  EXPECT_EQ(ahmad->aliases[0].kind, "good");
  EXPECT_EQ(ahmad->aliases[1].kind, "low");
  EXPECT_EQ(ahmad->line, 4);
  EXPECT_EQ(Find(targets, "KPi.901")->name, "SOO-MIN TESTPARK");
  const ListTarget* lantern = Find(targets, "KPe.901");
  ASSERT_NE(lantern, nullptr);
  EXPECT_EQ(lantern->name, "GOLDEN LANTERN TRADING COMPANY LIMITED");
  ASSERT_EQ(lantern->aliases.size(), 1u);
  EXPECT_EQ(lantern->aliases[0].kind, "a.k.a.");
}

TEST(UnConsolidatedXmlTest, MalformedElementsNameFileLineAndElement) {
  auto wrap = [](std::string individuals) {
    return "<CONSOLIDATED_LIST>\n<INDIVIDUALS>\n" + individuals + "</INDIVIDUALS>\n" +
           "</CONSOLIDATED_LIST>\n";
  };
  const std::string ok =
      "<INDIVIDUAL><DATAID>1</DATAID><FIRST_NAME>A</FIRST_NAME>"
      "<REFERENCE_NUMBER>R1</REFERENCE_NUMBER></INDIVIDUAL>\n";
  struct Case {
    std::string text;
    int line;
    std::string message;
  };
  const Case cases[] = {
      {"<CONSOLIDATED_LIST>\n<INDIVIDUALS>\n<INDIVIDUAL>\n</CONSOLIDATED_LIST>\n", 4,
       "not well-formed XML"},
      {"<LIST/>\n", 1, "root element is <LIST>; expected <CONSOLIDATED_LIST>"},
      {wrap(ok + "<INDIVIDUAL><FIRST_NAME>B</FIRST_NAME></INDIVIDUAL>\n"), 4,
       "INDIVIDUAL[2]/DATAID is missing or empty"},
      {wrap(ok + "<INDIVIDUAL><DATAID>2</DATAID></INDIVIDUAL>\n"), 4,
       "INDIVIDUAL[2]/FIRST_NAME is missing or empty (DATAID 2)"},
      {wrap(ok + "<INDIVIDUAL><DATAID>3</DATAID><FIRST_NAME>C</FIRST_NAME>"
                 "<REFERENCE_NUMBER>R1</REFERENCE_NUMBER></INDIVIDUAL>\n"),
       4, "INDIVIDUAL[2]: id 'R1' appears twice"},
      {wrap(ok + "<INDIVIDUAL><DATAID>4</DATAID><DATAID>5</DATAID><FIRST_NAME>D</FIRST_NAME>"
                 "</INDIVIDUAL>\n"),
       4, "INDIVIDUAL[2]/DATAID appears twice"},
      {wrap(ok + "<INDIVIDUAL><DATAID>6</DATAID><FIRST_NAME>E</FIRST_NAME>\n"
                 "<INDIVIDUAL_ALIAS><ALIAS_NAME><X/></ALIAS_NAME></INDIVIDUAL_ALIAS>"
                 "</INDIVIDUAL>\n"),
       5, "INDIVIDUAL[2]/INDIVIDUAL_ALIAS[1]/ALIAS_NAME holds elements"},
  };
  for (const Case& c : cases) {
    std::vector<Diagnostic> errors;
    auto targets = ParseUnConsolidatedXml({"un.xml", c.text}, errors);
    EXPECT_TRUE(targets.empty()) << c.message;
    ASSERT_EQ(errors.size(), 1u) << Errors(errors);
    EXPECT_EQ(errors[0].file, "un.xml");
    EXPECT_EQ(errors[0].pos.line, c.line) << errors[0].ToString();
    EXPECT_NE(errors[0].message.find(c.message), std::string::npos) << errors[0].ToString();
  }
}

// A policy screening against each published list; the reason names the alias that matched.
TEST(PublishedListBundleTest, ScreensPrimaryNamesAndAliasesOfEachFormat) {
  BundleSource source;
  source.version = "1";
  source.policy_text = R"(
list os = names from opensanctions "targets.simple.csv"
list sdn = names from ofac_sdn "sdn.csv" "alt.csv"
list un = names from un_consolidated "consolidated.xml"
rule os_hit {
  when watchlist_match(txn.receiver.name, @os) >= 0.92
  then block
  reason "OS_MATCH"
}
rule sdn_hit {
  when watchlist_match(txn.receiver.name, @sdn) >= 0.92
  then block
  reason "SDN_MATCH"
}
rule un_hit {
  when watchlist_match(txn.receiver.name, @un) >= 0.92
  then block
  reason "UN_MATCH"
}
)";
  for (const char* f : {"targets.simple.csv", "sdn.csv", "alt.csv", "consolidated.xml"}) {
    source.files[f] = ReadData(f);
  }
  auto compiled = CompileBundle(source, testing::kTestFeatures);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  const std::array<double, 4> values{0, 0, 0, 0};
  const FeatureView features{values, testing::kTestFeatures, "test"};
  const auto& info = (*compiled)->info();
  ASSERT_EQ(info.lists.size(), 3u);
  EXPECT_EQ(info.lists[0].entries, 3u);  // targets, not names
  EXPECT_EQ(info.lists[1].entries, 3u);
  EXPECT_EQ(info.lists[2].entries, 3u);

  struct Case {
    const char* name;
    const char* rule;
    const char* reason_part;
  };
  const Case cases[] = {
      {"Волков Иван", "os_hit", "alias of 'Ivan Sergeyevich Volkov'"},
      {"Northwind Maritime Trading LLC", "os_hit",
       "'Northwind Maritime Trading L.L.C.' [NK-tst2acme]"},
      {"Southern Kestrel Lines", "sdn_hit", "(fka alias of 'KESTREL SHIPPING S.A.') [9001]"},
      {"Kareem Hadad", "sdn_hit", "[9002]"},
      {"Ahmed Javid Tesskhan", "un_hit", "(good alias of 'AHMAD JAVED TESTKHAN') [QDi.901]"},
      {"Golden Lantern Trading Co. Ltd", "un_hit", "[KPe.901]"},
  };
  for (const Case& c : cases) {
    Transaction txn = testing::MakeTxn(testing::Usd(100));
    txn.receiver.name = c.name;
    PolicyResult result = (*compiled)->Evaluate(txn, features, std::nullopt);
    ASSERT_EQ(result.outcome, Outcome::kBlock) << c.name;
    ASSERT_FALSE(result.reasons.empty()) << c.name;
    EXPECT_EQ(result.reasons[0].rule, c.rule) << c.name;
    EXPECT_NE(result.reasons[0].message.find(c.reason_part), std::string::npos)
        << c.name << ": " << result.reasons[0].message;
  }
  Transaction innocent = testing::MakeTxn(testing::Usd(100));
  innocent.receiver.name = "Northwind Bakery";
  EXPECT_EQ((*compiled)->Evaluate(innocent, features, std::nullopt).outcome, Outcome::kAllow);
}

TEST(PublishedListBundleTest, ABadListFileRefusesTheBundleAndTheFormatNeedsItsFiles) {
  BundleSource source;
  source.version = "1";
  source.policy_text = "list sdn = names from ofac_sdn \"sdn.csv\" \"alt.csv\"\n";
  source.files["sdn.csv"] = ReadData("sdn.csv");
  source.files["alt.csv"] = "9001,1,\"xyz\",\"NAME\",-0- \n";
  auto compiled = CompileBundle(source, testing::kTestFeatures);
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.status().message().find("alt.csv:1:1: field 'alt_type': 'xyz'"),
            std::string::npos)
      << compiled.status().message();

  std::vector<Diagnostic> errors;
  source.policy_text = "list sdn = names from ofac_sdn \"sdn.csv\"\n";
  EXPECT_FALSE(CompileBundle(source, testing::kTestFeatures, &errors).ok());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("the alternate names file (alt.csv)"), std::string::npos)
      << errors[0].ToString();
  source.policy_text = "list c = countries from opensanctions \"x.csv\"\n";
  EXPECT_FALSE(CompileBundle(source, testing::kTestFeatures, &errors).ok());
  source.policy_text = "list n = names from worldcheck \"x.csv\"\n";
  EXPECT_FALSE(CompileBundle(source, testing::kTestFeatures, &errors).ok());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("opensanctions, ofac_sdn or un_consolidated"), std::string::npos)
      << errors[0].ToString();
}

}  // namespace
}  // namespace verdict
