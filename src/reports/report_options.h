// ReportOptions: the `[reports]` configuration, i.e. what a bank supplies about itself for a
// suspicious transaction report (goAML's reporting entity, reporting person, location and the
// FIU's lookup codes), with per-tenant overrides. Value type, read-only once the engine starts;
// Resolve and CheckGoaml are pure and thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace verdict::reports {

// One set of settings as written in one table. Absent keys stay unset, so that a tenant's
// table overrides the deployment's key by key (Resolve).
struct ReportingEntitySettings {
  std::optional<int64_t> rentity_id;               // the FIU's number for the bank, >= 1
  std::optional<std::string> rentity_branch;       // the reporting branch
  std::optional<std::string> institution_name;     // the bank's name, on its own clients' accounts
  std::optional<std::string> institution_swift;    // the bank's BIC: which accounts are its own
  std::optional<std::string> currency_code_local;  // ISO 4217; goAML amounts are in it
  std::optional<std::string> funds_code;           // goAML funds type of both sides
  std::optional<std::string> default_transmode_code;  // goAML conduction type
  std::optional<std::string> default_indicator;       // goAML report indicator
  // [reporting_person]
  std::optional<std::string> person_first_name;
  std::optional<std::string> person_last_name;
  std::optional<std::string> person_email;
  std::optional<std::string> person_occupation;
  // [location]
  std::optional<std::string> location_address_type;
  std::optional<std::string> location_address;
  std::optional<std::string> location_city;
  std::optional<std::string> location_zip;
  std::optional<std::string> location_country_code;
  std::optional<std::string> location_state;
  // Transaction channel -> goAML conduction type; reason code -> goAML report indicator.
  std::map<std::string, std::string, std::less<>> transmode_codes;
  std::map<std::string, std::string, std::less<>> indicators;
};

// What a tenant's report uses: the deployment's settings with the tenant's over them.
struct ReportingEntity {
  std::string tenant;
  ReportingEntitySettings settings;
};

struct ReportOptions {
  ReportingEntitySettings defaults;                                     // [reports]
  std::map<std::string, ReportingEntitySettings, std::less<>> tenants;  // [reports.tenants.T]

  ReportingEntity Resolve(std::string_view tenant) const;
};

// Ok when every key a goAML report needs is set; otherwise kFailedPrecondition whose field is
// the first missing configuration key ("reports.rentity_id"); the message names the tenant's
// table too.
Status CheckGoaml(const ReportingEntity& entity);

}  // namespace verdict::reports
