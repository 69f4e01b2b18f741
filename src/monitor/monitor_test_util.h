// Helpers shared by the drift tests: the engine's feature order, NaN, and a uniform reference
// distribution. Test-only; stateless. (Shared rather than repeated: the tests of a folder are
// built as one translation unit.)
#pragma once

#include <gtest/gtest.h>

#include <limits>
#include <string_view>
#include <utility>

#include "monitor/drift_options.h"
#include "monitor/reference_distribution.h"

namespace verdict::monitor::testing_util {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The engine's feature order in the drift tests: "unused" is not in the reference.
inline constexpr std::string_view kEngineFeatures[] = {"a", "unused", "b"};

// A reference over features a and b with a and the score uniform on [0, 1) and b = 1 - a.
inline ReferenceDistribution UniformReference() {
  ReferenceBuilder builder({"a", "b"});
  for (int i = 0; i < 10000; ++i) {
    const double u = (i + 0.5) / 10000;
    const double row[] = {u, 1 - u};
    EXPECT_TRUE(builder.AddRow(row, u).ok());
  }
  return std::move(builder.Build()).value();
}

// The defaults, except that every decision counts (the test features have no account history)
// and a level holds at its first evaluation.
inline DriftOptions ImmediateOptions() {
  DriftOptions options;
  options.min_account_history_days = 0;
  options.escalate_after_windows = 1;
  return options;
}

}  // namespace verdict::monitor::testing_util
