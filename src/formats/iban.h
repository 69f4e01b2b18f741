// IBAN validation (ISO 13616): country, per-country length from the SWIFT IBAN registry, and
// the mod-97 check digits. Stateless; thread-safe.
#pragma once

#include <string_view>

#include "common/status.h"

namespace verdict {

// Ok when `iban` is an IBAN in electronic format (no spaces): two upper-case letters of a
// country that issues IBANs, two check digits, then the BBAN (letters and digits) at that
// country's length, with check digits that satisfy ISO 7064 mod 97-10. The message says
// which of these failed; the field is left empty for the caller to set.
Status ValidateIban(std::string_view iban);

// The IBAN length of a country (e.g. "DE" → 22), or 0 when the country issues no IBANs.
int IbanLength(std::string_view country);

}  // namespace verdict
