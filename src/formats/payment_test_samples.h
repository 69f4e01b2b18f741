// Hand-written sample payment messages (after the published ISO 20022 and SWIFT MT message
// definitions) shared by the formats tests, fuzz seeds and benchmarks. Constants only.
#pragma once

#include <string>
#include <string_view>

namespace verdict::samples {

// pacs.008.001.08 with two CdtTrfTxInf.
inline constexpr std::string_view kPacs008 = R"(<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08">
  <FIToFICstmrCdtTrf>
    <GrpHdr>
      <MsgId>MSG-20261202-0001</MsgId>
      <CreDtTm>2026-12-02T10:15:30.123Z</CreDtTm>
      <NbOfTxs>2</NbOfTxs>
      <CtrlSum>10950.50</CtrlSum>
      <IntrBkSttlmDt>2026-12-02</IntrBkSttlmDt>
      <SttlmInf><SttlmMtd>INDA</SttlmMtd></SttlmInf>
      <InstgAgt><FinInstnId><BICFI>DEUTDEFFXXX</BICFI></FinInstnId></InstgAgt>
      <InstdAgt><FinInstnId><BICFI>NWBKGB2L</BICFI></FinInstnId></InstdAgt>
    </GrpHdr>
    <CdtTrfTxInf>
      <PmtId>
        <InstrId>INSTR-1</InstrId>
        <EndToEndId>E2E-INV-4411</EndToEndId>
        <TxId>TX-0001</TxId>
        <UETR>8a562c67-ca16-48ba-b074-65581be6f011</UETR>
      </PmtId>
      <PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl><LclInstrm><Cd>INST</Cd></LclInstrm></PmtTpInf>
      <IntrBkSttlmAmt Ccy="EUR">9950.50</IntrBkSttlmAmt>
      <InstdAmt Ccy="USD">10500.00</InstdAmt>
      <ChrgBr>SHAR</ChrgBr>
      <ChrgsInf><Amt Ccy="EUR">2.50</Amt><Agt><FinInstnId><BICFI>DEUTDEFF</BICFI></FinInstnId></Agt></ChrgsInf>
      <IntrmyAgt1><FinInstnId><BICFI>CHASUS33</BICFI></FinInstnId></IntrmyAgt1>
      <Dbtr>
        <Nm>John Smith</Nm>
        <PstlAdr><StrtNm>Main St</StrtNm><TwnNm>Frankfurt</TwnNm><Ctry>DE</Ctry></PstlAdr>
      </Dbtr>
      <DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct>
      <DbtrAgt><FinInstnId><BICFI>COBADEFFXXX</BICFI></FinInstnId></DbtrAgt>
      <CdtrAgt><FinInstnId><BICFI>NWBKGB2L</BICFI></FinInstnId></CdtrAgt>
      <Cdtr>
        <Nm>Acme Ltd</Nm>
        <PstlAdr><Ctry>GB</Ctry></PstlAdr>
      </Cdtr>
      <CdtrAcct><Id><IBAN>GB82WEST12345698765432</IBAN></Id></CdtrAcct>
      <InstrForNxtAgt><InstrInf>PHONE BEFORE CREDIT</InstrInf></InstrForNxtAgt>
      <Purp><Cd>GDDS</Cd></Purp>
      <RmtInf><Ustrd>invoice 4411</Ustrd><Ustrd>order 77</Ustrd></RmtInf>
    </CdtTrfTxInf>
    <CdtTrfTxInf>
      <PmtId>
        <EndToEndId>NOTPROVIDED</EndToEndId>
        <TxId>TX-0002</TxId>
      </PmtId>
      <IntrBkSttlmAmt Ccy="EUR">1000</IntrBkSttlmAmt>
      <AccptncDtTm>2026-12-02T11:00:00+01:00</AccptncDtTm>
      <ChrgBr>DEBT</ChrgBr>
      <Dbtr><Nm>Jane Roe</Nm><CtryOfRes>FR</CtryOfRes></Dbtr>
      <DbtrAcct><Id><Othr><Id>ACC-77</Id></Othr></Id></DbtrAcct>
      <DbtrAgt><FinInstnId><ClrSysMmbId><MmbId>20041010</MmbId></ClrSysMmbId></FinInstnId></DbtrAgt>
      <CdtrAgt><FinInstnId><BICFI>NWBKGB2L</BICFI></FinInstnId></CdtrAgt>
      <Cdtr><Nm>Acme Ltd</Nm></Cdtr>
      <CdtrAcct><Id><IBAN>GB82WEST12345698765432</IBAN></Id></CdtrAcct>
    </CdtTrfTxInf>
  </FIToFICstmrCdtTrf>
</Document>
)";

