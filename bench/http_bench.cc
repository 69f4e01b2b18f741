// HTTP server benchmark of the I/O thread's share of each decision's CPU, figures in
// docs/PERFORMANCE.md (Scheduler and load): one keep-alive loopback connection sends a
// decision-sized POST and reads the answer, closed loop, against HttpServer with one I/O thread
// and a handler that answers with a decision-sized body: at once (posted=0), or from work it
// posts to its I/O thread's event loop (posted=1), the extra turn of the loop that an inline
// decision takes since the scheduler orders what the loop has read (sched/scheduler.h).
// Measures the server's request path (read, parse, route, respond, write) plus the loopback
// round trip; `cpu_us_per_request` is the whole process's CPU time (server and client) per
// request, from getrusage.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "api/http_server.h"
#include "api/router.h"
#include "common/event_loop.h"
#include "common/metrics.h"

namespace verdict {
namespace {

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// One server for the whole binary: started on first use, on an ephemeral loopback port.
struct BenchServer {
  MetricsRegistry metrics;
  Router router;
  std::unique_ptr<HttpServer> server;

  BenchServer() {
    const std::string answer =
        R"({"decision_id":"0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11","outcome":"allow","score":0.01,)"
        R"("pad":")" +
        std::string(220, 'x') + R"("})";
    router.Add("POST", "/v1/decisions", [answer](HttpRequest&& request, Responder respond) {
      auto answer_now = [answer, respond = std::move(respond)] {
        HttpResponse response;
        response.body = answer;
        respond(std::move(response));
      };
      if (request.query == "posted=1") {
        EventLoop::Current()->Post(std::move(answer_now));
      } else {
        answer_now();
      }
    });
    HttpServerOptions options;
    options.port = 0;
    auto created = HttpServer::Create(options, router, metrics);
    if (!created.ok()) std::abort();
    server = std::move(*created);
    server->Start();
  }
  ~BenchServer() { server->Stop(); }
};

BenchServer& Server() {
  static BenchServer server;
  return server;
}

int Connect(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) std::abort();
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Reads one response (headers, then Content-Length bytes of body) off `fd` into `buffer`, and
// removes it from there.
void ReadResponse(int fd, std::string& buffer) {
  char chunk[4096];
  size_t header_end = std::string::npos;
  size_t total = 0;
  while (true) {
    if (header_end == std::string::npos) {
      header_end = buffer.find("\r\n\r\n");
      if (header_end != std::string::npos) {
        const size_t at = buffer.find("Content-Length: ");
        if (at == std::string::npos) std::abort();
        total = header_end + 4 + std::strtoul(buffer.c_str() + at + 16, nullptr, 10);
      }
    }
    if (header_end != std::string::npos && buffer.size() >= total) {
      buffer.erase(0, total);
      return;
    }
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) std::abort();
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

void BM_HttpRoundTrip(benchmark::State& state) {
  const uint16_t port = Server().server->port();
  const int fd = Connect(port);
  const std::string body =
      R"({"transaction_id":"t-1","timestamp":"2026-12-04T10:00:00Z","amount":"125.00",)"
      R"("currency":"EUR","sender":{"account":"ACC-1","country":"DE"},)"
      R"("receiver":{"account":"ACC-2","country":"FR"},"channel":"instant","pad":")" +
      std::string(400, 'y') + R"("})";
  const std::string request = "POST /v1/decisions" +
                              std::string(state.range(0) ? "?posted=1" : "") +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                              "Authorization: Bearer bench\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  std::string buffer;
  const double cpu_before = ProcessCpuSeconds();
  for (auto _ : state) {
    if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
      std::abort();
    }
    ReadResponse(fd, buffer);
  }
  const double cpu = ProcessCpuSeconds() - cpu_before;
  close(fd);
  state.SetItemsProcessed(state.iterations());
  state.counters["cpu_us_per_request"] =
      benchmark::Counter(cpu * 1e6 / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_HttpRoundTrip)->ArgName("posted")->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
}  // namespace verdict

BENCHMARK_MAIN();
