// HttpServer's I/O threads carry their event loop (common/event_loop.h): a handler can post
// work back to it, and that work runs on an I/O thread after the handler returns; with
// busy_poll_us the thread polls instead of sleeping between requests; with io_thread_nice it
// runs at a lower priority. The rest of the socket paths are covered by tests/integration.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <thread>

#include "api/http_server.h"
#include "common/event_loop.h"

namespace verdict {
namespace {

namespace net = boost::asio;

// Sends one GET to 127.0.0.1:port and returns what the server wrote before closing.
std::string Get(uint16_t port, const std::string& path) {
  net::io_context ioc;
  net::ip::tcp::socket socket(ioc);
  socket.connect({net::ip::make_address("127.0.0.1"), port});
  // A server that never answers fails the test instead of hanging it.
  const timeval timeout{30, 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  net::write(socket, net::buffer(request));
  std::string reply;
  boost::system::error_code ec;
  net::read(socket, net::dynamic_buffer(reply), ec);  // to the server's close
  return reply;
}

// Starts a server (one I/O thread) with `router`, sends it one GET and stops it; the reply, or
// "server not created: ..." for the test to fail on.
std::string ServeOneGet(const Router& router, const std::string& path,
                        HttpServerOptions options = {}) {
  MetricsRegistry metrics;
  options.port = 0;
  auto server = HttpServer::Create(options, router, metrics);
  if (!server.ok()) return "server not created: " + server.status().message();
  (*server)->Start();
  std::string reply = Get((*server)->port(), path);
  (*server)->Stop();
  return reply;
}

TEST(HttpServerLoopTest, AHandlerPostsToItsIoThreadsLoopAndThePostedWorkAnswers) {
  Router router;
  std::promise<std::thread::id> handler_thread;
  auto handler_returned = std::make_shared<std::atomic<bool>>(false);
  router.Add("GET", "/posted", [&, handler_returned](HttpRequest&&, Responder respond) {
    handler_thread.set_value(std::this_thread::get_id());
    EventLoop* loop = EventLoop::Current();
    if (loop == nullptr) {
      HttpResponse response;
      response.status = 500;
      respond(std::move(response));
      return;
    }
    auto handler_id = std::this_thread::get_id();
    loop->Post([respond, handler_id, handler_returned] {
      // Must run after the handler returned, on the I/O thread (this server has one).
      HttpResponse response;
      const bool after = handler_returned->load();
      const bool on_io = std::this_thread::get_id() == handler_id;
      response.body = std::string(R"({"after":)") + (after ? "true" : "false") + R"(,"on_io":)" +
                      (on_io ? "true" : "false") + "}";
      respond(std::move(response));
    });
    handler_returned->store(true);
  });
  const std::string reply = ServeOneGet(router, "/posted");
  // Before the handler's promise is read: without an answer the handler may never have run.
  ASSERT_EQ(reply.substr(0, reply.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_NE(reply.find(R"({"after":true,"on_io":true})"), std::string::npos) << reply;
  EXPECT_NE(handler_thread.get_future().get(), std::this_thread::get_id());
  EXPECT_EQ(EventLoop::Current(), nullptr);  // not installed on the test's own thread
}

// server.io_thread_nice: the I/O thread that runs the handler has that much more nice value than
// the process (at most 19); the test's own thread keeps its own.
TEST(HttpServerLoopTest, IoThreadsRunAtALowerPriority) {
  Router router;
  router.Add("GET", "/nice", [](HttpRequest&&, Responder respond) {
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    HttpResponse response;
    response.body = R"({"nice":)" + std::to_string(errno == 0 ? nice : -100) + "}";
    respond(std::move(response));
  });
  const int own = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
  HttpServerOptions options;
  options.io_thread_nice = 5;
  const std::string reply = ServeOneGet(router, "/nice", options);
  EXPECT_NE(reply.find(R"({"nice":)" + std::to_string(std::min(19, own + 5)) + "}"),
            std::string::npos)
      << reply;
  EXPECT_EQ(getpriority(PRIO_PROCESS, static_cast<id_t>(gettid())), own);
}

// Idle work (EventLoop::PostWhenIdle) runs on the thread that queued it, after the handler and
// the handlers the loop had ready, and before the loop waits again: here it answers.
TEST(HttpServerLoopTest, IdleWorkRunsOnTheHandlersThreadAfterTheTurn) {
  Router router;
  router.Add("GET", "/idle", [](HttpRequest&&, Responder respond) {
    if (EventLoop::Current() == nullptr) {
      HttpResponse response;
      response.status = 500;
      respond(std::move(response));
      return;
    }
    auto handler_id = std::this_thread::get_id();
    auto posted_ran = std::make_shared<bool>(false);
    EventLoop::Current()->Post([posted_ran] { *posted_ran = true; });
    EventLoop::PostWhenIdle([respond, handler_id, posted_ran] {
      HttpResponse response;
      const bool same_thread = std::this_thread::get_id() == handler_id;
      response.body = std::string(R"({"after_posted":)") + (*posted_ran ? "true" : "false") +
                      R"(,"same_thread":)" + (same_thread ? "true" : "false") + "}";
      respond(std::move(response));
    });
  });
  const std::string reply = ServeOneGet(router, "/idle");
  EXPECT_EQ(reply.substr(0, reply.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_NE(reply.find(R"({"after_posted":true,"same_thread":true})"), std::string::npos) << reply;
}

TEST(HttpServerLoopTest, IdleWorkRunsWhenTheThreadPollsInsteadOfSleeping) {
  Router router;
  router.Add("GET", "/idle", [](HttpRequest&&, Responder respond) {
    EventLoop::PostWhenIdle([respond] {
      HttpResponse response;
      response.body = R"({"idle":true})";
      respond(std::move(response));
    });
  });
  HttpServerOptions options;
  // A budget no test outlasts (the deadline sweep's ticks restart it, too): only Stop ends the
  // poll, and a Stop that did not would hang this test until CTest's timeout fails it.
  options.busy_poll_us = std::numeric_limits<int>::max();
  const std::string reply = ServeOneGet(router, "/idle", options);
  EXPECT_EQ(reply.substr(0, reply.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_NE(reply.find(R"({"idle":true})"), std::string::npos) << reply;
}

// The voluntary context switches (sleeps) of thread `tid` of this process so far.
long VoluntarySwitches(pid_t tid) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  std::string key;
  for (long value = 0; status >> key;) {
    if (key == "voluntary_ctxt_switches:" && status >> value) return value;
  }
  return -1;
}

// Ten requests 10 ms apart on fresh connections: a sleeping I/O thread is woken for each (a
// voluntary switch a request, unless the machine is so busy that the thread was still running
// when the next came); a polling one sees them without sleeping.
long IoThreadSleepsOverSpacedRequests(int busy_poll_us) {
  Router router;
  std::atomic<pid_t> io_tid{0};
  router.Add("GET", "/tid", [&io_tid](HttpRequest&&, Responder respond) {
    io_tid = gettid();
    respond(HttpResponse{});
  });
  MetricsRegistry metrics;
  HttpServerOptions options;
  options.port = 0;
  options.busy_poll_us = busy_poll_us;
  auto server = HttpServer::Create(options, router, metrics);
  if (!server.ok()) return -1;
  (*server)->Start();
  Get((*server)->port(), "/tid");
  const long before = VoluntarySwitches(io_tid);
  constexpr int kRequests = 10;
  for (int i = 0; i < kRequests; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Get((*server)->port(), "/tid");
  }
  const long after = VoluntarySwitches(io_tid);
  (*server)->Stop();
  return before < 0 || after < 0 ? -1 : after - before;
}

TEST(HttpServerLoopTest, APollingIoThreadDoesNotSleepBetweenRequests) {
  // The measurement itself: without polling the thread sleeps between most of the requests.
  EXPECT_GE(IoThreadSleepsOverSpacedRequests(0), 5);
  // A 50 ms budget spans the 10 ms between requests; a sleep or two for other reasons is
  // allowed.
  const long sleeps = IoThreadSleepsOverSpacedRequests(50'000);
  EXPECT_GE(sleeps, 0);
  EXPECT_LE(sleeps, 2);
}

}  // namespace
}  // namespace verdict
