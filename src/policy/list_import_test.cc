// ListImport: the body `verdict lists import` sends and the bundle it makes.
#include "policy/list_import.h"

#include <gtest/gtest.h>

#include "policy/policy_test_util.h"

namespace verdict {
namespace {

TEST(ListImportTest, BodyRoundTripsAndIsChecked) {
  const ListImport sent{"acme", "sdn", ListFormat::kOfacSdn, "2026-12-07", {"a,\"b\"\n", "c"}};
  auto read = ParseListImportJson(ListImportJson(sent));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->tenant, "acme");
  EXPECT_EQ(read->list, "sdn");
  EXPECT_EQ(read->format, ListFormat::kOfacSdn);
  EXPECT_EQ(read->version, "2026-12-07");
  EXPECT_EQ(read->files, sent.files);

  struct Case {
    const char* body;
    const char* field;
  };
  const Case bad[] = {
      {R"({"tenant":"t","list":"l","format":"ofac_sdn","version":"1","files":["x"]})", "files"},
      {R"({"tenant":"t","list":"l","format":"worldcheck","version":"1","files":["x"]})", "format"},
      {R"({"tenant":"t","list":"l","format":"opensanctions","files":["x"]})", "version"},
      {R"({"list":"l","format":"opensanctions","version":"1","files":["x"]})", "tenant"},
      {R"({"tenant":"t","list":"l","format":"opensanctions","version":"1","files":[1]})", "files"},
      {R"({"tenant":"t","list":"l","format":"opensanctions","version":"1","extra":"x"})", "extra"},
  };
  for (const Case& c : bad) {
    auto r = ParseListImportJson(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.status().field(), c.field) << r.status().ToString();
  }
  EXPECT_FALSE(ParseListImportJson("[").ok());
}

TEST(ListImportTest, ReplacesOnlyTheListsFilesAndRoundTripsTheBundle) {
  BundleSource bundle = testing::Source(
      "list un = names from un_consolidated \"un.xml\"\n"
      "list sdn = names from ofac_sdn \"sdn.csv\" \"alt.csv\"\n"
      "list c = countries [\"IR\"]\n",
      {{"un.xml", "old un"}, {"sdn.csv", "old sdn"}, {"alt.csv", "old alt"}});
  auto next =
      WithImportedList(bundle, {"t", "sdn", ListFormat::kOfacSdn, "v2", {"new sdn", "new alt"}});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->files.at("sdn.csv"), "new sdn");
  EXPECT_EQ(next->files.at("alt.csv"), "new alt");
  EXPECT_EQ(next->files.at("un.xml"), "old un");
  auto back = ParseBundleJson(BundleJson(*next));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->files, next->files);
  EXPECT_EQ(back->policy_text, next->policy_text);
  EXPECT_EQ(back->version, next->version);

  auto wrong_format =
      WithImportedList(bundle, {"t", "un", ListFormat::kOpenSanctions, "v2", {"x"}});
  ASSERT_FALSE(wrong_format.ok());
  EXPECT_NE(wrong_format.status().message().find("is from un_consolidated"), std::string::npos)
      << wrong_format.status().message();
  auto no_list = WithImportedList(bundle, {"t", "pep", ListFormat::kOpenSanctions, "v2", {"x"}});
  ASSERT_FALSE(no_list.ok());
  EXPECT_EQ(no_list.status().field(), "list");
  EXPECT_FALSE(WithImportedList(bundle, {"t", "c", ListFormat::kOpenSanctions, "v2", {"x"}}).ok());
}

}  // namespace
}  // namespace verdict
