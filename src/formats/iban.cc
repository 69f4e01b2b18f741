#include "formats/iban.h"

#include <string>

namespace verdict {
namespace {

struct IbanCountry {
  char code[3];
  int length;
};

// SWIFT IBAN registry (release 2024): every country that issues IBANs and its IBAN length.
// Territories that use another country's IBANs (GF, GP, ... → FR; GG, JE, IM → GB) are not
// listed: their accounts carry the parent country's prefix.
constexpr IbanCountry kIbanCountries[] = {
    {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20}, {"BE", 16}, {"BG", 22},
    {"BH", 22}, {"BI", 27}, {"BR", 29}, {"BY", 28}, {"CH", 21}, {"CR", 22}, {"CY", 28}, {"CZ", 24},
    {"DE", 22}, {"DJ", 27}, {"DK", 18}, {"DO", 28}, {"EE", 20}, {"EG", 29}, {"ES", 24}, {"FI", 18},
    {"FK", 18}, {"FO", 18}, {"FR", 27}, {"GB", 22}, {"GE", 22}, {"GI", 23}, {"GL", 18}, {"GR", 27},
    {"GT", 28}, {"HR", 21}, {"HU", 28}, {"IE", 22}, {"IL", 23}, {"IQ", 23}, {"IS", 26}, {"IT", 27},
    {"JO", 30}, {"KW", 30}, {"KZ", 20}, {"LB", 28}, {"LC", 32}, {"LI", 21}, {"LT", 20}, {"LU", 20},
    {"LV", 21}, {"LY", 25}, {"MC", 27}, {"MD", 24}, {"ME", 22}, {"MK", 19}, {"MN", 20}, {"MR", 27},
    {"MT", 31}, {"MU", 30}, {"NI", 28}, {"NL", 18}, {"NO", 15}, {"OM", 23}, {"PK", 24}, {"PL", 28},
    {"PS", 29}, {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22}, {"RU", 33}, {"SA", 24}, {"SC", 31},
    {"SD", 18}, {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27}, {"SO", 23}, {"ST", 25}, {"SV", 28},
    {"TL", 23}, {"TN", 24}, {"TR", 26}, {"UA", 29}, {"VA", 22}, {"VG", 24}, {"XK", 20},
};

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

int IbanLength(std::string_view country) {
  for (const IbanCountry& c : kIbanCountries) {
    if (country == c.code) return c.length;
  }
  return 0;
}

Status ValidateIban(std::string_view iban) {
  const std::string shown(iban.substr(0, 40));
  if (iban.size() < 5 || !IsUpper(iban[0]) || !IsUpper(iban[1]) || !IsDigit(iban[2]) ||
      !IsDigit(iban[3])) {
    return InvalidArgument("IBAN \"" + shown +
                           "\" must start with a country code and two check digits");
  }
  const int length = IbanLength(iban.substr(0, 2));
  if (length == 0) {
    return InvalidArgument("IBAN \"" + shown + "\": " + std::string(iban.substr(0, 2)) +
                           " is not a country that issues IBANs");
  }
  if (iban.size() != static_cast<size_t>(length)) {
    return InvalidArgument("IBAN \"" + shown + "\" has " + std::to_string(iban.size()) +
                           " characters; " + std::string(iban.substr(0, 2)) + " IBANs have " +
                           std::to_string(length));
  }
  // ISO 7064 mod 97-10 over BBAN + country + check digits, letters as 10..35.
  int remainder = 0;
  for (size_t k = 0; k < iban.size(); ++k) {
    const char c = iban[(k + 4) % iban.size()];
    if (IsDigit(c)) {
      remainder = (remainder * 10 + (c - '0')) % 97;
    } else if (IsUpper(c)) {
      remainder = (remainder * 100 + (c - 'A' + 10)) % 97;
    } else {
      return InvalidArgument("IBAN \"" + shown + "\" may contain only A-Z and 0-9");
    }
  }
  if (remainder != 1) {
    return InvalidArgument("IBAN \"" + shown + "\" has wrong check digits");
  }
  return Status::Ok();
}

}  // namespace verdict