// pain.001.001.09: one PmtInf (debtor) with two CdtTrfTxInf.
inline constexpr std::string_view kPain001 = R"(<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">
  <CstmrCdtTrfInitn>
    <GrpHdr>
      <MsgId>PAIN-2026-12-02-01</MsgId>
      <CreDtTm>2026-12-02T08:00:00</CreDtTm>
      <NbOfTxs>2</NbOfTxs>
      <CtrlSum>1750.25</CtrlSum>
      <InitgPty><Nm>Acme Corp Treasury</Nm></InitgPty>
    </GrpHdr>
    <PmtInf>
      <PmtInfId>PMTINF-1</PmtInfId>
      <PmtMtd>TRF</PmtMtd>
      <NbOfTxs>2</NbOfTxs>
      <PmtTpInf><CtgyPurp><Cd>SUPP</Cd></CtgyPurp></PmtTpInf>
      <ReqdExctnDt><Dt>2026-12-03</Dt></ReqdExctnDt>
      <Dbtr><Nm>Acme Corp</Nm><PstlAdr><Ctry>NL</Ctry></PstlAdr></Dbtr>
      <DbtrAcct><Id><IBAN>NL91ABNA0417164300</IBAN></Id></DbtrAcct>
      <DbtrAgt><FinInstnId><BICFI>ABNANL2A</BICFI></FinInstnId></DbtrAgt>
      <ChrgBr>SLEV</ChrgBr>
      <CdtTrfTxInf>
        <PmtId><InstrId>PAY-1</InstrId><EndToEndId>E2E-1</EndToEndId></PmtId>
        <Amt><InstdAmt Ccy="EUR">1500.25</InstdAmt></Amt>
        <CdtrAgt><FinInstnId><BICFI>GEBABEBB</BICFI></FinInstnId></CdtrAgt>
        <Cdtr><Nm>Supplier NV</Nm><PstlAdr><Ctry>BE</Ctry></PstlAdr></Cdtr>
        <CdtrAcct><Id><IBAN>BE68539007547034</IBAN></Id></CdtrAcct>
        <Purp><Cd>SUPP</Cd></Purp>
        <RmtInf><Ustrd>INV 2026-118</Ustrd></RmtInf>
      </CdtTrfTxInf>
      <CdtTrfTxInf>
        <PmtId><EndToEndId>E2E-2</EndToEndId></PmtId>
        <Amt><InstdAmt Ccy="EUR">250</InstdAmt></Amt>
        <ChrgBr>SHAR</ChrgBr>
        <Cdtr><Nm>Kleine GmbH</Nm></Cdtr>
        <CdtrAcct><Id><IBAN>CH9300762011623852957</IBAN></Id></CdtrAcct>
      </CdtTrfTxInf>
    </PmtInf>
  </CstmrCdtTrfInitn>
</Document>
)";

// pacs.002.001.10 status report.
inline constexpr std::string_view kPacs002 = R"(<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pacs.002.001.10">
  <FIToFIPmtStsRpt>
    <GrpHdr><MsgId>STS-1</MsgId><CreDtTm>2026-12-02T10:16:00Z</CreDtTm></GrpHdr>
    <OrgnlGrpInfAndSts>
      <OrgnlMsgId>MSG-20261202-0001</OrgnlMsgId>
      <OrgnlMsgNmId>pacs.008.001.08</OrgnlMsgNmId>
      <GrpSts>PART</GrpSts>
    </OrgnlGrpInfAndSts>
    <TxInfAndSts>
      <OrgnlEndToEndId>E2E-INV-4411</OrgnlEndToEndId>
      <OrgnlTxId>TX-0001</OrgnlTxId>
      <TxSts>ACSC</TxSts>
    </TxInfAndSts>
    <TxInfAndSts>
      <OrgnlTxId>TX-0002</OrgnlTxId>
      <OrgnlUETR>8a562c67-ca16-48ba-b074-65581be6f011</OrgnlUETR>
      <TxSts>RJCT</TxSts>
      <StsRsnInf><Rsn><Cd>AC04</Cd></Rsn></StsRsnInf>
    </TxInfAndSts>
  </FIToFIPmtStsRpt>
</Document>
)";

// MT103 with every block, as a payment switch writes it (CRLF line ends).
inline constexpr std::string_view kMt103 =
    "{1:F01DEUTDEFFAXXX0000000000}{2:I103NWBKGB2LXXXXN}"
    "{3:{108:MUR4411}{121:8a562c67-ca16-48ba-b074-65581be6f011}}{4:\r\n"
    ":20:REF-4411\r\n"
    ":23B:CRED\r\n"
    ":32A:261202EUR9950,50\r\n"
    ":33B:USD10500,00\r\n"
    ":50K:/DE89370400440532013000\r\n"
    "JOHN SMITH\r\n"
    "MAIN ST 1\r\n"
    "FRANKFURT\r\n"
    ":52A:COBADEFFXXX\r\n"
    ":53A:CHASUS33\r\n"
    ":57A:NWBKGB2L\r\n"
    ":59F:/GB82WEST12345698765432\r\n"
    "1/ACME LTD\r\n"
    "2/1 HIGH STREET\r\n"
    "3/GB/LONDON\r\n"
    ":70:INVOICE 4411\r\n"
    "ORDER 77\r\n"
    ":71A:SHA\r\n"
    ":71F:EUR2,50\r\n"
    ":72:/INS/CHASUS33\r\n"
    "-}{5:{CHK:123456789ABC}}";

// MT202COV: bank-to-bank cover with the underlying customer transfer in sequence B.
inline constexpr std::string_view kMt202Cov =
    "{1:F01CHASUS33AXXX0000000000}{2:I202DEUTDEFFXXXXN}{3:{119:COV}"
    "{121:4f7a2c67-ca16-48ba-b074-65581be6f022}}{4:\n"
    ":20:COVREF-1\n"
    ":21:REF-4411\n"
    ":32A:261202USD10500,\n"
    ":52A:CHASUS33\n"
    ":58A:/DE44500105175407324931\n"
    "DEUTDEFF\n"
    ":50F:/US12345678\n"
    "1/JOHN SMITH\n"
    "3/US/NEW YORK\n"
    ":59:/DE89370400440532013000\n"
    "HANS MUELLER\n"
    ":70:RENT DEC\n"
    "-}";

}  // namespace verdict::samples
