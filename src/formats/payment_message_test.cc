#include "formats/payment_message.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "formats/formats_test_util.h"
#include "formats/message_file.h"
#include "formats/payment_test_samples.h"
#include "formats/transaction_reader.h"

namespace verdict {
namespace {

using testing_util::ReadAll;

TEST(PaymentMessageTest, ClassifiesMediaTypes) {
  EXPECT_EQ(*ClassifyPaymentMediaType("application/xml", ""), PaymentMediaType::kIso20022);
  EXPECT_EQ(*ClassifyPaymentMediaType("Application/XML", "charset=UTF-8"),
            PaymentMediaType::kIso20022);
  EXPECT_EQ(*ClassifyPaymentMediaType("text/xml", ""), PaymentMediaType::kIso20022);
  EXPECT_EQ(*ClassifyPaymentMediaType("text/plain", "format=swift-mt"), PaymentMediaType::kSwiftMt);
  EXPECT_EQ(*ClassifyPaymentMediaType("text/plain", " charset=us-ascii; format=\"SWIFT-MT\""),
            PaymentMediaType::kSwiftMt);
  EXPECT_EQ(*ClassifyPaymentMediaType("application/x-swift-mt", ""), PaymentMediaType::kSwiftMt);
  EXPECT_EQ(*ClassifyPaymentMediaType("application/json", ""), PaymentMediaType::kOther);
  Result<PaymentMediaType> plain = ClassifyPaymentMediaType("text/plain", "");
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(plain.status().reason(), StatusReason::kUnsupportedMediaType);
  EXPECT_FALSE(ClassifyPaymentMediaType("application/xml", "charset=iso-8859-1").ok());
}

TEST(PaymentMessageTest, DecodesBothFamilies) {
  auto xml = DecodePaymentMessage("application/xml", "", samples::kPacs008);
  ASSERT_TRUE(xml.ok()) << xml.status().ToString();
  ASSERT_EQ(xml->size(), 2u);
  EXPECT_TRUE((*xml)[0].ok());
  EXPECT_TRUE((*xml)[1].ok());

  const std::string two = std::string(samples::kMt103) + "\r\n$" + std::string(samples::kMt202Cov);
  auto detailed = DecodePaymentMessageDetailed("text/plain", "format=swift-mt", two);
  ASSERT_TRUE(detailed.ok()) << detailed.status().ToString();
  ASSERT_EQ(detailed->transactions.size(), 2u);
  EXPECT_EQ(detailed->message_type, "MT");
  EXPECT_TRUE(detailed->transactions[0].ok());
  EXPECT_TRUE(detailed->transactions[1].ok());

  auto status = DecodePaymentMessageDetailed("application/xml", "", samples::kPacs002);
  ASSERT_TRUE(status.ok());
  EXPECT_TRUE(status->transactions.empty());
  EXPECT_EQ(status->iso.statuses.size(), 2u);
}

TEST(PaymentMessageTest, OuterAndItemErrors) {
  auto json = DecodePaymentMessage("application/json", "", "{}");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().reason(), StatusReason::kUnsupportedMediaType);
  auto empty = DecodePaymentMessage("application/xml", "", "  ");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);

  std::string bad(samples::kMt103);
  bad.replace(bad.find("EUR9950,50"), 10, "EUR9950.5.0");
  auto items = DecodePaymentMessage("application/x-swift-mt", "",
                                    std::string(samples::kMt202Cov) + "\n" + bad);
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), 2u);
  EXPECT_TRUE((*items)[0].ok());
  ASSERT_FALSE((*items)[1].ok());
  EXPECT_EQ((*items)[1].status().message(), ":32A: line 18: amount \"9950.5.0\" is not a number");
}

TEST(PaymentMessageFileTest, ReaderReadsConcatenatedXmlDocuments) {
  std::string broken(samples::kPacs008);
  broken.replace(broken.find("<NbOfTxs>2"), 10, "<NbOfTxs>9");
  const std::string data = std::string(samples::kPacs008) + std::string(samples::kPain001) +
                           broken + std::string(samples::kPacs002);
  ReaderOptions options;
  auto reader = TransactionReader::FromString(data, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->format(), CsvFormat::kIso20022);
  std::vector<LabelledTransaction> rows = ReadAll(**reader);
  ASSERT_EQ(rows.size(), 4u);  // 2 pacs.008 + 2 pain.001; pacs.002 adds none
  EXPECT_EQ(rows[0].txn.payment.message_type, "pacs.008.001.08");
  EXPECT_EQ(rows[0].line, 1u);
  EXPECT_EQ(rows[2].txn.payment.message_type, "pain.001.001.09");
  EXPECT_GT(rows[2].line, 1u);
  EXPECT_EQ(rows[3].row, 3u);
  const ReadStats& stats = (*reader)->stats();
  EXPECT_EQ(stats.good_rows, 4u);
  EXPECT_EQ(stats.bad_rows, 1u);  // the broken document, as one bad item
  ASSERT_EQ(stats.bad_row_samples.size(), 1u);
  EXPECT_NE(stats.bad_row_samples[0].message.find("NbOfTxs: says 9"), std::string::npos)
      << stats.bad_row_samples[0].message;
}

TEST(PaymentMessageFileTest, ReaderOpensMtFilesByContent) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("verdict_payment_file_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "day.fin";
  std::string bad(samples::kMt103);
  bad.replace(bad.find(":71A:SHA"), 8, ":71A:XYZ");
  {
    std::ofstream out(path, std::ios::binary);
    out << "\n" << samples::kMt103 << "\n$" << samples::kMt202Cov << "\n$\n" << bad << "\n";
  }
  ReaderOptions options;
  options.path = path.string();
  auto reader = TransactionReader::Open(options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->format(), CsvFormat::kSwiftMt);
  std::vector<LabelledTransaction> rows = ReadAll(**reader);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line, 2u);
  EXPECT_EQ(rows[1].txn.payment.message_type, "MT202COV");
  const ReadStats& stats = (*reader)->stats();
  ASSERT_EQ(stats.bad_row_samples.size(), 1u);
  EXPECT_EQ(stats.bad_row_samples[0].message,
            ":71A: line 57: details of charges \"XYZ\" is not BEN, OUR or SHA");

  // A CSV file still reads as CSV after the sniff.
  const auto csv = dir / "rows.csv";
  {
    std::ofstream out(csv);
    out << "nope,header\n";
  }
  options.path = csv.string();
  auto csv_reader = TransactionReader::Open(options);
  ASSERT_FALSE(csv_reader.ok());
  EXPECT_NE(csv_reader.status().message().find("header matches no known format"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace verdict
