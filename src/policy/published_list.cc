#include "policy/published_list.h"

namespace verdict {
namespace {

constexpr std::pair<std::string_view, ListFormat> kFormats[] = {
    {"opensanctions", ListFormat::kOpenSanctions},
    {"ofac_sdn", ListFormat::kOfacSdn},
    {"un_consolidated", ListFormat::kUnConsolidated},
};

}  // namespace

std::string_view ListFormatName(ListFormat format) {
  for (const auto& [name, f] : kFormats) {
    if (f == format) return name;
  }
  return "";
}

std::optional<ListFormat> ListFormatFromName(std::string_view name) {
  for (const auto& [word, f] : kFormats) {
    if (word == name) return f;
  }
  return std::nullopt;
}

int ListFormatFileCount(ListFormat format) { return format == ListFormat::kOfacSdn ? 2 : 1; }

}  // namespace verdict
