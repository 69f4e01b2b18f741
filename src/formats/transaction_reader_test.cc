#include "formats/transaction_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/rfc3339.h"
#include "formats/csv.h"
#include "formats/formats_test_util.h"
#include "formats/verdict_csv.h"

namespace verdict {
namespace {

using testing_util::ReadAll;

std::unique_ptr<TransactionReader> FromString(const std::string& data,
                                              CsvFormat format = CsvFormat::kAuto) {
  ReaderOptions options;
  options.format = format;
  auto r = TransactionReader::FromString(data, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

std::filesystem::path TempDir() {
  auto dir = std::filesystem::temp_directory_path() /
             ("verdict_formats_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(CsvTest, SplitsQuotedFields) {
  std::vector<std::string> f;
  ASSERT_TRUE(SplitCsvLine("a,\"b,c\",\"d\"\"e\",", &f).ok());
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[1], "b,c");
  EXPECT_EQ(f[2], "d\"e");
  EXPECT_EQ(f[3], "");
  EXPECT_FALSE(SplitCsvLine("a,\"b", &f).ok());
  EXPECT_FALSE(SplitCsvLine("a,b\"c", &f).ok());
  EXPECT_FALSE(SplitCsvLine("\"a\"b", &f).ok());
}

TEST(VerdictCsvTest, RoundTripsThroughTheWriter) {
  LabelledTransaction t;
  t.txn.transaction_id = "T1";
  t.txn.timestamp_us = 1'767'225'600'000'000 + 123;
  t.txn.amount = Money(995'000, *FindCurrency("USD"));
  t.txn.sender = Party{{"A,1", "BKAXUS22"}, "US", {}};
  t.txn.receiver = Party{{"B", ""}, "GB", {}};
  t.txn.channel = "wire";
  t.txn.type = "transfer";
  t.label = true;
  t.typology = "structuring";
  t.pattern_id = "structuring-0001";
  std::string csv(kVerdictCsvHeader);
  csv += "\n";
  AppendVerdictCsvRow(t, &csv);
  csv += "\n";
  auto reader = FromString(csv);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->format(), CsvFormat::kVerdict);
  auto rows = ReadAll(*reader);
  ASSERT_EQ(rows.size(), 1u);
  const LabelledTransaction& r = rows[0];
  EXPECT_EQ(r.txn.transaction_id, "T1");
  EXPECT_EQ(r.txn.timestamp_us, t.txn.timestamp_us);
  EXPECT_EQ(r.txn.amount, t.txn.amount);
  EXPECT_EQ(r.txn.sender.ref.account, "A,1");
  EXPECT_EQ(r.txn.receiver.country, "GB");
  EXPECT_EQ(r.label, std::optional<bool>(true));
  EXPECT_EQ(r.typology, "structuring");
  EXPECT_EQ(r.pattern_id, "structuring-0001");
  EXPECT_EQ(r.row, 0u);
  EXPECT_EQ(r.line, 2u);
}

TEST(VerdictCsvTest, BadRowsAreCountedWithLineNumbers) {
  std::string csv(kVerdictCsvHeader);
  csv += "\n";
  csv += "T1,2026-01-01T00:00:00Z,10.00,USD,A,,,B,,,,,0,,\n";       // line 2: good
  csv += "T2,2026-01-01T00:00:00Z,-10.00,USD,A,,,B,,,,,0,,\n";      // line 3: negative amount
  csv += "T3,yesterday,10.00,USD,A,,,B,,,,,0,,\n";                  // line 4: bad timestamp
  csv += "\n";                                                      // line 5: blank, skipped
  csv += "T4,2026-01-01T00:00:00Z,10.00,XYZ,A,,,B,,,,,0,,\n";       // line 6: unknown currency
  csv += "T5,2026-01-01T00:00:00Z,10.00,USD,A,,,B\n";               // line 7: too few fields
  csv += "T6,2026-01-01T00:00:00Z,10.001,USD,A,,,B,,,,,maybe,,\n";  // line 8: bad label
  csv += "T7,2026-01-01T01:00:00Z,10.5,EUR,A,,,B,,,,,,,\n";         // line 9: good, no label
  auto reader = FromString(csv);
  ASSERT_NE(reader, nullptr);
  auto rows = ReadAll(*reader);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].row, 6u);
  EXPECT_EQ(rows[1].line, 9u);
  EXPECT_FALSE(rows[1].label.has_value());
  EXPECT_EQ(rows[1].txn.amount.minor_units(), 1050);
  const ReadStats& s = reader->stats();
  EXPECT_EQ(s.rows, 7u);
  EXPECT_EQ(s.good_rows, 2u);
  EXPECT_EQ(s.bad_rows, 5u);
  ASSERT_EQ(s.bad_row_samples.size(), 5u);
  std::vector<size_t> lines;
  for (const BadRow& b : s.bad_row_samples) lines.push_back(b.line);
  EXPECT_EQ(lines, (std::vector<size_t>{3, 4, 6, 7, 8}));
  EXPECT_NE(s.bad_row_samples[3].message.find("fields"), std::string::npos);
}

TEST(AmlSimLogTest, ParsesStepsLabelsAndAlerts) {
  auto reader = FromString(
      "step,type,amount,nameOrig,oldbalanceOrig,newbalanceOrig,nameDest,oldbalanceDest,"
      "newbalanceDest,isSAR,alertID\n"
      "0,TRANSFER,501.95,982,79229.07,78727.12,23,99168.24,99670.19,0,-1\n"
      "3,TRANSFER,248.9,1107,1,1,104,1,1,1,7\n"
      "x,TRANSFER,1,1,1,1,2,1,1,0,-1\n");
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->format(), CsvFormat::kAmlSimLog);
  auto rows = ReadAll(*reader);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].txn.timestamp_us, ReaderOptions().amlsim_epoch_us);
  EXPECT_EQ(rows[1].txn.timestamp_us, ReaderOptions().amlsim_epoch_us + 3 * 86'400'000'000LL);
  EXPECT_EQ(rows[0].txn.amount.minor_units(), 50195);
  EXPECT_EQ(rows[0].txn.sender.ref.account, "982");
  EXPECT_EQ(rows[0].txn.receiver.ref.account, "23");
  EXPECT_EQ(rows[0].label, std::optional<bool>(false));
  EXPECT_EQ(rows[1].label, std::optional<bool>(true));
  EXPECT_EQ(rows[1].pattern_id, "7");
  EXPECT_EQ(rows[0].txn.transaction_id, "amlsim-0");
  EXPECT_EQ(reader->stats().bad_rows, 1u);
  EXPECT_EQ(reader->stats().bad_row_samples[0].line, 4u);
}

