#include "core/bic.h"

#include <string>

#include "core/currency.h"

namespace verdict {
namespace {

bool IsUpperOrDigit(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

}  // namespace

Status ValidateBic(std::string_view bic) {
  const std::string shown(bic.substr(0, 20));
  if (bic.size() != 8 && bic.size() != 11) {
    return InvalidArgument("BIC \"" + shown + "\" must have 8 or 11 characters");
  }
  for (char c : bic) {
    if (!IsUpperOrDigit(c)) {
      return InvalidArgument("BIC \"" + shown + "\" may contain only A-Z and 0-9");
    }
  }
  if (!IsCountryCode(bic.substr(4, 2))) {
    return InvalidArgument("BIC \"" + shown + "\": " + std::string(bic.substr(4, 2)) +
                           " is not an ISO 3166 country code");
  }
  return Status::Ok();
}

}  // namespace verdict
