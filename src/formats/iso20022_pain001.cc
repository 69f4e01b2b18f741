// pain.001.001.09 CustomerCreditTransferInitiation → one Transaction per CdtTrfTxInf, with
// the debtor, its account and agent taken from the enclosing PmtInf.
#include <string>
#include <vector>

#include "formats/iso20022_messages.h"
#include "formats/iso20022_xml.h"

namespace verdict::iso20022 {
namespace {

struct PaymentBlock {
  std::string message_id;
  int64_t created_us = 0;
  std::string payment_info_id;
  std::string type;
  std::string execution_date;
  std::string charge_bearer;
  pugi::xml_node pmt_tp_inf;
  Party debtor;
};

Result<PaymentBlock> ReadPaymentBlock(pugi::xml_node pmt_inf, PaymentBlock block) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node id, Required(pmt_inf, "PmtInfId"));
  VERDICT_ASSIGN_OR_RETURN(block.payment_info_id, ReadIdentifier(id));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node mtd, Required(pmt_inf, "PmtMtd"));
  VERDICT_ASSIGN_OR_RETURN(std::string method, ReadCode(mtd, 3));
  if (method == "TRF" || method == "TRA") {
    block.type = "transfer";
  } else if (method == "CHK") {
    block.type = "cheque";
  } else {
    return ErrorAt(mtd, "payment method " + method + " is not one of TRF, TRA, CHK");
  }
  VERDICT_ASSIGN_OR_RETURN(block.pmt_tp_inf, Optional(pmt_inf, "PmtTpInf"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node reqd, Required(pmt_inf, "ReqdExctnDt"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node dt, Optional(reqd, "Dt"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node dt_tm, Optional(reqd, "DtTm"));
  if (dt) {
    VERDICT_ASSIGN_OR_RETURN(block.execution_date, ReadDate(dt));
  } else if (dt_tm) {
    VERDICT_ASSIGN_OR_RETURN(int64_t micros, ReadDateTime(dt_tm));
    (void)micros;
    VERDICT_ASSIGN_OR_RETURN(std::string_view text, TextOf(dt_tm));
    block.execution_date = std::string(text.substr(0, 10));
  } else {
    return MissingAt(reqd, "Dt");
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node dbtr_agt, Required(pmt_inf, "DbtrAgt"));
  (void)dbtr_agt;
  VERDICT_RETURN_IF_ERROR(ReadParty(pmt_inf, "Dbtr", "DbtrAcct", "DbtrAgt", &block.debtor));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node chrg_br, Optional(pmt_inf, "ChrgBr"));
  if (chrg_br) {
    Transaction scratch;
    VERDICT_RETURN_IF_ERROR(ReadChargeBearer(chrg_br, &scratch));
    block.charge_bearer = scratch.payment.charge_bearer;
  }
  return block;
}

Result<Transaction> DecodeTransaction(pugi::xml_node tx, const PaymentBlock& block, size_t n) {
  Transaction txn;
  PaymentInfo& info = txn.payment;
  info.message_type = "pain.001.001.09";
  info.message_id = block.message_id;
  info.settlement_date = block.execution_date;
  info.charge_bearer = block.charge_bearer;
  txn.channel = "wire";
  txn.type = block.type;
  txn.timestamp_us = block.created_us;
  txn.sender = block.debtor;

  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node pmt_id, Required(tx, "PmtId"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node instr_id, Optional(pmt_id, "InstrId"));
  if (instr_id) {
    VERDICT_ASSIGN_OR_RETURN(info.instruction_id, ReadIdentifier(instr_id));
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node e2e, Required(pmt_id, "EndToEndId"));
  VERDICT_ASSIGN_OR_RETURN(info.end_to_end_id, ReadIdentifier(e2e));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node uetr, Optional(pmt_id, "UETR"));
  if (uetr) {
    VERDICT_ASSIGN_OR_RETURN(info.uetr, ReadUetr(uetr));
  }

  VERDICT_RETURN_IF_ERROR(ReadPaymentType(block.pmt_tp_inf, &txn));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node pmt_tp_inf, Optional(tx, "PmtTpInf"));
  VERDICT_RETURN_IF_ERROR(ReadPaymentType(pmt_tp_inf, &txn));

  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node amt, Required(tx, "Amt"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node instd, Optional(amt, "InstdAmt"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node eqvt, Optional(amt, "EqvtAmt"));
  if (instd && eqvt) return ErrorAt(amt, "InstdAmt and EqvtAmt are alternatives; give one");
  if (instd) {
    VERDICT_ASSIGN_OR_RETURN(txn.amount, ReadAmount(instd));
  } else if (eqvt) {
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node eq_amt, Required(eqvt, "Amt"));
    VERDICT_ASSIGN_OR_RETURN(txn.amount, ReadAmount(eq_amt));
  } else {
    return MissingAt(amt, "InstdAmt");
  }

  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node chrg_br, Optional(tx, "ChrgBr"));
  if (chrg_br) VERDICT_RETURN_IF_ERROR(ReadChargeBearer(chrg_br, &txn));
  VERDICT_RETURN_IF_ERROR(ReadAgent(tx, "IntrmyAgt1", "intermediary1", &info));
  VERDICT_RETURN_IF_ERROR(ReadAgent(tx, "IntrmyAgt2", "intermediary2", &info));
  VERDICT_RETURN_IF_ERROR(ReadAgent(tx, "IntrmyAgt3", "intermediary3", &info));
  VERDICT_RETURN_IF_ERROR(ReadParty(tx, "Cdtr", "CdtrAcct", "CdtrAgt", &txn.receiver));
  VERDICT_RETURN_IF_ERROR(ReadPurpose(tx, &txn));
  VERDICT_RETURN_IF_ERROR(ReadRemittance(tx, &txn));
  txn.transaction_id = ChooseTransactionId(info, info.instruction_id, n);
  return txn;
}

}  // namespace

