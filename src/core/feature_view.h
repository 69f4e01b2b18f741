// FeatureView: a read-only view of one transaction's feature values and the schema's names,
// the only form in which features cross from the feature engine to model and policy.
// Non-owning; valid while the vector and schema it points to live.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace verdict {

struct FeatureView {
  std::span<const double> values;
  std::span<const std::string_view> names;  // same length as values
  std::string_view schema_version;

  // Index of a feature by name, for resolving names once at set-up (never per transaction).
  std::optional<size_t> IndexOf(std::string_view name) const {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    return std::nullopt;
  }
};

}  // namespace verdict