TEST(AmlWorldTest, ParsesPositionalAccountsAndCurrencyNames) {
  auto reader = FromString(
      "Timestamp,From Bank,Account,To Bank,Account,Amount Received,Receiving Currency,"
      "Amount Paid,Payment Currency,Payment Format,Is Laundering\n"
      "2022/09/01 00:20,010,8000EBD30,010,8000EBD31,3697.34,US Dollar,3697.34,US Dollar,"
      "Reinvestment,0\n"
      "2022/09/01 00:22,3208,8000F4580,001,8000F5340,0.01,Euro,0.012,UK Pound,Cheque,1\n"
      "2022/09/01 00:23,1,A,2,B,0.5,Bitcoin,0.00012345678,Bitcoin,Bitcoin,0\n"
      "2022/02/30 00:20,1,A,2,B,1,US Dollar,1,US Dollar,Wire,0\n"
      "2022/09/01 00:20,1,A,2,B,1,US Dollar,1,Doubloon,Wire,0\n");
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->format(), CsvFormat::kAmlWorld);
  auto rows = ReadAll(*reader);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(FormatRfc3339Micros(rows[0].txn.timestamp_us), "2022-09-01T00:20:00.000000Z");
  EXPECT_EQ(rows[0].txn.sender.ref.account, "8000EBD30");
  EXPECT_EQ(rows[0].txn.sender.ref.bank, "010");
  EXPECT_EQ(rows[0].txn.receiver.ref.account, "8000EBD31");
  EXPECT_EQ(rows[0].txn.amount.ToDecimalString(), "3697.34");
  EXPECT_EQ(rows[0].txn.type, "reinvestment");
  EXPECT_EQ(rows[1].txn.amount.currency().code, "GBP");
  EXPECT_EQ(rows[1].txn.amount.minor_units(), 1);  // 0.012 rounds to 0.01
  EXPECT_EQ(rows[1].txn.channel, "cheque");
  EXPECT_EQ(rows[1].label, std::optional<bool>(true));
  EXPECT_EQ(rows[2].txn.amount.currency().code, "XBT");
  EXPECT_EQ(rows[2].txn.amount.minor_units(), 12346);
  EXPECT_EQ(rows[2].txn.channel, "crypto");
  EXPECT_EQ(reader->stats().bad_rows, 2u);
  EXPECT_EQ(reader->stats().bad_row_samples[0].line, 5u);
  EXPECT_EQ(reader->stats().bad_row_samples[1].line, 6u);
}

