#include "features/feature_catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "features/feature_vector.h"

namespace verdict {
namespace {

TEST(FeatureCatalogTest, EveryFeatureHasOneDistinctLabelAndAUnit) {
  std::set<std::string_view> labels;
  for (std::string_view name : kFeatureNames) {
    auto f = FindFeatureLabel(name);
    ASSERT_TRUE(f.has_value()) << name;
    EXPECT_FALSE(f->label.empty()) << name;
    EXPECT_FALSE(f->unit.empty()) << name;
    EXPECT_LE(f->label.size(), 44u) << name;  // fits the chart's label column
    EXPECT_TRUE(labels.insert(f->label).second) << "label used twice: " << f->label;
  }
}

TEST(FeatureCatalogTest, HumanNamesCarryTheUnitAndUnknownNamesStayAsTheyAre) {
  EXPECT_EQ(HumanFeatureName("amount_usd"), "Amount in USD (USD)");
  EXPECT_EQ(HumanFeatureName("sender_out_count_1h"), "Sender's payments out, 1 h (count)");
  EXPECT_EQ(HumanFeatureName("feature_99"), "feature_99");
  EXPECT_FALSE(FindFeatureLabel("feature_99").has_value());
}

}  // namespace
}  // namespace verdict
