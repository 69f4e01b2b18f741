#include "common/process_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <string>
#include <vector>

namespace verdict {
namespace {

using ::testing::HasSubstr;

// The value of an unlabelled series in the exposition text, or -1.
double Value(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + name.size() + 2));
}

TEST(ProcessMetricsTest, ReadsThisProcessAndNamesTheBuild) {
  MetricsRegistry metrics;
  ProcessMetrics process(metrics, "9.8.7");
  // Some CPU and a file descriptor the scrape must count.
  volatile double sink = 0;
  for (int i = 0; i < 20'000'000; ++i) sink = sink + i * 0.5;
  const int fd = dup(1);
  process.RefreshWhenRendered(metrics);
  const std::string text = "\n" + metrics.RenderPrometheus();
  close(fd);
  EXPECT_THAT(text, HasSubstr("verdict_build_info{version=\"9.8.7\"} 1"));
  EXPECT_GT(Value(text, "process_cpu_seconds_total"), 0);
  EXPECT_GT(Value(text, "process_resident_memory_bytes"), 1 << 20);
  EXPECT_GT(Value(text, "process_virtual_memory_bytes"),
            Value(text, "process_resident_memory_bytes"));
  EXPECT_GE(Value(text, "process_open_fds"), 4);  // stdin, stdout, stderr, the dup
  EXPECT_GT(Value(text, "process_max_fds"), Value(text, "process_open_fds"));
  const double started = Value(text, "process_start_time_seconds");
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(started, now + 1);
  EXPECT_GT(started, now - 24 * 3600.0);  // a test process started today
}

}  // namespace
}  // namespace verdict
