#include "reports/report_config.h"

#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "core/bic.h"
#include "core/currency.h"

namespace verdict::reports {
namespace {

// goAML's text fields of names, codes and addresses hold at most 255 characters.
constexpr size_t kMaxText = 255;

Status Invalid(const std::string& key, const std::string& what) {
  return InvalidArgument(key + " " + what, key);
}

// Reads one table's keys, remembering which were read so that a misspelt key is refused
// rather than silently leaving a report field empty.
class Reader {
 public:
  Reader(const toml::table& table, std::string prefix)
      : table_(table), prefix_(std::move(prefix)) {}

  std::string Name(std::string_view key) const { return prefix_ + std::string(key); }

  Status Text(std::string_view key, std::optional<std::string>* out) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    if (!node->is_string()) return Invalid(Name(key), "must be a string");
    std::string value = *node->value<std::string>();
    if (value.empty() || value.size() > kMaxText) {
      return Invalid(Name(key), "must be 1 to " + std::to_string(kMaxText) + " characters");
    }
    for (unsigned char c : value) {
      if (c < 0x20 || c == 0x7f) return Invalid(Name(key), "must not hold control characters");
    }
    // goAML's lookup codes and names are trimmed values; a stray space is a typo.
    if (value.front() == ' ' || value.back() == ' ') {
      return Invalid(Name(key), "must not begin or end with a space");
    }
    *out = std::move(value);
    return Status::Ok();
  }

  Status Integer(std::string_view key, std::optional<int64_t>* out, int64_t min, int64_t max) {
    const toml::node* node = Take(key);
    if (node == nullptr) return Status::Ok();
    if (!node->is_integer()) return Invalid(Name(key), "must be an integer");
    const int64_t value = *node->value<int64_t>();
    if (value < min || value > max) {
      return Invalid(Name(key),
                     "must be between " + std::to_string(min) + " and " + std::to_string(max));
    }
    *out = value;
    return Status::Ok();
  }

  // A sub-table; null when absent.
  Result<const toml::table*> Table(std::string_view key) {
    const toml::node* node = Take(key);
    if (node == nullptr) return static_cast<const toml::table*>(nullptr);
    if (!node->is_table()) return Invalid(Name(key), "must be a table");
    return node->as_table();
  }

  // A table of string values, e.g. reason code -> indicator.
  Status TextMap(std::string_view key, std::map<std::string, std::string, std::less<>>* out) {
    VERDICT_ASSIGN_OR_RETURN(const toml::table* table, Table(key));
    if (table == nullptr) return Status::Ok();
    Reader inner(*table, Name(key) + ".");
    for (const auto& [name, value] : *table) {
      std::optional<std::string> text;
      VERDICT_RETURN_IF_ERROR(inner.Text(name.str(), &text));
      (*out)[std::string(name.str())] = *text;
    }
    return Status::Ok();
  }

  Status RejectUnknown() const {
    for (const auto& [key, value] : table_) {
      if (!taken_.contains(std::string(key.str()))) {
        return InvalidArgument("unknown configuration key '" + Name(key.str()) + "'",
                               Name(key.str()));
      }
    }
    return Status::Ok();
  }

 private:
  const toml::node* Take(std::string_view key) {
    taken_.insert(std::string(key));
    return table_.get(key);
  }

