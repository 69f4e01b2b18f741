#include "reports/goaml_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "reports/report_test_util.h"

namespace verdict::reports {
namespace {

using testing_util::ConfiguredEntity;
using testing_util::EscalatedReportData;
using testing_util::kTransactionAt;

constexpr int64_t kSubmittedAt = kTransactionAt + 86'400'000'000;

// xmllint's verdict on `xml` against src/reports/goaml_str.xsd (tests run in the source tree):
// empty when valid, else what it printed. xmllint comes with scripts/setup (libxml2-utils).
std::string SchemaErrors(const std::string& xml) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "goaml_" + std::to_string(::getpid()) + ".xml";
  const std::string out = path + ".out";
  std::ofstream(path, std::ios::binary) << xml;
  const std::string command =
      "xmllint --noout --schema src/reports/goaml_str.xsd " + path + " > " + out + " 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream in(out);
  std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  std::filesystem::remove(out);
  return rc == 0 ? std::string() : "xmllint exit " + std::to_string(rc) + ": " + printed;
}

TEST(GoamlWriterTest, AnEscalatedCaseValidatesAgainstTheSchema) {
  auto xml = WriteGoaml(EscalatedReportData(), ConfiguredEntity(), kSubmittedAt);
  ASSERT_TRUE(xml.ok()) << xml.status().message();
  EXPECT_EQ(SchemaErrors(*xml), "") << *xml;
  EXPECT_NE(xml->find("<rentity_id>4711</rentity_id>"), std::string::npos);
  EXPECT_NE(xml->find("<submission_date>2026-12-03T10:15:30</submission_date>"), std::string::npos);
  EXPECT_NE(xml->find("<date_transaction>2026-12-02T10:15:30</date_transaction>"),
            std::string::npos);
  EXPECT_NE(xml->find("<amount_local>9950.00</amount_local>"), std::string::npos);
  EXPECT_NE(xml->find("<transmode_code>E</transmode_code>"), std::string::npos);
  // Both reasons map to one indicator: written once.
  EXPECT_NE(xml->find("<report_indicators>\n    <indicator>SA-STRUCT</indicator>\n  </"),
            std::string::npos)
      << *xml;
  // The bank's own client's account carries the bank's name; the other's only its BIC.
  EXPECT_NE(xml->find("<institution_name>Example Bank</institution_name>\n        <swift>"
                      "BANKUS33</swift>"),
            std::string::npos);
  EXPECT_EQ(xml->find("<institution_name>Example Bank</institution_name>\n        <swift>"
                      "BANKGB22</swift>"),
            std::string::npos);
}

TEST(GoamlWriterTest, TextIsEscapedAndFreeTextBoundedStillValid) {
  ReportData d = EscalatedReportData();
  d.transaction.sender.name = "O'Brien & <Sons> \"Ltd\"\x01";
  d.transaction.remittance = "für </transaction> & co";
  d.case_file.disposition_note = std::string(5000, 'x');
  auto xml = WriteGoaml(d, ConfiguredEntity(), kSubmittedAt);
  ASSERT_TRUE(xml.ok()) << xml.status().message();
  EXPECT_EQ(SchemaErrors(*xml), "") << *xml;
  EXPECT_NE(xml->find("O&#39;Brien &amp; &lt;Sons&gt; &quot;Ltd&quot;\xEF\xBF\xBD"),
            std::string::npos);
  EXPECT_NE(xml->find("für &lt;/transaction&gt; &amp; co"), std::string::npos);
}

TEST(GoamlWriterTest, ArbitraryJournaledTextStillMakesAValidFile) {
  // Party names, remittance text and the analyst's note as any bytes a record could hold.
  std::mt19937 random(44);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(1, 140);
  auto text = [&] {
    std::string s(static_cast<size_t>(length(random)), ' ');
    for (char& c : s) c = static_cast<char>(byte(random));
    return s;
  };
  for (int round = 0; round < 12; ++round) {
    ReportData d = EscalatedReportData();
    d.transaction.sender.name = text();
    d.transaction.receiver.name = text();
    d.transaction.remittance = text();
    d.case_file.disposition_note = text();
    auto xml = WriteGoaml(d, ConfiguredEntity(), kSubmittedAt);
    ASSERT_TRUE(xml.ok()) << xml.status().message();
    EXPECT_EQ(SchemaErrors(*xml), "") << "round " << round;
  }
}

TEST(GoamlWriterTest, AnInstitutionWithoutABicIsWrittenByItsCode) {
  ReportData d = EscalatedReportData();
  d.transaction.receiver.bank = "SORT-40-11-62";
  auto xml = WriteGoaml(d, ConfiguredEntity(), kSubmittedAt);
  ASSERT_TRUE(xml.ok()) << xml.status().message();
  EXPECT_EQ(SchemaErrors(*xml), "") << *xml;
  EXPECT_NE(xml->find("<institution_code>SORT-40-11-62</institution_code>"), std::string::npos);
}

TEST(GoamlWriterTest, OnlyAnEscalatedCaseIsReported) {
  ReportData d = EscalatedReportData();
  for (const auto disposition : {cases::Disposition::kNone, cases::Disposition::kTruePositive,
                                 cases::Disposition::kFalsePositive}) {
    d.case_file.disposition = disposition;
    auto xml = WriteGoaml(d, ConfiguredEntity(), kSubmittedAt);
    ASSERT_FALSE(xml.ok());
    EXPECT_EQ(xml.status().field(), "format");
    EXPECT_EQ(GoamlErrorCode(xml.status()), kCaseNotEscalated);
  }
}

TEST(GoamlWriterTest, MissingConfigurationIsNamedNeverAnInvalidFile) {
  ReportingEntity entity = ConfiguredEntity();
  entity.settings.rentity_id.reset();
  auto xml = WriteGoaml(EscalatedReportData(), entity, kSubmittedAt);
  ASSERT_FALSE(xml.ok());
  EXPECT_EQ(xml.status().field(), "reports.rentity_id");
  EXPECT_EQ(GoamlErrorCode(xml.status()), kReportNotConfigured);

  entity = ConfiguredEntity();
  entity.settings.default_transmode_code.reset();
  xml = WriteGoaml(EscalatedReportData(), entity, kSubmittedAt);
  ASSERT_FALSE(xml.ok());
  EXPECT_EQ(xml.status().field(), "reports.default_transmode_code");
  entity.settings.transmode_codes["wire"] = "WIRE";  // the channel's own code suffices
  EXPECT_TRUE(WriteGoaml(EscalatedReportData(), entity, kSubmittedAt).ok());

  entity = ConfiguredEntity();
  entity.settings.indicators.clear();
  entity.settings.default_indicator.reset();
  xml = WriteGoaml(EscalatedReportData(), entity, kSubmittedAt);
  ASSERT_FALSE(xml.ok());
  EXPECT_EQ(xml.status().field(), "reports.default_indicator");
}

TEST(GoamlWriterTest, TransactionsGoamlCannotDescribeAreRefusedNamingTheField) {
  struct Case {
    void (*change)(ReportData&);
    std::string_view field;
  };
  const Case cases[] = {
      {[](ReportData& d) { d.transaction.currency = "EUR"; }, "transaction.currency"},
      {[](ReportData& d) { d.transaction.sender.bank.clear(); }, "transaction.sender.bank"},
      {[](ReportData& d) { d.transaction.receiver.country.clear(); },
       "transaction.receiver.country"},
      {[](ReportData& d) { d.transaction.sender.name = std::string(256, 'n'); },
       "transaction.sender.name"},
      {[](ReportData& d) { d.transaction.timestamp_us = -2'208'988'800'000'001; },
       "transaction.timestamp"},
  };
  for (const Case& c : cases) {
    ReportData d = EscalatedReportData();
    c.change(d);
    auto xml = WriteGoaml(d, ConfiguredEntity(), kSubmittedAt);
    ASSERT_FALSE(xml.ok()) << c.field;
    EXPECT_EQ(xml.status().field(), c.field);
    EXPECT_EQ(GoamlErrorCode(xml.status()), kReportIncomplete);
  }
}

TEST(GoamlWriterTest, TheSchemaRefusesWhatGoamlForbids) {
  // The test's own check: the schema is not a rubber stamp.
  auto xml = WriteGoaml(EscalatedReportData(), ConfiguredEntity(), kSubmittedAt);
  ASSERT_TRUE(xml.ok());
  std::string missing_account = *xml;
  const size_t at = missing_account.find("<account>ACC-1</account>");
  ASSERT_NE(at, std::string::npos);
  missing_account.erase(at, std::string("<account>ACC-1</account>").size());
  EXPECT_NE(SchemaErrors(missing_account), "");
  std::string bad_amount = *xml;
  const std::string amount = "<amount_local>9950.00</amount_local>";
  bad_amount.replace(bad_amount.find(amount), amount.size(), "<amount_local>9.95e3</amount_local>");
  EXPECT_NE(SchemaErrors(bad_amount), "");
}

}  // namespace
}  // namespace verdict::reports