TEST(ReaderTest, UnknownHeaderAndEmptyInputAreErrors) {
  EXPECT_FALSE(TransactionReader::FromString("a,b,c\n1,2,3\n", {}).ok());
  EXPECT_FALSE(TransactionReader::FromString("", {}).ok());
  ReaderOptions forced;
  forced.format = CsvFormat::kAmlSimLog;  // --format overrides detection
  auto r =
      TransactionReader::FromString("whatever header\n0,TRANSFER,1,a,0,0,b,0,0,0,-1\n", forced);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ReadAll(**r).size(), 1u);
  EXPECT_FALSE(TransactionReader::Open({.path = "/nonexistent/file.csv"}).ok());
  EXPECT_FALSE(ParseCsvFormat("excel").ok());
}

TEST(ReaderTest, ReadsGzipAndAmlSimFolders) {
  const auto dir = TempDir();
  const auto gz = (dir / "log.csv.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const std::string log =
      "step,type,amount,nameOrig,oldbalanceOrig,newbalanceOrig,nameDest,oldbalanceDest,"
      "newbalanceDest,isSAR,alertID\r\n1,TRANSFER,2.5,a,0,0,b,0,0,0,-1\r\n"
      "2,TRANSFER,3,b,0,0,c,0,0,1,4";  // CRLF, and no newline at the end
  gzwrite(f, log.data(), static_cast<unsigned>(log.size()));
  gzclose(f);
  auto gz_reader = TransactionReader::Open({.path = gz});
  ASSERT_TRUE(gz_reader.ok()) << gz_reader.status().ToString();
  auto rows = ReadAll(**gz_reader);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].pattern_id, "4");

  const auto folder = dir / "20K_fanin200";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "nodes.csv") << "nodeid,isFraud,init_balance,fraudStep\n"
                                      << "0,0,1.0,-1\n1,1,1.0,5\n2,1,1.0,3\n";
  std::ofstream(folder / "transactions.csv") << "sourceNodeId,targetNodeId,value,time\n"
                                             << "0,1,10.5,1\n1,2,20,4\n1,2,20,5\nbad\n";
  auto folder_reader = TransactionReader::Open({.path = folder.string()});
  ASSERT_TRUE(folder_reader.ok()) << folder_reader.status().ToString();
  EXPECT_EQ((*folder_reader)->format(), CsvFormat::kAmlSimFolder);
  rows = ReadAll(**folder_reader);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].label, std::optional<bool>(false));  // node 0 is normal
  EXPECT_EQ(rows[1].label, std::optional<bool>(false));  // before node 1's fraudStep
  EXPECT_EQ(rows[2].label, std::optional<bool>(true));
  EXPECT_EQ(rows[2].typology, "fan_in");
  EXPECT_EQ((*folder_reader)->stats().bad_row_samples.at(0).line, 5u);
  ASSERT_NE((*folder_reader)->account_fraud_steps(), nullptr);
  EXPECT_EQ((*folder_reader)->account_fraud_steps()->at("1"), 5);
  std::filesystem::remove_all(dir);
}

TEST(ReaderTest, ReadsTheRealAmlSimLogWhenPresent) {
  const std::string path = "../shared/data/amlsim/1K_tx_log.csv.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
  auto reader = TransactionReader::Open({.path = path});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->format(), CsvFormat::kAmlSimLog);
  LabelledTransaction t;
  size_t rows = 0, sar = 0;
  while (true) {
    auto more = (*reader)->Next(&t);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
    ++rows;
    sar += *t.label;
  }
  EXPECT_EQ(rows, 121'457u);  // per the data's README
  EXPECT_EQ(sar, 65u);
  EXPECT_EQ((*reader)->stats().bad_rows, 0u);
}

}  // namespace
}  // namespace verdict
