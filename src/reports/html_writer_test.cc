#include "reports/html_writer.h"

#include <gtest/gtest.h>

#include "reports/report_test_util.h"

namespace verdict::reports {
namespace {

using testing_util::ConfiguredEntity;
using testing_util::EscalatedReportData;
using testing_util::kTransactionAt;

TEST(HtmlWriterTest, TheNarrativeCarriesTheCaseAndPrints) {
  const std::string html = WriteHtml(EscalatedReportData(), ConfiguredEntity(), kTransactionAt);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<h1>Suspicious transaction report</h1>"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
  EXPECT_NE(html.find("break-before: page"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  for (const char* text :
       {"tx-1", "9950.00 USD", "John Smith", "ACC-2", "BANKGB22", "STRUCTURING",
        "4 amounts within 10% below 10,000", "sender_near_threshold_count_24h", "+1.4200",
        "Same-day pass-through", "Called the customer.", "Example Bank", "Maria Lopez"}) {
    EXPECT_NE(html.find(text), std::string::npos) << text;
  }
  // The proof: the record's hash, the root, the path, verified.
  EXPECT_NE(html.find(std::string(64, 'e')), std::string::npos);
  EXPECT_NE(html.find(std::string(64, 'a')), std::string::npos);
  EXPECT_NE(html.find(std::string(64, '2')), std::string::npos);
  EXPECT_NE(html.find("<th>Inclusion proof verified</th><td>yes</td>"), std::string::npos);
  EXPECT_NE(html.find("the latest signed checkpoint"), std::string::npos);
}

TEST(HtmlWriterTest, TextIsEscaped) {
  ReportData d = EscalatedReportData();
  d.transaction.receiver.name = "<script>alert(1)</script>";
  d.case_file.comments[0].text = "a & b";
  const std::string html = WriteHtml(d, ConfiguredEntity(), kTransactionAt);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("a &amp; b"), std::string::npos);
}

TEST(HtmlWriterTest, ACaseNotEscalatedSaysItIsNoReport) {
  ReportData d = EscalatedReportData();
  d.case_file.status = cases::CaseStatus::kInReview;
  d.case_file.disposition = cases::Disposition::kNone;
  d.proof.anchor = ProofAnchor::kHead;
  const std::string html = WriteHtml(d, ReportingEntity{}, kTransactionAt);
  EXPECT_NE(html.find("<h1>Case narrative</h1>"), std::string::npos);
  EXPECT_NE(html.find("Not a suspicious transaction report: the case is in_review"),
            std::string::npos);
  EXPECT_NE(html.find("durable head"), std::string::npos);
  EXPECT_EQ(html.find("Suspicious transaction report</h1>"), std::string::npos);
}

}  // namespace
}  // namespace verdict::reports
