#include "formats/iso20022.h"

#include <pugixml.hpp>

#include "formats/iso20022_messages.h"
#include "formats/iso20022_xml.h"

namespace verdict {
namespace {

using iso20022::ErrorAt;
using iso20022::LocalName;
using iso20022::Optional;
using iso20022::Required;

constexpr std::string_view kUrnPrefix = "urn:iso:std:iso:20022:tech:xsd:";

// The namespace URI bound to `node`'s prefix (or the default namespace), searching up.
std::string_view NamespaceOf(pugi::xml_node node) {
  const std::string_view name = node.name();
  const size_t colon = name.find(':');
  const std::string attr =
      colon == std::string_view::npos ? "xmlns" : "xmlns:" + std::string(name.substr(0, colon));
  for (pugi::xml_node n = node; n && n.type() == pugi::node_element; n = n.parent()) {
    pugi::xml_attribute a = n.attribute(attr.c_str());
    if (a) return a.value();
  }
  return {};
}

// The message identifier of an ISO 20022 element ("pacs.008.001.08"), or an error.
Result<std::string> MessageIdOf(pugi::xml_node node) {
  const std::string_view ns = NamespaceOf(node);
  if (ns.empty()) {
    return ErrorAt(node, "has no namespace; expected " + std::string(kUrnPrefix) + "<message>");
  }
  if (!ns.starts_with(kUrnPrefix)) {
    return ErrorAt(node, "namespace \"" + std::string(ns.substr(0, 80)) +
                             "\" is not an ISO 20022 namespace (" + std::string(kUrnPrefix) +
                             "...)");
  }
  return std::string(ns.substr(kUrnPrefix.size()));
}

struct Located {
  pugi::xml_node document;
  pugi::xml_node app_hdr;
};

// The Document, bare or wrapped: <BizMsgEnvlp><Hdr><AppHdr/></Hdr><Doc><Document/></Doc>, or
// any single wrapper element whose children are an AppHdr and a Document.
Result<Located> Locate(pugi::xml_node root) {
  Located out;
  const std::string_view name = LocalName(root);
  if (name == "Document") {
    out.document = root;
    return out;
  }
  if (name == "BizMsgEnvlp") {
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node doc, Required(root, "Doc"));
    VERDICT_ASSIGN_OR_RETURN(out.document, Required(doc, "Document"));
    VERDICT_ASSIGN_OR_RETURN(pugi::xml_node hdr, Optional(root, "Hdr"));
    if (hdr) {
      VERDICT_ASSIGN_OR_RETURN(out.app_hdr, Optional(hdr, "AppHdr"));
    }
    return out;
  }
  VERDICT_ASSIGN_OR_RETURN(out.document, Optional(root, "Document"));
  VERDICT_ASSIGN_OR_RETURN(out.app_hdr, Optional(root, "AppHdr"));
  if (!out.document) {
    return ErrorAt(root,
                   "root element is not an ISO 20022 Document, a BizMsgEnvlp or a wrapper "
                   "holding AppHdr and Document");
  }
  return out;
}

Status CheckAppHdr(pugi::xml_node app_hdr, const std::string& message_type, Iso20022Message* out) {
  VERDICT_ASSIGN_OR_RETURN(std::string hdr_ns, MessageIdOf(app_hdr));
  if (!hdr_ns.starts_with("head.001.")) {
    return ErrorAt(app_hdr, "namespace is " + hdr_ns + "; an AppHdr is head.001.001.xx");
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node def, Optional(app_hdr, "MsgDefIdr"));
  if (def) {
    VERDICT_ASSIGN_OR_RETURN(std::string id, iso20022::ReadIdentifier(def, 35));
    if (id != message_type) {
      return ErrorAt(def, "the header says " + id + " but the Document is " + message_type);
    }
  }
  VERDICT_ASSIGN_OR_RETURN(pugi::xml_node biz, Optional(app_hdr, "BizMsgIdr"));
  if (biz) {
    VERDICT_ASSIGN_OR_RETURN(out->business_message_id, iso20022::ReadIdentifier(biz, 35));
  }
  return Status::Ok();
}

}  // namespace

Result<Iso20022Message> DecodeIso20022(std::string_view xml, const XmlLimits& limits) {
  VERDICT_RETURN_IF_ERROR(ScanXml(xml, limits));
  pugi::xml_document doc;
  // No parse_doctype (ScanXml has refused any DOCTYPE anyway), no custom entities: only the
  // five predefined entities and character references are expanded.
  const unsigned options = pugi::parse_cdata | pugi::parse_escapes | pugi::parse_eol;
  pugi::xml_parse_result parsed =
      doc.load_buffer(xml.data(), xml.size(), options, pugi::encoding_utf8);
  if (!parsed) {
    size_t line = 1;
    for (ptrdiff_t i = 0; i < parsed.offset && static_cast<size_t>(i) < xml.size(); ++i) {
      line += xml[static_cast<size_t>(i)] == '\n';
    }
    return InvalidArgument("XML line " + std::to_string(line) + ": " + parsed.description());
  }
  pugi::xml_node root = doc.document_element();
  if (!root) return InvalidArgument("XML has no root element");
  for (pugi::xml_node n = root.next_sibling(); n; n = n.next_sibling()) {
    if (n.type() == pugi::node_element) {
      return InvalidArgument("XML has more than one root element (" + std::string(LocalName(n)) +
                             " after " + std::string(LocalName(root)) +
                             "); send one document per message");
    }
  }
  VERDICT_ASSIGN_OR_RETURN(Located located, Locate(root));
  Iso20022Message out;
  VERDICT_ASSIGN_OR_RETURN(out.message_type, MessageIdOf(located.document));
  if (located.app_hdr) {
    VERDICT_RETURN_IF_ERROR(CheckAppHdr(located.app_hdr, out.message_type, &out));
  }
  pugi::xml_node body;
  for (pugi::xml_node c = located.document.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    if (body) return ErrorAt(c, "a Document holds exactly one message");
    body = c;
  }
  if (!body) return ErrorAt(located.document, "the Document is empty");
  const std::string_view kind = LocalName(body);
  const std::string& type = out.message_type;
  auto expect = [&](std::string_view element) -> Status {
    if (kind != element) {
      return ErrorAt(body, "a " + type + " Document holds " + std::string(element) + ", not " +
                               std::string(kind));
    }
    return Status::Ok();
  };
  if (type == "pacs.008.001.08") {
    VERDICT_RETURN_IF_ERROR(expect("FIToFICstmrCdtTrf"));
    VERDICT_RETURN_IF_ERROR(iso20022::DecodePacs008(body, limits, &out));
  } else if (type == "pain.001.001.09") {
    VERDICT_RETURN_IF_ERROR(expect("CstmrCdtTrfInitn"));
    VERDICT_RETURN_IF_ERROR(iso20022::DecodePain001(body, limits, &out));
  } else if (type.starts_with("pacs.002.001.")) {
    VERDICT_RETURN_IF_ERROR(expect("FIToFIPmtStsRpt"));
    VERDICT_RETURN_IF_ERROR(iso20022::DecodePacs002(body, &out));
  } else {
    return ErrorAt(located.document, "message " + type.substr(0, 40) +
                                         " is not accepted; verdict reads pacs.008.001.08, "
                                         "pain.001.001.09 and pacs.002.001.xx");
  }
  return out;
}

}  // namespace verdict
