// [reports] configuration read by engine_options.cc through reports::ParseReportTables
// (docs/reports.md).
#include <gtest/gtest.h>

#include <string>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(ReportOptionsTest, NoneByDefault) {
  auto defaults = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_FALSE(defaults->reports.defaults.rentity_id.has_value());
  EXPECT_TRUE(defaults->reports.tenants.empty());
}

TEST(ReportOptionsTest, ReadsTheTableAndItsTenants) {
  auto set = ParseEngineOptions(
      "[reports]\nrentity_id = 7\ncurrency_code_local = \"GBP\"\n"
      "[reports.tenants.acme]\nrentity_id = 8\n",
      "t.toml");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(*set->reports.Resolve("other").settings.rentity_id, 7);
  EXPECT_EQ(*set->reports.Resolve("acme").settings.rentity_id, 8);
  EXPECT_EQ(*set->reports.Resolve("acme").settings.currency_code_local, "GBP");
}

TEST(ReportOptionsTest, ABadKeyNamesTheFileAndTheKey) {
  auto bad = ParseEngineOptions("[reports]\nrentity = 7\n", "verdict.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "reports.rentity");
  EXPECT_NE(bad.status().message().find("verdict.toml"), std::string::npos);
  bad = ParseEngineOptions("reports = 3\n", "verdict.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "reports");
}

}  // namespace
}  // namespace verdict