Status DecodePain001(pugi::xml_node root, const XmlLimits& limits, Iso20022Message* out) {
  PaymentBlock group;
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node hdr, Required(root, "GrpHdr"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node msg_id, Required(hdr, "MsgId"));
  VERDICT_ASSIGN_OR_RETURN(group.message_id, ReadIdentifier(msg_id));
  out->message_id = group.message_id;
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cre, Required(hdr, "CreDtTm"));
  VERDICT_ASSIGN_OR_RETURN(group.created_us, ReadDateTime(cre));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node nb, Required(hdr, "NbOfTxs"));
  VERDICT_ASSIGN_OR_RETURN(int64_t count, ReadCount(nb));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node initg, Required(hdr, "InitgPty"));
  (void)initg;

  size_t total = 0;
  bool any = false;
  for (pugi::xml_node pmt_inf = root.first_child(); pmt_inf; pmt_inf = pmt_inf.next_sibling()) {
    if (pmt_inf.type() != pugi::node_element || LocalName(pmt_inf) != "PmtInf") continue;
    any = true;
    VERDICT_ASSIGN_OR_RETURN(std::vector<pugi::xml_node> txs,
                             TransactionNodes(pmt_inf, limits.max_transactions, total));
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node block_nb, Optional(pmt_inf, "NbOfTxs"));
    if (block_nb) {
      VERDICT_ASSIGN_OR_RETURN(int64_t block_count, ReadCount(block_nb));
      if (block_count != static_cast<int64_t>(txs.size())) {
        return ErrorAt(block_nb, "says " + std::to_string(block_count) +
                                     " transactions; the block has " + std::to_string(txs.size()));
      }
    }
    // A bad PmtInf (debtor, account, dates) fails each of its transactions, not the message.
    Result<PaymentBlock> block = ReadPaymentBlock(pmt_inf, group);
    for (pugi::xml_node tx : txs) {
      ++total;
      if (!block.ok()) {
        out->transactions.push_back(block.status());
      } else {
        out->transactions.push_back(DecodeTransaction(tx, *block, total));
      }
    }
  }
  if (!any) return MissingAt(root, "PmtInf");
  if (count != static_cast<int64_t>(total)) {
    return ErrorAt(nb, "says " + std::to_string(count) + " transactions; the message has " +
                           std::to_string(total));
  }
  return Status::Ok();
}

}  // namespace verdict::iso20022
