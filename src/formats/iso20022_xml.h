// Helpers the ISO 20022 decoders share over a parsed pugixml tree: namespace-free element
// lookup, element paths for errors ("/Document/FIToFICstmrCdtTrf/CdtTrfTxInf[2]/IntrBkSttlmAmt"),
// and typed reads of ISO 20022 data types (amounts, dates, BICs, IBANs, texts) that fail with
// a Status whose field is the element path. Stateless; thread-safe over a tree nobody edits.
#pragma once

#include <cstdint>
#include <pugixml.hpp>
#include <string>
#include <string_view>

#include "common/result.h"
#include "core/money.h"
#include "core/transaction.h"

namespace verdict::iso20022 {

// The element name without its namespace prefix ("ns1:Document" → "Document").
std::string_view LocalName(pugi::xml_node node);

// The path of `node` from the root element, prefixes dropped; repeatable elements
// (CdtTrfTxInf, PmtInf, TxInfAndSts, ...) carry their 1-based index among same-named siblings.
std::string PathOf(pugi::xml_node node);

// A Status naming `node`'s path (or `path` + "/" + `child` for a missing child).
Status ErrorAt(pugi::xml_node node, const std::string& what);
Status MissingAt(pugi::xml_node parent, std::string_view child);

// The only child element named `name`, a null node when there is none, an error when the
// element appears more than once.
Result<pugi::xml_node> Optional(pugi::xml_node parent, std::string_view name);
Result<pugi::xml_node> Required(pugi::xml_node parent, std::string_view name);

// The element's character data, trimmed; an error when it has child elements instead.
Result<std::string_view> TextOf(pugi::xml_node node);

// Typed reads. Each takes the element itself (non-null).
Result<std::string> ReadIdentifier(pugi::xml_node node, size_t max_chars = 35);
Result<std::string> ReadText(pugi::xml_node node, size_t max_chars = 140);
Result<std::string> ReadCode(pugi::xml_node node, size_t max_chars = 4);  // [A-Z0-9]{1,n}
// <X Ccy="EUR">1000.50</X>: positive unless `allow_zero` (charges may be 0).
Result<Money> ReadAmount(pugi::xml_node node, bool allow_zero = false);
Result<std::string> ReadDate(pugi::xml_node node);
Result<int64_t> ReadDateTime(pugi::xml_node node);  // ISODateTime; no offset means UTC
Result<std::string> ReadBic(pugi::xml_node node);
Result<std::string> ReadCountry(pugi::xml_node node);
Result<int64_t> ReadCount(pugi::xml_node node);
Result<std::string> ReadUetr(pugi::xml_node node);

// A decimal for control sums: integer part and 10^-5 units; an error above 10^13.
Result<int64_t> ReadDecimal5(pugi::xml_node node);
Result<int64_t> Decimal5Of(const Money& money);

// Party blocks. `party` is Dbtr/Cdtr (PartyIdentification135), `account` DbtrAcct/CdtrAcct
// (CashAccount38; required), `agent` DbtrAgt/CdtrAgt (BranchAndFinancialInstitutionId6;
// may be null). Fills name, country (PstlAdr/Ctry, else CtryOfRes), account (IBAN or
// Othr/Id) and bank (BICFI, else ClrSysMmbId/MmbId).
Status ReadParty(pugi::xml_node parent, std::string_view party, std::string_view account,
                 std::string_view agent, Party* out);

// An agent (BranchAndFinancialInstitutionId6) in a role; nothing when the element is absent.
Status ReadAgent(pugi::xml_node parent, std::string_view element, std::string_view role,
                 PaymentInfo* out);

// PmtTpInf: SvcLvl/Cd or LclInstrm/Cd "INST" makes the transaction realtime; CtgyPurp/Cd.
Status ReadPaymentType(pugi::xml_node pmt_tp_inf, Transaction* txn);

// Purp (Cd | Prtry), RmtInf (Ustrd lines joined with " "; Strd creditor references), ChrgBr.
Status ReadPurpose(pugi::xml_node parent, Transaction* txn);
Status ReadRemittance(pugi::xml_node parent, Transaction* txn);
Status ReadChargeBearer(pugi::xml_node node, Transaction* txn);

// The transaction id rule: UETR, else `fallback_id` (TxId / InstrId), else EndToEndId
// unless it is "NOTPROVIDED", else "<MsgId>/<n>" with n the 1-based transaction number.
std::string ChooseTransactionId(const PaymentInfo& info, std::string_view fallback_id, size_t n);

}  // namespace verdict::iso20022
