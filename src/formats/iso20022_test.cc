#include "formats/iso20022.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "api/transaction_json.h"
#include "common/rfc3339.h"
#include "formats/formats_test_util.h"
#include "formats/payment_test_samples.h"

namespace verdict {
namespace {

using testing_util::ReplaceOnce;

Iso20022Message DecodeOk(std::string_view xml) {
  Result<Iso20022Message> m = DecodeIso20022(xml);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(*m) : Iso20022Message{};
}

// The Status of transaction `index` of a message that as a whole decodes.
Status ItemError(std::string_view xml, size_t index = 0) {
  Iso20022Message m = DecodeOk(xml);
  EXPECT_GT(m.transactions.size(), index);
  if (m.transactions.size() <= index) return Status::Ok();
  EXPECT_FALSE(m.transactions[index].ok());
  return m.transactions[index].status();
}

TEST(Iso20022Test, MapsPacs008) {
  Iso20022Message m = DecodeOk(samples::kPacs008);
  EXPECT_EQ(m.message_type, "pacs.008.001.08");
  EXPECT_EQ(m.message_id, "MSG-20261202-0001");
  ASSERT_EQ(m.transactions.size(), 2u);
  ASSERT_TRUE(m.transactions[0].ok()) << m.transactions[0].status().ToString();
  const Transaction& t = *m.transactions[0];
  EXPECT_EQ(t.transaction_id, "8a562c67-ca16-48ba-b074-65581be6f011");  // UETR first
  EXPECT_EQ(FormatRfc3339Micros(t.timestamp_us), "2026-12-02T10:15:30.123000Z");
  EXPECT_EQ(t.amount.ToString(), "9950.50 EUR");
  EXPECT_EQ(t.sender.ref.account, "DE89370400440532013000");
  EXPECT_EQ(t.sender.ref.bank, "COBADEFFXXX");
  EXPECT_EQ(t.sender.country, "DE");
  EXPECT_EQ(t.sender.name, "John Smith");
  EXPECT_EQ(t.receiver.ref.account, "GB82WEST12345698765432");
  EXPECT_EQ(t.receiver.ref.bank, "NWBKGB2L");
  EXPECT_EQ(t.receiver.country, "GB");
  EXPECT_EQ(t.receiver.name, "Acme Ltd");
  EXPECT_EQ(t.remittance, "invoice 4411 order 77");
  EXPECT_EQ(t.channel, "wire");
  EXPECT_EQ(t.type, "transfer");
  EXPECT_EQ(t.priority, Priority::kRealtime);  // LclInstrm INST
  const PaymentInfo& p = t.payment;
  EXPECT_EQ(p.instruction_id, "INSTR-1");
  EXPECT_EQ(p.end_to_end_id, "E2E-INV-4411");
  EXPECT_EQ(p.uetr, "8a562c67-ca16-48ba-b074-65581be6f011");
  EXPECT_EQ(p.settlement_date, "2026-12-02");
  EXPECT_EQ(p.charge_bearer, "SHAR");
  EXPECT_EQ(p.purpose, "GDDS");
  EXPECT_EQ(p.sender_to_receiver, "PHONE BEFORE CREDIT");
  ASSERT_TRUE(p.instructed_amount.has_value());
  EXPECT_EQ(p.instructed_amount->ToString(), "10500.00 USD");
  ASSERT_EQ(p.charges.size(), 1u);
  EXPECT_EQ(p.charges[0].amount.ToString(), "2.50 EUR");
  EXPECT_EQ(p.charges[0].agent, "DEUTDEFF");
  ASSERT_EQ(p.agents.size(), 3u);
  EXPECT_EQ(p.agents[0].role, "instructing");
  EXPECT_EQ(p.agents[0].bic, "DEUTDEFFXXX");
  EXPECT_EQ(p.agents[1].role, "instructed");
  EXPECT_EQ(p.agents[2].role, "intermediary1");
  EXPECT_EQ(p.agents[2].bic, "CHASUS33");

  ASSERT_TRUE(m.transactions[1].ok()) << m.transactions[1].status().ToString();
  const Transaction& u = *m.transactions[1];
  EXPECT_EQ(u.transaction_id, "TX-0002");                                         // no UETR: TxId
  EXPECT_EQ(FormatRfc3339Micros(u.timestamp_us), "2026-12-02T10:00:00.000000Z");  // AccptncDtTm
  EXPECT_EQ(u.amount.ToString(), "1000.00 EUR");
  EXPECT_EQ(u.sender.ref.account, "ACC-77");
  EXPECT_EQ(u.sender.ref.bank, "20041010");
  EXPECT_EQ(u.sender.country, "FR");  // CtryOfRes
  EXPECT_EQ(u.priority, Priority::kStandard);
  EXPECT_EQ(u.payment.charge_bearer, "DEBT");
}

TEST(Iso20022Test, MapsPain001WithPaymentBlockDebtor) {
  Iso20022Message m = DecodeOk(samples::kPain001);
  EXPECT_EQ(m.message_type, "pain.001.001.09");
  ASSERT_EQ(m.transactions.size(), 2u);
  for (const auto& r : m.transactions) ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Transaction& t = *m.transactions[0];
  EXPECT_EQ(t.transaction_id, "PAY-1");                                           // InstrId
  EXPECT_EQ(FormatRfc3339Micros(t.timestamp_us), "2026-12-02T08:00:00.000000Z");  // no offset: UTC
  EXPECT_EQ(t.sender.ref.account, "NL91ABNA0417164300");
  EXPECT_EQ(t.sender.ref.bank, "ABNANL2A");
  EXPECT_EQ(t.sender.name, "Acme Corp");
  EXPECT_EQ(t.sender.country, "NL");
  EXPECT_EQ(t.receiver.ref.bank, "GEBABEBB");
  EXPECT_EQ(t.receiver.country, "BE");
  EXPECT_EQ(t.amount.ToString(), "1500.25 EUR");
  EXPECT_EQ(t.payment.charge_bearer, "SLEV");
  EXPECT_EQ(t.payment.category_purpose, "SUPP");
  EXPECT_EQ(t.payment.settlement_date, "2026-12-03");
  EXPECT_EQ(t.remittance, "INV 2026-118");
  const Transaction& u = *m.transactions[1];
  EXPECT_EQ(u.transaction_id, "E2E-2");                   // no UETR, no InstrId: EndToEndId
  EXPECT_EQ(u.sender.ref.account, "NL91ABNA0417164300");  // same PmtInf debtor
  EXPECT_EQ(u.receiver.ref.bank, "");                     // no CdtrAgt
  EXPECT_EQ(u.payment.charge_bearer, "SHAR");             // transaction overrides PmtInf
}

TEST(Iso20022Test, Pacs002IsASummaryWithoutTransactions) {
  Iso20022Message m = DecodeOk(samples::kPacs002);
  EXPECT_EQ(m.message_type, "pacs.002.001.10");
  EXPECT_TRUE(m.transactions.empty());
  EXPECT_EQ(m.original_message_id, "MSG-20261202-0001");
  EXPECT_EQ(m.group_status, "PART");
  ASSERT_EQ(m.statuses.size(), 2u);
  EXPECT_EQ(m.statuses[0].status, "ACSC");
  EXPECT_EQ(m.statuses[1].status, "RJCT");
  EXPECT_EQ(m.statuses[1].reason, "AC04");
  EXPECT_EQ(m.statuses[1].original_uetr, "8a562c67-ca16-48ba-b074-65581be6f011");
}

TEST(Iso20022Test, PrefixedNamespacesAndWrappers) {
  std::string prefixed(samples::kPacs008);
  // Every element in the ns: prefix.
  std::string out;
  for (size_t i = 0; i < prefixed.size(); ++i) {
    out += prefixed[i];
    if (prefixed[i] == '<' && i + 1 < prefixed.size() && prefixed[i + 1] != '?') {
      if (prefixed[i + 1] == '/') {
        out += '/';
        ++i;
      }
      out += "ns:";
    }
  }
  out = ReplaceOnce(out, "xmlns=", "xmlns:ns=");
  Iso20022Message m = DecodeOk(out);
  ASSERT_EQ(m.transactions.size(), 2u);
  EXPECT_TRUE(m.transactions[0].ok()) << m.transactions[0].status().ToString();

  std::string body(samples::kPacs008);
  body = body.substr(body.find("<Document"));
  const std::string envelope =
      "<BizMsgEnvlp xmlns=\"urn:iso:std:iso:20022:tech:xsd:nvlp.001.001.01\"><Hdr>"
      "<AppHdr xmlns=\"urn:iso:std:iso:20022:tech:xsd:head.001.001.02\">"
      "<BizMsgIdr>BIZ-1</BizMsgIdr><MsgDefIdr>pacs.008.001.08</MsgDefIdr></AppHdr></Hdr><Doc>" +
      body + "</Doc></BizMsgEnvlp>";
  Iso20022Message w = DecodeOk(envelope);
  EXPECT_EQ(w.business_message_id, "BIZ-1");
  ASSERT_EQ(w.transactions.size(), 2u);
  EXPECT_TRUE(w.transactions[1].ok());

  Result<Iso20022Message> mismatch = DecodeIso20022(
      ReplaceOnce(envelope, "<MsgDefIdr>pacs.008.001.08", "<MsgDefIdr>pain.001.001.09"));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().field(), "/BizMsgEnvlp/Hdr/AppHdr/MsgDefIdr");

