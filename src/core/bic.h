// BIC validation (ISO 9362, the BICFI pattern of ISO 20022). Stateless; thread-safe.
#pragma once

#include <string_view>

#include "common/status.h"

namespace verdict {

// Ok when `bic` is 8 or 11 characters: a 4-character party prefix (A-Z, 0-9), an ISO 3166
// country code, a 2-character location suffix and an optional 3-character branch code
// (A-Z, 0-9). The message says what is wrong; the field is left for the caller to set.
Status ValidateBic(std::string_view bic);

}  // namespace verdict
