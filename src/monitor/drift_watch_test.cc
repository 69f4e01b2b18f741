#include "monitor/drift_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "monitor/monitor_test_util.h"

namespace verdict::monitor {
namespace {

constexpr std::string_view kWatchedFeatures[] = {"a", "b"};

ReferenceDistribution Reference() {
  ReferenceBuilder builder({"a"});
  for (int i = 0; i < 1000; ++i) {
    const double row[] = {i / 1000.0};
    EXPECT_TRUE(builder.AddRow(row, i / 1000.0).ok());
  }
  return std::move(builder.Build()).value();
}

class DriftWatchTest : public ::testing::Test {
 protected:
  DriftWatch Make() {
    return DriftWatch(
        testing_util::ImmediateOptions(), kWatchedFeatures,
        [this](std::string_view scope, std::string_view name,
               std::string_view version) -> Result<std::optional<ReferenceDistribution>> {
          ++loads_;
          if (scope == "no-reference") return std::optional<ReferenceDistribution>();
          if (name == "bad") return InvalidArgument("reference: broken", "features");
          if (version == "none") return std::optional<ReferenceDistribution>();
          return std::optional<ReferenceDistribution>(Reference());
        },
        metrics_, clock_);
  }

  std::atomic<int> loads_{0};
  MetricsRegistry metrics_;
  ManualClock clock_{1'000'000 * kMicrosPerSecond};
};

TEST_F(DriftWatchTest, OneMonitorPerVersionLoadedOnce) {
  DriftWatch watch = Make();
  DriftMonitor* a1 = watch.For("aml", "1");
  ASSERT_NE(a1, nullptr);
  EXPECT_EQ(a1->model_name(), "aml");
  EXPECT_EQ(a1->model_version(), "1");
  EXPECT_EQ(watch.For("aml", "1"), a1);
  DriftMonitor* a2 = watch.For("aml", "2");
  ASSERT_NE(a2, nullptr);
  EXPECT_NE(a2, a1);
  EXPECT_EQ(watch.For("aml", "2"), a2);
  EXPECT_EQ(loads_.load(), 2);
  EXPECT_EQ(watch.monitors(), (std::vector<DriftMonitor*>{a1, a2}));
}

TEST_F(DriftWatchTest, VersionsWithoutOrWithABadReferenceAreNotWatchedAndNotRetried) {
  DriftWatch watch = Make();
  EXPECT_EQ(watch.For("aml", "none"), nullptr);
  EXPECT_EQ(watch.For("aml", "none"), nullptr);
  EXPECT_EQ(watch.For("bad", "1"), nullptr);
  EXPECT_EQ(watch.For("bad", "1"), nullptr);
  EXPECT_EQ(loads_.load(), 2);
  EXPECT_TRUE(watch.monitors().empty());
  DriftWatch other = Make();
  const Status status = other.Watch("bad", "1");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.field(), "features");
  EXPECT_TRUE(other.Watch("aml", "1").ok());
}

TEST_F(DriftWatchTest, AtMostMaxVersions) {
  DriftWatch watch = Make();
  for (size_t i = 0; i < DriftWatch::kMaxVersions; ++i) {
    EXPECT_NE(watch.For("aml", std::to_string(i)), nullptr);
  }
  EXPECT_EQ(watch.For("aml", "late"), nullptr);
  EXPECT_NE(watch.For("aml", "0"), nullptr);
  EXPECT_EQ(watch.monitors().size(), DriftWatch::kMaxVersions);
}

TEST_F(DriftWatchTest, OneTenantFillingItsShareLeavesOthersWatched) {
  DriftWatch watch = Make();
  for (size_t i = 0; i < DriftWatch::kMaxVersions; ++i) {
    EXPECT_NE(watch.For("alpha", "aml", std::to_string(i)), nullptr);
  }
  EXPECT_EQ(watch.For("alpha", "aml", "late"), nullptr);
  EXPECT_NE(watch.For("aml", "late"), nullptr);
  EXPECT_NE(watch.For("beta", "aml", "late"), nullptr);
}

TEST_F(DriftWatchTest, ConcurrentLookupsAgree) {
  DriftWatch watch = Make();
  std::vector<std::thread> threads;
  std::vector<DriftMonitor*> seen(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        DriftMonitor* m = watch.For("aml", std::to_string(i % 3));
        if (i % 3 == 0) seen[t] = m;
        const double row[] = {0.5, 1};
        if (m != nullptr) m->Observe(row, 0.5);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (DriftMonitor* m : seen) EXPECT_EQ(m, seen[0]);
  EXPECT_EQ(loads_.load(), 3);
  EXPECT_EQ(watch.monitors().size(), 3u);
}

TEST_F(DriftWatchTest, EachTenantsModelHasItsOwnMonitor) {
  DriftWatch watch = Make();
  DriftMonitor* deployment = watch.For("aml", "1");
  DriftMonitor* alpha = watch.For("alpha", "aml", "1");
  DriftMonitor* beta = watch.For("beta", "aml", "1");
  ASSERT_NE(deployment, nullptr);
  ASSERT_NE(alpha, nullptr);
  ASSERT_NE(beta, nullptr);
  // Same name and version, three scopes: three monitors, so one tenant's drift (or freeze)
  // never touches another's.
  EXPECT_NE(alpha, deployment);
  EXPECT_NE(alpha, beta);
  EXPECT_EQ(watch.For("", "aml", "1"), deployment);
  EXPECT_EQ(watch.For("alpha", "aml", "1"), alpha);
  EXPECT_EQ(deployment->tenant(), "");
  EXPECT_EQ(alpha->tenant(), "alpha");
  // The loader is asked with the scope: a tenant whose registry has no reference is unwatched.
  EXPECT_EQ(watch.For("no-reference", "aml", "1"), nullptr);
  const std::string text = metrics_.RenderPrometheus();
  EXPECT_NE(text.find("verdict_drift_level{model=\"aml\",version=\"1\",tenant=\"alpha\"}"),
            std::string::npos)
      << text.substr(0, 2000);
}

}  // namespace
}  // namespace verdict::monitor
