// libFuzzer target: the published sanctions list readers (OpenSanctions CSV, OFAC SDN
// sdn.csv + alt.csv, UN consolidated XML) must never crash, hang or leak on any file, must
// name a file and a line of at least 1 in every error, and must return no target at all when
// they report one (a bad file never replaces a good list). The first byte picks the reader;
// for OFAC the rest splits at the first 0x00 into sdn.csv and alt.csv.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "policy/published_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<verdict::Diagnostic> errors;
  std::vector<verdict::ListTarget> targets;
  switch (data[0] % 3) {
    case 0:
      targets = verdict::ParseOpenSanctionsCsv({"targets.simple.csv", text}, errors);
      break;
    case 1: {
      const size_t split = text.find('\0');
      const std::string_view sdn = text.substr(0, split);
      const std::string_view alt =
          split == std::string_view::npos ? std::string_view() : text.substr(split + 1);
      targets = verdict::ParseOfacSdn({"sdn.csv", sdn}, {"alt.csv", alt}, errors);
      break;
    }
    default:
      targets = verdict::ParseUnConsolidatedXml({"consolidated.xml", text}, errors);
      break;
  }
  if (!errors.empty() && !targets.empty()) __builtin_trap();
  for (const auto& e : errors) {
    if (e.file.empty() || e.pos.line < 1 || e.message.empty()) __builtin_trap();
  }
  for (const auto& t : targets) {
    if (t.id.empty() || t.name.empty()) __builtin_trap();
  }
  return 0;
}
