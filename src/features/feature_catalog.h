// The one catalog of feature names for people: each feature of the schema (feature_vector.h,
// docs/features.md) with a short label and its unit, for the case view's contributions chart
// (through the API) and `verdict audit show`. Immutable static data; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace verdict {

struct FeatureLabel {
  std::string_view name;   // as in kFeatureNames
  std::string_view label;  // e.g. "Sender's payments out, 1 h"
  std::string_view unit;   // e.g. "count", "USD", "yes/no", "days"
};

// The label of a feature of this schema; nullopt for a name it does not have (a record of an
// older schema may carry one).
std::optional<FeatureLabel> FindFeatureLabel(std::string_view name);

// "Label (unit)", or the name itself when the catalog has none.
std::string HumanFeatureName(std::string_view name);

}  // namespace verdict
