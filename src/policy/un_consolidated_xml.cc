// The UN Security Council consolidated list reader (published_list.h), over pugixml.
#include <pugixml.hpp>
#include <set>

#include "policy/list_file.h"
#include "policy/published_list.h"

namespace verdict {
namespace {

class UnReader {
 public:
  UnReader(ListFileText file, std::vector<Diagnostic>& errors) : file_(file), errors_(errors) {}

  std::vector<ListTarget> Read() {
    if (file_.text.size() > kMaxListFileBytes) {
      Fail(1, "list file is larger than 64 MiB");
      return {};
    }
    pugi::xml_document doc;
    // No entity expansion beyond the predefined ones, no DOCTYPE processing: pugixml
    // never fetches external entities.
    pugi::xml_parse_result parsed =
        doc.load_buffer(file_.text.data(), file_.text.size(), pugi::parse_default);
    if (!parsed) {
      Fail(LineAt(static_cast<size_t>(parsed.offset)),
           std::string("not well-formed XML: ") + parsed.description());
      return {};
    }
    pugi::xml_node root = doc.document_element();
    if (std::string_view(root.name()) != "CONSOLIDATED_LIST") {
      Fail(LineOf(root), "root element is <" + std::string(root.name()) +
                             ">; expected <CONSOLIDATED_LIST> (UN consolidated list XML)");
      return {};
    }
    int index = 0;
    for (pugi::xml_node n : root.child("INDIVIDUALS").children("INDIVIDUAL")) {
      ReadTarget(n, "INDIVIDUAL[" + std::to_string(++index) + "]", "INDIVIDUAL_ALIAS", true);
    }
    index = 0;
    for (pugi::xml_node n : root.child("ENTITIES").children("ENTITY")) {
      ReadTarget(n, "ENTITY[" + std::to_string(++index) + "]", "ENTITY_ALIAS", false);
    }
    if (failed_) targets_.clear();
    return std::move(targets_);
  }

 private:
  int LineAt(size_t offset) const {
    offset = std::min(offset, file_.text.size());
    int line = 1;
    for (size_t i = 0; i < offset; ++i) line += file_.text[i] == '\n';
    return line;
  }
  int LineOf(pugi::xml_node node) const {
    return node.offset_debug() < 0 ? 1 : LineAt(static_cast<size_t>(node.offset_debug()));
  }
  void Fail(int line, std::string message) {
    failed_ = true;
    errors_.push_back({std::string(file_.name), {line, 1}, std::move(message)});
  }

  // The trimmed text of the only `name` child; "" when absent. Fails when it repeats or has
  // child elements.
  bool Text(pugi::xml_node parent, const char* name, const std::string& path, std::string& out) {
    out.clear();
    pugi::xml_node child = parent.child(name);
    if (!child) return true;
    if (child.next_sibling(name)) {
      Fail(LineOf(child.next_sibling(name)),
           path + "/" + name + " appears twice; expected at most one");
      return false;
    }
    if (child.find_child([](pugi::xml_node c) { return c.type() == pugi::node_element; })) {
      Fail(LineOf(child), path + "/" + name + " holds elements; expected text");
      return false;
    }
    std::string_view v = child.child_value();
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    out = std::string(v);
    return true;
  }

  void ReadTarget(pugi::xml_node node, const std::string& path, const char* alias_element,
                  bool individual) {
    ListTarget target;
    target.line = LineOf(node);
    std::string dataid;
    std::string reference;
    if (!Text(node, "DATAID", path, dataid) || !Text(node, "REFERENCE_NUMBER", path, reference) ||
        !Text(node, "UN_LIST_TYPE", path, target.program)) {
      return;
    }
    if (dataid.empty()) {
      Fail(target.line, path + "/DATAID is missing or empty; expected the list's record id");
      return;
    }
    static constexpr const char* kNameParts[] = {"FIRST_NAME", "SECOND_NAME", "THIRD_NAME",
                                                 "FOURTH_NAME"};
    for (const char* part : kNameParts) {
      if (!individual && part != kNameParts[0]) break;  // an entity's name is FIRST_NAME
      std::string value;
      if (!Text(node, part, path, value)) return;
      if (value.empty()) continue;
      if (!target.name.empty()) target.name += ' ';
      target.name += value;
    }
    if (target.name.empty()) {
      Fail(target.line, path + "/FIRST_NAME is missing or empty (DATAID " + dataid +
                            "); expected the listed name");
      return;
    }
    target.id = reference.empty() ? dataid : reference;
    if (!ids_.insert(target.id).second) {
      Fail(target.line, path + ": id '" + target.id + "' appears twice; expected unique " +
                            (reference.empty() ? "DATAID" : "REFERENCE_NUMBER") + " values");
      return;
    }
    int index = 0;
    for (pugi::xml_node alias : node.children(alias_element)) {
      const std::string alias_path =
          path + "/" + alias_element + "[" + std::to_string(++index) + "]";
      std::string name;
      std::string quality;
      if (!Text(alias, "ALIAS_NAME", alias_path, name) ||
          !Text(alias, "QUALITY", alias_path, quality)) {
        return;
      }
      if (name.empty()) continue;  // the list carries empty alias blocks
      for (char& c : quality) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      target.aliases.push_back({std::move(name), quality.empty() ? "alias" : quality});
    }
    for (pugi::xml_node nationality : node.children("NATIONALITY")) {
      for (pugi::xml_node value : nationality.children("VALUE")) {
        std::string_view v = value.child_value();
        if (!v.empty()) target.countries.emplace_back(v);
      }
    }
    targets_.push_back(std::move(target));
  }

  ListFileText file_;
  std::vector<Diagnostic>& errors_;
  std::vector<ListTarget> targets_;
  std::set<std::string> ids_;
  bool failed_ = false;
};

}  // namespace

std::vector<ListTarget> ParseUnConsolidatedXml(ListFileText file, std::vector<Diagnostic>& errors) {
  return UnReader(file, errors).Read();
}

}  // namespace verdict
