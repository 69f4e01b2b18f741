#include "reports/report_config.h"

#include <gtest/gtest.h>

namespace verdict::reports {
namespace {

Result<ReportOptions> ParseReportsText(std::string_view text) {
  toml::table root = toml::parse(text);
  return ParseReportTables(root.get("reports"));
}

constexpr std::string_view kFullConfig = R"(
[reports]
rentity_id = 12
institution_swift = "BANKUS33"
currency_code_local = "USD"
funds_code = "K"
[reports.reporting_person]
first_name = "Maria"
last_name = "Lopez"
[reports.transmode_codes]
wire = "EFT"
[reports.tenants.acme]
rentity_id = 99
currency_code_local = "EUR"
[reports.tenants.acme.transmode_codes]
card = "CARD"
)";

TEST(ReportConfigTest, NoTableIsAnEmptyConfiguration) {
  auto options = ParseReportTables(nullptr);
  ASSERT_TRUE(options.ok());
  EXPECT_FALSE(options->defaults.rentity_id.has_value());
  EXPECT_FALSE(CheckGoaml(options->Resolve("any")).ok());
}

TEST(ReportConfigTest, TenantsOverrideTheDeploymentKeyByKey) {
  auto options = ParseReportsText(kFullConfig);
  ASSERT_TRUE(options.ok()) << options.status().message();
  const ReportingEntity acme = options->Resolve("acme");
  EXPECT_EQ(*acme.settings.rentity_id, 99);
  EXPECT_EQ(*acme.settings.currency_code_local, "EUR");
  EXPECT_EQ(*acme.settings.funds_code, "K");  // inherited
  EXPECT_EQ(acme.settings.transmode_codes.at("wire"), "EFT");
  EXPECT_EQ(acme.settings.transmode_codes.at("card"), "CARD");
  const ReportingEntity other = options->Resolve("other");
  EXPECT_EQ(*other.settings.rentity_id, 12);
  EXPECT_EQ(other.settings.transmode_codes.count("card"), 0u);
  EXPECT_TRUE(CheckGoaml(acme).ok());
  EXPECT_TRUE(CheckGoaml(other).ok());
}

TEST(ReportConfigTest, BadKeysAndValuesAreRefusedNamingTheKey) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"[reports]\nrentity = 1\n", "reports.rentity"},
      {"[reports]\nrentity_id = 0\n", "reports.rentity_id"},
      {"[reports]\nrentity_id = \"12\"\n", "reports.rentity_id"},
      {"[reports]\ncurrency_code_local = \"usd\"\n", "reports.currency_code_local"},
      {"[reports]\ninstitution_swift = \"NOTABIC\"\n", "reports.institution_swift"},
      {"[reports]\nfunds_code = \"\"\n", "reports.funds_code"},
      {"[reports.reporting_person]\nname = \"x\"\n", "reports.reporting_person.name"},
      {"[reports.location]\ncountry_code = \"USA\"\n", "reports.location.country_code"},
      {"[reports.indicators]\nSTRUCTURING = 3\n", "reports.indicators.STRUCTURING"},
      {"[reports.tenants.acme]\nfunds = \"K\"\n", "reports.tenants.acme.funds"},
      {"[reports]\ntenants = 3\n", "reports.tenants"},
      {"[reports]\nfunds_code = \"K \"\n", "reports.funds_code"},
      {"[reports.reporting_person]\nemail = \"mlro at bank\"\n", "reports.reporting_person.email"},
      {"[reports.reporting_person]\nemail = \"a@b@c\"\n", "reports.reporting_person.email"},
  };
  for (const auto& [text, key] : cases) {
    auto options = ParseReportsText(text);
    ASSERT_FALSE(options.ok()) << text;
    EXPECT_EQ(options.status().field(), key) << text << ": " << options.status().message();
  }
}

TEST(ReportConfigTest, AMissingGoamlKeyIsNamed) {
  auto options = ParseReportsText("[reports]\nrentity_id = 5\ncurrency_code_local = \"USD\"\n");
  ASSERT_TRUE(options.ok());
  Status status = CheckGoaml(options->Resolve("acme"));
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.field(), "reports.funds_code");
  EXPECT_NE(status.message().find("[reports.tenants.acme]"), std::string::npos);
  // A partial location needs the rest of goAML's address.
  options = ParseReportsText(std::string(kFullConfig) + "[reports.location]\ncity = \"Paris\"\n");
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(CheckGoaml(options->Resolve("x")).field(), "reports.location.address_type");
}

}  // namespace
}  // namespace verdict::reports