  const toml::table& table_;
  std::string prefix_;
  std::set<std::string> taken_;
};

Status CheckCountry(const std::string& key, const std::optional<std::string>& code) {
  if (!code) return Status::Ok();
  if (code->size() != 2 || !std::isupper(static_cast<unsigned char>((*code)[0])) ||
      !std::isupper(static_cast<unsigned char>((*code)[1]))) {
    return Invalid(key, "must be an ISO 3166 two-letter country code, e.g. \"US\"");
  }
  return Status::Ok();
}

// An address goAML's email type takes: one '@' with text, and no space, on both sides.
Status CheckEmail(const std::string& key, const std::string& email) {
  const size_t at = email.find('@');
  if (at == 0 || at == std::string::npos || at + 1 == email.size() ||
      email.find('@', at + 1) != std::string::npos || email.find(' ') != std::string::npos) {
    return Invalid(key, "must be an email address, e.g. \"mlro@example.com\"");
  }
  return Status::Ok();
}

// The keys of one [reports] or [reports.tenants.<name>] table.
Status ReadSettings(const toml::table& table, const std::string& prefix,
                    ReportingEntitySettings* s) {
  Reader r(table, prefix);
  VERDICT_RETURN_IF_ERROR(r.Integer("rentity_id", &s->rentity_id, 1, INT32_MAX));
  VERDICT_RETURN_IF_ERROR(r.Text("rentity_branch", &s->rentity_branch));
  VERDICT_RETURN_IF_ERROR(r.Text("institution_name", &s->institution_name));
  VERDICT_RETURN_IF_ERROR(r.Text("institution_swift", &s->institution_swift));
  if (s->institution_swift) {
    if (Status bic = ValidateBic(*s->institution_swift); !bic.ok()) {
      return Invalid(r.Name("institution_swift"), "is not a BIC: " + bic.message());
    }
  }
  VERDICT_RETURN_IF_ERROR(r.Text("currency_code_local", &s->currency_code_local));
  if (s->currency_code_local && FindCurrency(*s->currency_code_local) == nullptr) {
    return Invalid(r.Name("currency_code_local"), "must be an ISO 4217 currency code");
  }
  VERDICT_RETURN_IF_ERROR(r.Text("funds_code", &s->funds_code));
  VERDICT_RETURN_IF_ERROR(r.Text("default_transmode_code", &s->default_transmode_code));
  VERDICT_RETURN_IF_ERROR(r.Text("default_indicator", &s->default_indicator));
  VERDICT_RETURN_IF_ERROR(r.TextMap("transmode_codes", &s->transmode_codes));
  VERDICT_RETURN_IF_ERROR(r.TextMap("indicators", &s->indicators));

  VERDICT_ASSIGN_OR_RETURN(const toml::table* person, r.Table("reporting_person"));
  if (person != nullptr) {
    Reader p(*person, prefix + "reporting_person.");
    VERDICT_RETURN_IF_ERROR(p.Text("first_name", &s->person_first_name));
    VERDICT_RETURN_IF_ERROR(p.Text("last_name", &s->person_last_name));
    VERDICT_RETURN_IF_ERROR(p.Text("email", &s->person_email));
    if (s->person_email) VERDICT_RETURN_IF_ERROR(CheckEmail(p.Name("email"), *s->person_email));
    VERDICT_RETURN_IF_ERROR(p.Text("occupation", &s->person_occupation));
    VERDICT_RETURN_IF_ERROR(p.RejectUnknown());
  }
  VERDICT_ASSIGN_OR_RETURN(const toml::table* location, r.Table("location"));
  if (location != nullptr) {
    Reader l(*location, prefix + "location.");
    VERDICT_RETURN_IF_ERROR(l.Text("address_type", &s->location_address_type));
    VERDICT_RETURN_IF_ERROR(l.Text("address", &s->location_address));
    VERDICT_RETURN_IF_ERROR(l.Text("city", &s->location_city));
    VERDICT_RETURN_IF_ERROR(l.Text("zip", &s->location_zip));
    VERDICT_RETURN_IF_ERROR(l.Text("country_code", &s->location_country_code));
    VERDICT_RETURN_IF_ERROR(l.Text("state", &s->location_state));
    VERDICT_RETURN_IF_ERROR(CheckCountry(l.Name("country_code"), s->location_country_code));
    VERDICT_RETURN_IF_ERROR(l.RejectUnknown());
  }
  // "tenants" is read by the caller, only in [reports].
  if (prefix == "reports.") (void)r.Table("tenants");
  return r.RejectUnknown();
}

}  // namespace

Result<ReportOptions> ParseReportTables(const toml::node* node) {
  ReportOptions options;
  if (node == nullptr) return options;
  const toml::table* table = node->as_table();
  if (table == nullptr) return Invalid("reports", "must be a table");
  VERDICT_RETURN_IF_ERROR(ReadSettings(*table, "reports.", &options.defaults));
  const toml::node* tenants = table->get("tenants");
  if (tenants == nullptr) return options;
  if (!tenants->is_table()) return Invalid("reports.tenants", "must be a table of tables");
  for (const auto& [key, value] : *tenants->as_table()) {
    const std::string name(key.str());
    const std::string prefix = "reports.tenants." + name + ".";
    if (name.empty() || name.size() > 64) {
      return Invalid("reports.tenants." + name, "must name a tenant of 1 to 64 characters");
    }
    if (!value.is_table()) return Invalid(prefix.substr(0, prefix.size() - 1), "must be a table");
    ReportingEntitySettings settings;
    VERDICT_RETURN_IF_ERROR(ReadSettings(*value.as_table(), prefix, &settings));
    options.tenants.emplace(name, std::move(settings));
  }
  return options;
}

}  // namespace verdict::reports
