// pacs.008.001.08 FIToFICustomerCreditTransfer → one Transaction per CdtTrfTxInf.
#include <string>
#include <vector>

#include "formats/iso20022_messages.h"
#include "formats/iso20022_xml.h"

namespace verdict::iso20022 {
namespace {

struct GroupHeader {
  std::string message_id;
  int64_t created_us = 0;
  std::string settlement_date;
  pugi::xml_node pmt_tp_inf;
  pugi::xml_node node;
};

Status ReadCharges(pugi::xml_node tx, Transaction* txn) {
  for (pugi::xml_node c = tx.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element || LocalName(c) != "ChrgsInf") continue;
    Charge charge;
    charge.kind = "agent";
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node amt, Required(c, "Amt"));
    VERDICT_ASSIGN_OR_RETURN(charge.amount, ReadAmount(amt, /*allow_zero=*/true));
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node agt, Optional(c, "Agt"));
    if (agt) {
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node fin, Required(agt, "FinInstnId"));
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node bic, Optional(fin, "BICFI"));
      if (bic) {
        VERDICT_ASSIGN_OR_RETURN(charge.agent, ReadBic(bic));
      }
    }
    if (txn->payment.charges.size() == kMaxPaymentListEntries) {
      return ErrorAt(c, "more than " + std::to_string(kMaxPaymentListEntries) + " ChrgsInf");
    }
    txn->payment.charges.push_back(std::move(charge));
  }
  return Status::Ok();
}

Status ReadInstructions(pugi::xml_node tx, Transaction* txn) {
  for (pugi::xml_node c = tx.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element || LocalName(c) != "InstrForNxtAgt") continue;
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node inf, Optional(c, "InstrInf"));
    if (!inf) continue;
    VERDICT_ASSIGN_OR_RETURN(std::string text, ReadText(inf, 140));
    std::string& out = txn->payment.sender_to_receiver;
    if (out.size() + 1 + text.size() > kMaxPaymentTextBytes) {
      return ErrorAt(c, "InstrForNxtAgt instructions longer than " +
                            std::to_string(kMaxPaymentTextBytes) + " characters in all");
    }
    if (!out.empty()) out += ' ';
    out += text;
  }
  return Status::Ok();
}

Result<Transaction> DecodeTransaction(pugi::xml_node tx, const GroupHeader& group, size_t n) {
  Transaction txn;
  PaymentInfo& info = txn.payment;
  info.message_type = "pacs.008.001.08";
  info.message_id = group.message_id;
  txn.channel = "wire";
  txn.type = "transfer";
  txn.timestamp_us = group.created_us;

  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node pmt_id, Required(tx, "PmtId"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node instr_id, Optional(pmt_id, "InstrId"));
  if (instr_id) {
    VERDICT_ASSIGN_OR_RETURN(info.instruction_id, ReadIdentifier(instr_id));
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node e2e, Required(pmt_id, "EndToEndId"));
  VERDICT_ASSIGN_OR_RETURN(info.end_to_end_id, ReadIdentifier(e2e));
  std::string tx_id;
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node tx_id_node, Optional(pmt_id, "TxId"));
  if (tx_id_node) {
    VERDICT_ASSIGN_OR_RETURN(tx_id, ReadIdentifier(tx_id_node));
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node uetr, Optional(pmt_id, "UETR"));
  if (uetr) {
    VERDICT_ASSIGN_OR_RETURN(info.uetr, ReadUetr(uetr));
  }

  VERDICT_RETURN_IF_ERROR(ReadPaymentType(group.pmt_tp_inf, &txn));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node pmt_tp_inf, Optional(tx, "PmtTpInf"));
  VERDICT_RETURN_IF_ERROR(ReadPaymentType(pmt_tp_inf, &txn));

  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node amount, Required(tx, "IntrBkSttlmAmt"));
  VERDICT_ASSIGN_OR_RETURN(txn.amount, ReadAmount(amount));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node sttlm_dt, Optional(tx, "IntrBkSttlmDt"));
  info.settlement_date = group.settlement_date;
  if (sttlm_dt) {
    VERDICT_ASSIGN_OR_RETURN(info.settlement_date, ReadDate(sttlm_dt));
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node accepted, Optional(tx, "AccptncDtTm"));
  if (accepted) {
    VERDICT_ASSIGN_OR_RETURN(txn.timestamp_us, ReadDateTime(accepted));
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node instd, Optional(tx, "InstdAmt"));
  if (instd) {
    VERDICT_ASSIGN_OR_RETURN(info.instructed_amount, ReadAmount(instd));
  }

  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node chrg_br, Required(tx, "ChrgBr"));
  VERDICT_RETURN_IF_ERROR(ReadChargeBearer(chrg_br, &txn));
  VERDICT_RETURN_IF_ERROR(ReadCharges(tx, &txn));

  // Agents: the transaction's own, else the group header's instructing/instructed agent.
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node instg, Optional(tx, "InstgAgt"));
  VERDICT_RETURN_IF_ERROR(ReadAgent(instg ? tx : group.node, "InstgAgt", "instructing", &info));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node instd_agt, Optional(tx, "InstdAgt"));
  VERDICT_RETURN_IF_ERROR(ReadAgent(instd_agt ? tx : group.node, "InstdAgt", "instructed", &info));
  VERDICT_RETURN_IF_ERROR(ReadAgent(tx, "IntrmyAgt1", "intermediary1", &info));
  VERDICT_RETURN_IF_ERROR(ReadAgent(tx, "IntrmyAgt2", "intermediary2", &info));
  VERDICT_RETURN_IF_ERROR(ReadAgent(tx, "IntrmyAgt3", "intermediary3", &info));

  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node dbtr_agt, Required(tx, "DbtrAgt"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cdtr_agt, Required(tx, "CdtrAgt"));
  (void)dbtr_agt;
  (void)cdtr_agt;
  VERDICT_RETURN_IF_ERROR(ReadParty(tx, "Dbtr", "DbtrAcct", "DbtrAgt", &txn.sender));
  VERDICT_RETURN_IF_ERROR(ReadParty(tx, "Cdtr", "CdtrAcct", "CdtrAgt", &txn.receiver));
  VERDICT_RETURN_IF_ERROR(ReadInstructions(tx, &txn));
  VERDICT_RETURN_IF_ERROR(ReadPurpose(tx, &txn));
  VERDICT_RETURN_IF_ERROR(ReadRemittance(tx, &txn));
  txn.transaction_id = ChooseTransactionId(info, tx_id, n);
  return txn;
}

}  // namespace

