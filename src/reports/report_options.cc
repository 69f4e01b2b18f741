#include "reports/report_options.h"

#include <utility>
#include <vector>

namespace verdict::reports {
namespace {

template <typename T>
void Over(std::optional<T>& base, const std::optional<T>& top) {
  if (top) base = top;
}

void Merge(ReportingEntitySettings& base, const ReportingEntitySettings& top) {
  Over(base.rentity_id, top.rentity_id);
  Over(base.rentity_branch, top.rentity_branch);
  Over(base.institution_name, top.institution_name);
  Over(base.institution_swift, top.institution_swift);
  Over(base.currency_code_local, top.currency_code_local);
  Over(base.funds_code, top.funds_code);
  Over(base.default_transmode_code, top.default_transmode_code);
  Over(base.default_indicator, top.default_indicator);
  Over(base.person_first_name, top.person_first_name);
  Over(base.person_last_name, top.person_last_name);
  Over(base.person_email, top.person_email);
  Over(base.person_occupation, top.person_occupation);
  Over(base.location_address_type, top.location_address_type);
  Over(base.location_address, top.location_address);
  Over(base.location_city, top.location_city);
  Over(base.location_zip, top.location_zip);
  Over(base.location_country_code, top.location_country_code);
  Over(base.location_state, top.location_state);
  for (const auto& [key, value] : top.transmode_codes) base.transmode_codes[key] = value;
  for (const auto& [key, value] : top.indicators) base.indicators[key] = value;
}

Status Missing(const ReportingEntity& entity, std::string_view key) {
  return Status(StatusCode::kFailedPrecondition,
                "the goAML report of tenant '" + entity.tenant + "' needs the configuration key " +
                    std::string(key) + ", set in neither [reports.tenants." + entity.tenant +
                    "] nor [reports]",
                "reports." + std::string(key));
}

}  // namespace

ReportingEntity ReportOptions::Resolve(std::string_view tenant) const {
  ReportingEntity entity;
  entity.tenant = std::string(tenant);
  entity.settings = defaults;
  if (auto it = tenants.find(tenant); it != tenants.end()) {
    Merge(entity.settings, it->second);
  }
  return entity;
}

Status CheckGoaml(const ReportingEntity& entity) {
  const ReportingEntitySettings& s = entity.settings;
  const std::vector<std::pair<bool, std::string_view>> required = {
      {s.rentity_id.has_value(), "rentity_id"},
      {s.currency_code_local.has_value(), "currency_code_local"},
      {s.funds_code.has_value(), "funds_code"},
      {s.person_first_name.has_value(), "reporting_person.first_name"},
      {s.person_last_name.has_value(), "reporting_person.last_name"},
  };
  for (const auto& [present, key] : required) {
    if (!present) return Missing(entity, key);
  }
  // The location is optional; given, goAML needs its type, address, city and country.
  const bool any_location = s.location_address_type || s.location_address || s.location_city ||
                            s.location_zip || s.location_country_code || s.location_state;
  if (any_location) {
    const std::vector<std::pair<bool, std::string_view>> location = {
        {s.location_address_type.has_value(), "location.address_type"},
        {s.location_address.has_value(), "location.address"},
        {s.location_city.has_value(), "location.city"},
        {s.location_country_code.has_value(), "location.country_code"},
    };
    for (const auto& [present, key] : location) {
      if (!present) return Missing(entity, key);
    }
  }
  return Status::Ok();
}

}  // namespace verdict::reports
