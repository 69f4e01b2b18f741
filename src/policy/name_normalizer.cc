#include "policy/name_normalizer.h"

#include <unicode/translit.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <memory>
#include <span>

namespace verdict {
namespace {

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// One prototype built once; each thread clones it, since ICU transliterators are not
// documented as safe for concurrent use.
const icu::Transliterator* Prototype() {
  static const icu::Transliterator* prototype = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::Transliterator* t = icu::Transliterator::createInstance(
        icu::UnicodeString::fromUTF8("Any-Latin; Latin-ASCII"), UTRANS_FORWARD, status);
    if (U_FAILURE(status)) {
      delete t;
      return static_cast<icu::Transliterator*>(nullptr);
    }
    return t;
  }();
  return prototype;
}

std::string ToAscii(std::string_view name) {
  thread_local std::unique_ptr<icu::Transliterator> local;
  if (!local) {
    const icu::Transliterator* prototype = Prototype();
    if (prototype == nullptr) return std::string(name);
    local.reset(prototype->clone());
  }
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size())));
  local->transliterate(text);
  std::string out;
  text.toUTF8String(out);
  return out;
}

// Whether the '.' at `name[i]` sits inside a dotted abbreviation (L.L.C., S.A., U.S.A.): the
// letters on both sides of it stand alone.
template <typename IsAlnum>
bool IsDottedLetter(const std::string& current, std::string_view name, size_t i,
                    IsAlnum&& is_alnum) {
  if (current.size() == 0 || i + 1 >= name.size() || !is_alnum(name[i + 1])) return false;
  // The token so far is single letters joined by dots: its last letter follows a dot or
  // starts the token.
  if (i == 0 || (i >= 2 && is_alnum(name[i - 2]))) return false;
  return i + 2 >= name.size() || !is_alnum(name[i + 2]);
}

// Legal forms say what kind of company a name is, not which one: "ACME TRADING L.L.C." and
// "Acme Trading LLC" and "Acme Trading Ltd" are the same name to screening.
constexpr std::string_view kLegalForms[] = {
    "ab",   "ag",      "bhd",  "bv",  "cjsc",         "corp", "corporation", "cv",  "fze",
    "fzco", "fzc",     "gmbh", "inc", "incorporated", "jsc",  "kft",         "kg",  "llc",
    "llp",  "limited", "lp",   "ltd", "nv",           "oao",  "ojsc",        "ooo", "oy",
    "pao",  "pjsc",    "plc",  "pte", "pty",          "sa",   "sae",         "sal", "sarl",
    "sas",  "spa",     "sro",  "srl", "zao",
};
// Dropped only beside a legal form ("Co., Ltd.", "Sdn. Bhd."): alone they
// may be names.
constexpr std::string_view kLegalFormCompanions[] = {"co", "company", "sdn"};

bool IsOneOf(std::string_view token, std::span<const std::string_view> words) {
  return std::find(words.begin(), words.end(), token) != words.end();
}

// Removes legal forms (and their companions when a legal form is present), unless nothing
// else would be left: a name that is only "Limited" stays "limited".
void DropLegalForms(std::vector<std::string>& tokens) {
  bool has_form = false;
  bool has_other = false;
  for (const std::string& t : tokens) {
    if (IsOneOf(t, kLegalForms)) {
      has_form = true;
    } else if (!IsOneOf(t, kLegalFormCompanions)) {
      has_other = true;
    }
  }
  if (!has_form || !has_other) return;
  std::erase_if(tokens, [](const std::string& t) {
    return IsOneOf(t, kLegalForms) || IsOneOf(t, kLegalFormCompanions);
  });
}

}  // namespace

std::vector<std::string> NormalizeNameTokens(std::string_view name) {
  if (name.size() > kMaxNameBytes) name = name.substr(0, kMaxNameBytes);
  std::string converted;
  if (!IsAscii(name)) {
    converted = ToAscii(name);
    name = converted;
  }
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) tokens.push_back(current);
    current.clear();
  };
  auto is_alnum = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c >= 'A' && c <= 'Z') {
      current += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      current += c;
    } else if (c == '\'' || c == '`') {
      // joins: O'Brien → obrien
    } else if (c == '.' && IsDottedLetter(current, name, i, is_alnum)) {
      // joins single letters: L.L.C. → llc, S.A. → sa (but J.Smith → j smith)
    } else {
      flush();
    }
  }
  flush();
  DropLegalForms(tokens);
  if (tokens.size() > kMaxNameTokens) tokens.resize(kMaxNameTokens);
  std::sort(tokens.begin(), tokens.end());
  return tokens;
}

std::string NormalizeName(std::string_view name) {
  std::string out;
  for (const std::string& t : NormalizeNameTokens(name)) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

}  // namespace verdict
