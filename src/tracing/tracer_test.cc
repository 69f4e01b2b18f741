// Tracer end to end on loopback: a one-request HTTP receiver in the test plays the collector.
#include "tracing/tracer.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <thread>

namespace verdict::tracing {
namespace {

// Listens on an ephemeral loopback port; Receive() answers one request with `status` and
// returns its whole text (headers and body).
class OneShotReceiver {
 public:
  OneShotReceiver() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~OneShotReceiver() { ::close(fd_); }

  int port() const { return port_; }

  std::string Receive(int status) {
    const int conn = ::accept(fd_, nullptr, nullptr);
    std::string text;
    char buf[4096];
    size_t want = std::string::npos;
    while (want == std::string::npos || text.size() < want) {
      const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
      const size_t end = text.find("\r\n\r\n");
      const size_t length = text.find("Content-Length: ");
      if (want == std::string::npos && end != std::string::npos && length != std::string::npos) {
        want = end + 4 + std::stoul(text.substr(length + 16));
      }
    }
    const std::string answer = "HTTP/1.1 " + std::to_string(status) +
                               " X\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    ::send(conn, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(conn);
    return text;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TraceContext TracedCaller(bool sampled) {
  return TraceContext{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", sampled, "k=v"};
}

DecisionSummary Summary() {
  DecisionSummary summary;
  summary.transaction_id = "tx-1";
  summary.tenant = "default";
  summary.timings.total_us = 100;
  return summary;
}

TracingOptions Options(int port) {
  TracingOptions options;
  options.otlp_endpoint = "http://127.0.0.1:" + std::to_string(port) + "/v1/traces";
  options.export_timeout_ms = 2000;
  return options;
}

TEST(TracerTest, ACallersContextIsTheDecisionsTraceEvenWithoutAnExporter) {
  MetricsRegistry metrics;
  auto tracer = Tracer::Create(TracingOptions{}, metrics, SystemClock::Instance());
  ASSERT_TRUE(tracer.ok());
  std::optional<DecisionTrace> trace = (*tracer)->Begin(TracedCaller(true));
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(trace->parent_span_id, "00f067aa0ba902b7");
  EXPECT_EQ(trace->trace_state, "k=v");
  EXPECT_TRUE(IsNonZeroLowerHex(trace->span_id, 16));
  EXPECT_FALSE((*tracer)->Records(*trace));  // nowhere to send spans
  EXPECT_FALSE((*tracer)->Begin(std::nullopt));
}

TEST(TracerTest, WithoutACallerOnlyTheRatioMakesATrace) {
  MetricsRegistry metrics;
  TracingOptions options = Options(9);  // never contacted: nothing is recorded here
  options.sample_ratio = 1;
  auto all = Tracer::Create(options, metrics, SystemClock::Instance());
  ASSERT_TRUE(all.ok());
  std::optional<DecisionTrace> trace = (*all)->Begin(std::nullopt);
  ASSERT_TRUE(trace);
  EXPECT_TRUE(trace->parent_span_id.empty());
  EXPECT_TRUE((*all)->Records(*trace));
  EXPECT_FALSE((*all)->Records(*(*all)->Begin(TracedCaller(false))));  // the caller said no
  options.sample_ratio = 0;
  auto none = Tracer::Create(options, metrics, SystemClock::Instance());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE((*none)->Begin(std::nullopt));
}

TEST(TracerTest, AMalformedEndpointIsAConfigurationError) {
  MetricsRegistry metrics;
  TracingOptions options;
  for (const char* bad : {"https://127.0.0.1:4318/v1/traces", "http://127.0.0.1/v1/traces",
                          "http://127.0.0.1:4318", "http://127.0.0.1:0/v1/traces",
                          "http://127.0.0.1:70000/v1/traces", "127.0.0.1:4318/v1/traces"}) {
    options.otlp_endpoint = bad;
    EXPECT_FALSE(Tracer::Create(options, metrics, SystemClock::Instance()).ok()) << bad;
  }
  Result<OtlpEndpoint> v6 = ParseOtlpEndpoint("http://[::1]:4318/v1/traces", "e");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, "4318");
  EXPECT_EQ(v6->target, "/v1/traces");
}

TEST(TracerTest, ExportsADecisionsSpansAsOtlpJsonToTheCollector) {
  OneShotReceiver receiver;
  std::future<std::string> request =
      std::async(std::launch::async, [&receiver] { return receiver.Receive(200); });
  MetricsRegistry metrics;
  auto tracer = Tracer::Create(Options(receiver.port()), metrics, SystemClock::Instance());
  ASSERT_TRUE(tracer.ok());
  const std::optional<DecisionTrace> trace = (*tracer)->Begin(TracedCaller(true));
  ASSERT_TRUE(trace);
  (*tracer)->RecordDecision(*trace, Summary());
  const std::string text = request.get();
  EXPECT_NE(text.find("POST /v1/traces HTTP/1.1"), std::string::npos);
  EXPECT_NE(text.find("Content-Type: application/json"), std::string::npos);
  EXPECT_NE(text.find(R"("traceId":"4bf92f3577b34da6a3ce929d0e0e4736")"), std::string::npos);
  EXPECT_NE(text.find(R"("parentSpanId":"00f067aa0ba902b7")"), std::string::npos);
  EXPECT_NE(text.find(R"("name":"journal")"), std::string::npos);
  ASSERT_TRUE((*tracer)->Flush(std::chrono::seconds(10)));
  EXPECT_EQ(metrics.GetCounter("verdict_tracing_spans_exported_total", "")->value(), 6u);
  EXPECT_EQ(metrics.GetCounter("verdict_tracing_export_failures_total", "")->value(), 0u);
}

TEST(TracerTest, ACollectorThatRefusesCostsTheSpansAndIsCounted) {
  OneShotReceiver receiver;
  std::future<std::string> request =
      std::async(std::launch::async, [&receiver] { return receiver.Receive(503); });
  MetricsRegistry metrics;
  auto tracer = Tracer::Create(Options(receiver.port()), metrics, SystemClock::Instance());
  ASSERT_TRUE(tracer.ok());
  (*tracer)->RecordDecision(*(*tracer)->Begin(TracedCaller(true)), Summary());
  request.get();
  ASSERT_TRUE((*tracer)->Flush(std::chrono::seconds(10)));
  EXPECT_EQ(metrics.GetCounter("verdict_tracing_export_failures_total", "")->value(), 1u);
  EXPECT_EQ(metrics.GetCounter("verdict_tracing_spans_dropped_total", "")->value(), 6u);
  EXPECT_EQ(metrics.GetCounter("verdict_tracing_spans_exported_total", "")->value(), 0u);
}

TEST(TracerTest, AFullQueueDropsTheDecisionsSpansWithoutWaiting) {
  // A receiver that never accepts: the exporter's first batch waits out its timeout while
  // decisions keep coming.
  OneShotReceiver silent;
  MetricsRegistry metrics;
  TracingOptions options = Options(silent.port());
  options.max_queue_spans = 16;
  options.export_timeout_ms = 200;
  auto tracer = Tracer::Create(options, metrics, SystemClock::Instance());
  ASSERT_TRUE(tracer.ok());
  const DecisionTrace trace = *(*tracer)->Begin(TracedCaller(true));
  for (int i = 0; i < 20; ++i) (*tracer)->RecordDecision(trace, Summary());
  EXPECT_GT(metrics.GetCounter("verdict_tracing_spans_dropped_total", "")->value(), 0u);
}

}  // namespace
}  // namespace verdict::tracing
