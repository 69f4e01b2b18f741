// pacs.002 FIToFIPaymentStatusReport: read for information; no transactions, a summary of
// the group status and each TxInfAndSts.
#include "formats/iso20022_messages.h"
#include "formats/iso20022_xml.h"

namespace verdict::iso20022 {
namespace {

Status ReadOptionalId(pugi::xml_node parent, std::string_view name, std::string* out) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node n, Optional(parent, name));
  if (n) {
    VERDICT_ASSIGN_OR_RETURN(*out, ReadIdentifier(n, 35));
  }
  return Status::Ok();
}

}  // namespace

Status DecodePacs002(pugi::xml_node root, Iso20022Message* out) {
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node hdr, Required(root, "GrpHdr"));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node msg_id, Required(hdr, "MsgId"));
  VERDICT_ASSIGN_OR_RETURN(out->message_id, ReadIdentifier(msg_id));
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cre, Required(hdr, "CreDtTm"));
  VERDICT_ASSIGN_OR_RETURN(int64_t created, ReadDateTime(cre));
  (void)created;
  for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    if (LocalName(c) == "OrgnlGrpInfAndSts") {
      VERDICT_RETURN_IF_ERROR(ReadOptionalId(c, "OrgnlMsgId", &out->original_message_id));
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node sts, Optional(c, "GrpSts"));
      if (sts) {
        VERDICT_ASSIGN_OR_RETURN(out->group_status, ReadCode(sts, 4));
      }
    } else if (LocalName(c) == "TxInfAndSts") {
      if (out->statuses.size() == 10'000) {
        return ErrorAt(c, "a status report may carry at most 10000 TxInfAndSts");
      }
      PaymentStatusEntry entry;
      VERDICT_RETURN_IF_ERROR(ReadOptionalId(c, "OrgnlEndToEndId", &entry.original_end_to_end_id));
      VERDICT_RETURN_IF_ERROR(ReadOptionalId(c, "OrgnlTxId", &entry.original_tx_id));
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node uetr, Optional(c, "OrgnlUETR"));
      if (uetr) {
        VERDICT_ASSIGN_OR_RETURN(entry.original_uetr, ReadUetr(uetr));
      }
      VERDICT_ASSIGN_OR_RETURN(pugi::xml_node sts, Optional(c, "TxSts"));
      if (sts) {
        VERDICT_ASSIGN_OR_RETURN(entry.status, ReadCode(sts, 4));
      }
      for (pugi::xml_node r = c.first_child(); r && entry.reason.empty(); r = r.next_sibling()) {
        if (r.type() != pugi::node_element || LocalName(r) != "StsRsnInf") continue;
        VERDICT_ASSIGN_OR_RETURN(pugi::xml_node rsn, Optional(r, "Rsn"));
        if (!rsn) continue;
        VERDICT_ASSIGN_OR_RETURN(pugi::xml_node cd, Optional(rsn, "Cd"));
        if (cd) {
          VERDICT_ASSIGN_OR_RETURN(entry.reason, ReadCode(cd, 4));
        }
      }
      out->statuses.push_back(std::move(entry));
    }
  }
  return Status::Ok();
}

}  // namespace verdict::iso20022