  const std::string payload =
      "<RequestPayload><AppHdr xmlns=\"urn:iso:std:iso:20022:tech:xsd:head.001.001.02\">"
      "<BizMsgIdr>B2</BizMsgIdr></AppHdr>" +
      body + "</RequestPayload>";
  EXPECT_EQ(DecodeOk(payload).transactions.size(), 2u);
}

TEST(Iso20022Test, TransactionErrorsNameTheElementPath) {
  Status s = ItemError(ReplaceOnce(samples::kPacs008, "<IntrBkSttlmAmt Ccy=\"EUR\">1000<",
                                   "<IntrBkSttlmAmt Ccy=\"EUR\">1000.5.0<"),
                       1);
  EXPECT_EQ(s.field(), "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[2]/IntrBkSttlmAmt");
  EXPECT_NE(s.message().find("amount \"1000.5.0\" is not a number"), std::string::npos)
      << s.message();
  // The other transaction still decodes.
  Iso20022Message m = DecodeOk(ReplaceOnce(samples::kPacs008, "<IntrBkSttlmAmt Ccy=\"EUR\">1000<",
                                           "<IntrBkSttlmAmt Ccy=\"EUR\">x<"));
  EXPECT_TRUE(m.transactions[0].ok());

  struct Case {
    std::string_view from, to, field, words;
  };
  const Case cases[] = {
      {"Ccy=\"EUR\">9950.50", "Ccy=\"EUX\">9950.50",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/IntrBkSttlmAmt", "ISO 4217"},
      {"Ccy=\"EUR\">9950.50", "Ccy=\"EUR\">9950.505",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/IntrBkSttlmAmt", "fraction"},
      {"Ccy=\"EUR\">9950.50", ">9950.50",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/IntrBkSttlmAmt", "Ccy"},
      {"DE89370400440532013000", "DE89370400440532013001",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/DbtrAcct/Id/IBAN", "check digits"},
      {"<BICFI>COBADEFFXXX", "<BICFI>COBADEF",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/DbtrAgt/FinInstnId/BICFI", "8 or 11"},
      {"<Ctry>DE</Ctry>", "<Ctry>QQ</Ctry>",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/Dbtr/PstlAdr/Ctry", "ISO 3166"},
      {"<ChrgBr>SHAR", "<ChrgBr>XXXX", "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/ChrgBr",
       "DEBT, CRED"},
      {"<UETR>8a562c67-ca16-48ba-b074-65581be6f011", "<UETR>8a562c67-ca16-18ba-b074-65581be6f011",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/PmtId/UETR", "version 4"},
      {"<EndToEndId>E2E-INV-4411</EndToEndId>", "",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/PmtId/EndToEndId", "missing"},
      {"<DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct>", "",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/DbtrAcct", "missing"},
      {"<Ustrd>order 77</Ustrd>", "<Ustrd>order\x01 77</Ustrd>",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/RmtInf/Ustrd[2]", "control"},
      {"<Purp><Cd>GDDS</Cd></Purp>", "<Purp><Cd>GDDS</Cd></Purp><Purp><Cd>GDDS</Cd></Purp>",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/Purp[2]", "only once"},
      {"<AccptncDtTm>2026-12-02T11:00:00+01:00", "<AccptncDtTm>2026-13-02T11:00:00",
       "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[2]/AccptncDtTm", "date-time"},
  };
  for (const Case& c : cases) {
    Iso20022Message bad = DecodeOk(ReplaceOnce(samples::kPacs008, c.from, c.to));
    bool found = false;
    for (const auto& r : bad.transactions) {
      if (r.ok()) continue;
      found = true;
      EXPECT_EQ(r.status().field(), c.field) << c.to;
      EXPECT_NE(r.status().message().find(c.words), std::string::npos) << r.status().message();
    }
    EXPECT_TRUE(found) << c.to;
  }
}

TEST(Iso20022Test, MessageLevelErrors) {
  struct Case {
    std::string xml;
    std::string words;
  };
  const Case cases[] = {
      {ReplaceOnce(samples::kPacs008, "<NbOfTxs>2", "<NbOfTxs>3"), "says 3 transactions"},
      {ReplaceOnce(samples::kPacs008, "<CtrlSum>10950.50", "<CtrlSum>10950.51"), "control sum"},
      // Found by iso20022_fuzz: too many digits were accumulated (signed overflow) before refusal.
      {ReplaceOnce(samples::kPacs008, "<CtrlSum>10950.50", "<CtrlSum>4444444444444444444444.5"),
       "is not a number"},
      {ReplaceOnce(samples::kPacs008, "<MsgId>MSG-20261202-0001</MsgId>", ""), "GrpHdr/MsgId"},
      {ReplaceOnce(samples::kPacs008, "pacs.008.001.08", "pacs.008.001.02"), "not accepted"},
      {ReplaceOnce(samples::kPacs008, " xmlns=\"urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08\"",
                   ""),
       "no namespace"},
      {ReplaceOnce(samples::kPacs008, "</Document>", ""), "XML line"},
      {"<Foo/>", "root element"},
      {"not xml at all", "XML line"},
  };
  for (const Case& c : cases) {
    Result<Iso20022Message> m = DecodeIso20022(c.xml);
    ASSERT_FALSE(m.ok()) << c.words;
    EXPECT_NE(m.status().message().find(c.words), std::string::npos) << m.status().message();
  }
  Result<Iso20022Message> m =
      DecodeIso20022(ReplaceOnce(samples::kPacs008, "<NbOfTxs>2", "<NbOfTxs>3"));
  EXPECT_EQ(m.status().field(), "/Document/FIToFICstmrCdtTrf/GrpHdr/NbOfTxs");
}

TEST(Iso20022Test, Pain001BlockErrorsFailItsTransactions) {
  Iso20022Message m =
      DecodeOk(ReplaceOnce(samples::kPain001, "NL91ABNA0417164300", "NL91ABNA0417164301"));
  ASSERT_EQ(m.transactions.size(), 2u);
  for (const auto& r : m.transactions) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().field(), "/Document/CstmrCdtTrfInitn/PmtInf[1]/DbtrAcct/Id/IBAN");
  }
  Status s = ItemError(
      ReplaceOnce(samples::kPain001, "<InstdAmt Ccy=\"EUR\">250", "<InstdAmt Ccy=\"EUR\">0"), 1);
  EXPECT_EQ(s.field(), "/Document/CstmrCdtTrfInitn/PmtInf[1]/CdtTrfTxInf[2]/Amt/InstdAmt");
  EXPECT_NE(s.message().find("positive"), std::string::npos);
}

TEST(Iso20022Test, MappingRoundTripsThroughCanonicalJson) {
  Iso20022Message m = DecodeOk(samples::kPacs008);
  ASSERT_TRUE(m.transactions[0].ok());
  const Transaction& t = *m.transactions[0];
  TransactionDecoder decoder;
  Result<Transaction> back = decoder.DecodeOne(CanonicalTransactionJson(t));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->transaction_id, t.transaction_id);
  EXPECT_EQ(back->timestamp_us, t.timestamp_us);
  EXPECT_EQ(back->amount, t.amount);
  EXPECT_EQ(back->sender.ref.account, t.sender.ref.account);
  EXPECT_EQ(back->sender.ref.bank, t.sender.ref.bank);
  EXPECT_EQ(back->sender.country, t.sender.country);
  EXPECT_EQ(back->sender.name, t.sender.name);
  EXPECT_EQ(back->receiver.ref.account, t.receiver.ref.account);
  EXPECT_EQ(back->receiver.country, t.receiver.country);
  EXPECT_EQ(back->remittance, t.remittance);
  EXPECT_EQ(back->priority, t.priority);
  EXPECT_EQ(back->payment, t.payment);
  EXPECT_EQ(CanonicalTransactionJson(*back), CanonicalTransactionJson(t));
}

// The journal reads a decision's payment back (audit replay) with at most 32 charges: a
// message with more is refused for that transaction, not journaled past what reads back.
TEST(Iso20022Test, ChargesBeyondWhatTheJournalReadsBackAreRefused) {
  const std::string charge =
      "<ChrgsInf><Amt Ccy=\"EUR\">2.50</Amt><Agt><FinInstnId><BICFI>DEUTDEFF</BICFI></FinInstnId>"
      "</Agt></ChrgsInf>";
  std::string many;
  for (size_t i = 0; i < kMaxPaymentListEntries; ++i) many += charge;
  Iso20022Message at_limit = DecodeOk(ReplaceOnce(samples::kPacs008, charge, many));
  ASSERT_TRUE(at_limit.transactions[0].ok()) << at_limit.transactions[0].status().ToString();
  EXPECT_TRUE(
      TransactionDecoder().DecodeOne(CanonicalTransactionJson(*at_limit.transactions[0])).ok());
  Iso20022Message over = DecodeOk(ReplaceOnce(samples::kPacs008, charge, many + charge));
  ASSERT_FALSE(over.transactions[0].ok());
  EXPECT_EQ(over.transactions[0].status().field(),
            "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[1]/ChrgsInf[33]");
  EXPECT_TRUE(over.transactions[1].ok());  // the other transaction is not affected
}

// Attack inputs: each refused, and fast (the test does not time them; a hang or blow-up
// would show as a test timeout or an out-of-memory failure).
// A NUL, or any control character, raw or as a character reference, is not XML: decoded, it
// cut a value read as a C string short ("9&#0;950.50" was read as 9.00).
TEST(Iso20022Test, RefusesControlCharactersAndTheirReferences) {
  for (const std::string& xml :
       {ReplaceOnce(samples::kPacs008, ">9950.50<", ">9&#0;950.50<"),
        ReplaceOnce(samples::kPacs008, ">9950.50<", ">9&#x0;950.50<"),
        ReplaceOnce(samples::kPacs008, ">9950.50<", ">9&#x1F;950.50<"),
        ReplaceOnce(samples::kPacs008, ">9950.50<", ">9&#xD800;950.50<"),
        ReplaceOnce(samples::kPacs008, ">9950.50<", ">9&#1114112;950.50<"),
        ReplaceOnce(samples::kPacs008, ">9950.50<", ">9&#;950.50<"),
        ReplaceOnce(samples::kPacs008, ">9950.50<", std::string(">9\0", 3) + "950.50<"),
        ReplaceOnce(samples::kPacs008, "Ccy=\"", "Ccy=\"&#0;")}) {
    Result<Iso20022Message> r = DecodeIso20022(xml);
    ASSERT_FALSE(r.ok()) << xml.substr(xml.find("9"), 12);
    EXPECT_NE(r.status().message().find("XML line"), std::string::npos) << r.status().message();
  }
  // Allowed references still decode.
  Iso20022Message m = DecodeOk(ReplaceOnce(samples::kPacs008, ">9950.50<", ">&#57;950.&#x35;0<"));
  ASSERT_TRUE(m.transactions[0].ok());
}

TEST(Iso20022Test, RefusesAttackInputs) {
  const std::string laughs =
      "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
      "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
      "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]>"
      "<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08\">&lol3;</Document>";
  Result<Iso20022Message> r = DecodeIso20022(laughs);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("DOCTYPE"), std::string::npos);

  const std::string external =
      "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>"
      "<Document>&xxe;</Document>";
  r = DecodeIso20022(external);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("DOCTYPE"), std::string::npos);

  // An entity reference without a declaration is left as text by the parser, never
  // resolved; here it lands in an amount and fails as a number.
  Iso20022Message undeclared = DecodeOk(ReplaceOnce(samples::kPacs008, ">9950.50<", ">&xxe;<"));
  EXPECT_FALSE(undeclared.transactions[0].ok());

  std::string deep;
  for (int i = 0; i < 10'000; ++i) deep += "<a>";
  r = DecodeIso20022(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nested deeper than 32"), std::string::npos);

  const std::string huge = "<Document>" + std::string(10u << 20, 'A') + "</Document>";
  r = DecodeIso20022(huge);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().reason(), StatusReason::kInputTooLarge);

  XmlLimits roomy;
  roomy.max_bytes = 32u << 20;
  r = DecodeIso20022(huge, roomy);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("text longer than 4096"), std::string::npos);

  const std::string attr = "<Document a=\"" + std::string(5000, 'x') + "\"/>";
  r = DecodeIso20022(attr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("attribute value"), std::string::npos);

  std::string many(samples::kPacs008);
  XmlLimits one;
  one.max_transactions = 1;
  r = DecodeIso20022(many, one);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at most 1 transactions"), std::string::npos);
  EXPECT_EQ(r.status().field(), "/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[2]");
}

}  // namespace
}  // namespace verdict
