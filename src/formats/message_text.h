// Checks on the text values payment messages carry (identifiers, names, remittance lines,
// dates, UUIDs), shared by the ISO 20022 and SWIFT MT decoders. Stateless; thread-safe.
// Each returns a message without location; the decoders add the element path or tag/line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict {

// Removes leading and trailing spaces, tabs, CR and LF.
std::string_view TrimSpace(std::string_view s);

// UTF-8 that is well formed (no overlongs, surrogates or code points above U+10FFFF).
bool IsValidUtf8(std::string_view s);
// Number of code points of well-formed UTF-8.
size_t Utf8Length(std::string_view s);

// Free text (names, remittance): well-formed UTF-8, no control characters, 1..max_chars
// code points. `what` names the value in the message ("name", "remittance line").
Status CheckText(std::string_view s, size_t max_chars, std::string_view what);

// An identifier (message id, end-to-end id, reference): 1..max_chars visible ASCII
// characters, no spaces (what the JSON API accepts as transaction_id).
Status CheckIdentifier(std::string_view s, size_t max_chars, std::string_view what);

// "YYYY-MM-DD", a valid Gregorian date; *days_out (if given) is days since 1970-01-01.
Status CheckIsoDate(std::string_view s, int64_t* days_out = nullptr);

// A UUID in the canonical 8-4-4-4-12 form with hex digits; ISO 20022 UUIDv4Identifier also
// requires version 4 and the RFC 4122 variant. Returns it in lower case.
Result<std::string> ParseUetr(std::string_view s);

// "0017" → 17; digits only, at most 15 of them.
Result<int64_t> ParseCount(std::string_view s);

// A quoted, shortened copy of `s` for error messages: "\"1000.5.0\"".
std::string Quote(std::string_view s);

}  // namespace verdict
