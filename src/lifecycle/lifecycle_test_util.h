// Test-only: two tiny XGBoost JSON models on the features "amount" and "velocity" (the second
// scores amount < 0.5 much higher), the schema the tests' engine has, and drift references.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "model/hand_built_model_test.h"
#include "monitor/reference_distribution.h"

namespace verdict::lifecycle::testing {

inline constexpr std::array<std::string_view, 3> kSchema = {"amount", "velocity", "other"};

inline std::string ModelA() { return model::testing::kHandBuiltModel; }

inline std::string ModelB() {
  std::string text = model::testing::kHandBuiltModel;
  const std::string from = "\"split_conditions\":[5E-1,-1E0,";
  text.replace(text.find(from), from.size(), "\"split_conditions\":[5E-1,3E0,");
  return text;
}

// What the engine sets as RegistryOptions::check_reference, over kSchema.
inline Status CheckReference(std::string_view json) {
  Result<monitor::ReferenceDistribution> reference = monitor::ParseReferenceJson(json);
  if (!reference.ok()) return reference.status();
  return monitor::ResolveReferenceFeatures(*reference, kSchema).status();
}

// A reference-1 document (docs/drift.md) over `features`, from a few rows.
inline std::string Reference(std::vector<std::string> features) {
  monitor::ReferenceBuilder builder(features);
  std::vector<double> row(features.size());
  for (int i = 0; i < 10; ++i) {
    for (size_t f = 0; f < row.size(); ++f) row[f] = i + static_cast<double>(f);
    EXPECT_TRUE(builder.AddRow(row, 0.1 * i).ok());
  }
  Result<monitor::ReferenceDistribution> built = builder.Build();
  EXPECT_TRUE(built.ok());
  return built.ok() ? monitor::ReferenceToJson(*built) : "";
}

}  // namespace verdict::lifecycle::testing