Result<std::vector<pugi::xml_node>> TransactionNodes(pugi::xml_node parent, size_t max,
                                                     size_t already) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element || LocalName(c) != "CdtTrfTxInf") continue;
    if (out.size() + already >= max) {
      return ErrorAt(c, "a message may carry at most " + std::to_string(max) + " transactions");
    }
    out.push_back(c);
  }
  if (out.empty()) return MissingAt(parent, "CdtTrfTxInf");
  return out;
}

Status DecodePacs008(pugi::xml_node root, const XmlLimits& limits, Iso20022Message* out) {
  GroupHeader group;
  VERDICT_ASSIGN_OR_RETURN(group.node, Required(root, "GrpHdr"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node msg_id, Required(group.node, "MsgId"));
  VERDICT_ASSIGN_OR_RETURN(group.message_id, ReadIdentifier(msg_id));
  out->message_id = group.message_id;
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cre, Required(group.node, "CreDtTm"));
  VERDICT_ASSIGN_OR_RETURN(group.created_us, ReadDateTime(cre));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node nb, Required(group.node, "NbOfTxs"));
  VERDICT_ASSIGN_OR_RETURN(int64_t count, ReadCount(nb));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node ctrl, Optional(group.node, "CtrlSum"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node sttlm_dt, Optional(group.node, "IntrBkSttlmDt"));
  if (sttlm_dt) {
    VERDICT_ASSIGN_OR_RETURN(group.settlement_date, ReadDate(sttlm_dt));
  }
  VERDICT_ASSIGN_OR_RETURN(group.pmt_tp_inf, Optional(group.node, "PmtTpInf"));
  VERDICT_ASSIGN_OR_RETURN(std::vector<pugi::xml_node> txs,
                           TransactionNodes(root, limits.max_transactions));
  if (count != static_cast<int64_t>(txs.size())) {
    return ErrorAt(nb, "says " + std::to_string(count) + " transactions; the message has " +
                           std::to_string(txs.size()));
  }
  int64_t sum = 0;
  bool summable = true;
  for (size_t i = 0; i < txs.size(); ++i) {
    Result<Transaction> txn = DecodeTransaction(txs[i], group, i + 1);
    if (txn.ok()) {
      Result<int64_t> d = Decimal5Of(txn->amount);
      summable = summable && d.ok() && !__builtin_add_overflow(sum, *d, &sum);
    } else {
      summable = false;
    }
    out->transactions.push_back(std::move(txn));
  }
  if (ctrl) {
    VERDICT_ASSIGN_OR_RETURN(int64_t expected, ReadDecimal5(ctrl));
    if (summable && expected != sum) {
      return ErrorAt(ctrl, "control sum does not match the sum of IntrBkSttlmAmt");
    }
  }
  return Status::Ok();
}

}  // namespace verdict::iso20022
