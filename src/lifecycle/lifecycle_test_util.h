// Test-only: two tiny XGBoost JSON models on the features "amount" and "velocity" (the second
// scores amount < 0.5 much higher), and the schema the tests' engine has.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "model/hand_built_model_test.h"

namespace verdict::lifecycle::testing {

inline constexpr std::array<std::string_view, 3> kSchema = {"amount", "velocity", "other"};

inline std::string ModelA() { return model::testing::kHandBuiltModel; }

inline std::string ModelB() {
  std::string text = model::testing::kHandBuiltModel;
  const std::string from = "\"split_conditions\":[5E-1,-1E0,";
  text.replace(text.find(from), from.size(), "\"split_conditions\":[5E-1,3E0,");
  return text;
}

}  // namespace verdict::lifecycle::testing
