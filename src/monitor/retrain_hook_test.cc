#include "monitor/retrain_hook.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace verdict::monitor {
namespace {

using namespace std::chrono_literals;

// A webhook on 127.0.0.1 that counts the POSTs it takes, all of them at once, and answers each
// 200 once released. Bounded: it takes at most `max_posts`, and stops when its listening
// socket is shut down.
class SlowWebhook {
 public:
  explicit SlowWebhook(int max_posts) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(listener_, 64), 0);
    socklen_t len = sizeof addr;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this, max_posts] {
      for (int i = 0; i < max_posts; ++i) {
        const int conn = ::accept(listener_, nullptr, nullptr);
        if (conn < 0) return;
        ++posts_;
        answerers_.emplace_back([this, conn] {
          char buf[4096];
          (void)::recv(conn, buf, sizeof buf, 0);
          released_.wait();
          const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
          (void)::send(conn, answer.data(), answer.size(), MSG_NOSIGNAL);
          ::close(conn);
        });
      }
    });
  }
  ~SlowWebhook() {
    Release();
    ::shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    for (std::thread& t : answerers_) t.join();
    ::close(listener_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  int posts() const { return posts_.load(); }
  void Release() {
    if (!release_set_.exchange(true)) release_.set_value();
  }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> posts_{0};
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
  std::atomic<bool> release_set_{false};
  std::vector<std::thread> answerers_;  // the acceptor's until it is joined
  std::thread acceptor_;
};

bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(10ms);
  return done();
}

// A hook run again and again while its POST waits for an answer sends no second POST (it kept
// a thread per run before, never joined until the monitor ended); once the answer has come,
// the next run posts again.
TEST(RetrainHookTest, OneWebhookPostAtATime) {
  SlowWebhook webhook(/*max_posts=*/30);
  // Timeouts far beyond the test: the POST held by the webhook must not give up on its own.
  RetrainHook hook({}, webhook.url(), /*post_timeout_ms=*/120'000);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(hook.Run("{}", {}).ok());
  ASSERT_TRUE(WaitFor([&] { return webhook.posts() == 1; }));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(webhook.posts(), 1);
  EXPECT_NE(hook.report().last_status.find("still in flight"), std::string::npos);
  EXPECT_EQ(hook.report().runs, 20u);

  webhook.Release();
  ASSERT_TRUE(WaitFor([&] { return hook.report().last_status == "webhook ok"; }));
  ASSERT_TRUE(hook.Run("{}", {}).ok());
  EXPECT_TRUE(WaitFor([&] { return webhook.posts() == 2; }));
}

}  // namespace
}  // namespace verdict::monitor
