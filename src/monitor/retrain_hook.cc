#include "monitor/retrain_hook.h"

#include <netdb.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

extern char** environ;

namespace verdict::monitor {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool WaitFor(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  return rc == 1;
}

}  // namespace

Result<HttpUrl> ParseHttpUrl(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (url.rfind(kScheme, 0) != 0) {
    return InvalidArgument("webhook must be an http:// URL, got '" + url + "'",
                           "drift.retrain_webhook");
  }
  std::string rest = url.substr(kScheme.size());
  HttpUrl out;
  const size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    out.path = rest.substr(slash);
    rest = rest.substr(0, slash);
  }
  const size_t colon = rest.rfind(':');
  if (colon != std::string::npos) {
    out.port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    if (out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) {
      return InvalidArgument("webhook port is not a number in '" + url + "'",
                             "drift.retrain_webhook");
    }
  }
  if (rest.empty())
    return InvalidArgument("webhook has no host: '" + url + "'", "drift.retrain_webhook");
  for (char c : out.path) {
    if (c == ' ' || c == '\r' || c == '\n') {
      return InvalidArgument("webhook path has a space or line break", "drift.retrain_webhook");
    }
  }
  out.host = rest;
  return out;
}

Status PostJson(const HttpUrl& url, const std::string& body, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found); rc != 0) {
    return Unavailable("webhook: cannot resolve " + url.host + ": " + ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> guard(found, ::freeaddrinfo);
  Fd fd(::socket(found->ai_family, found->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                 found->ai_protocol));
  if (fd.get() < 0) return Unavailable(std::string("webhook: socket: ") + std::strerror(errno));
  if (::connect(fd.get(), found->ai_addr, found->ai_addrlen) != 0) {
    if (errno != EINPROGRESS || !WaitFor(fd.get(), POLLOUT, timeout_ms)) {
      return Unavailable("webhook: cannot connect to " + url.host + ":" + url.port);
    }
    int error = 0;
    socklen_t length = sizeof(error);
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) {
      return Unavailable("webhook: cannot connect to " + url.host + ":" + url.port + ": " +
                         std::strerror(error));
    }
  }
  const std::string request =
      "POST " + url.path + " HTTP/1.1\r\nHost: " + url.host +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n\r\n" + body;
  size_t sent = 0;
  while (sent < request.size()) {
    if (!WaitFor(fd.get(), POLLOUT, timeout_ms)) return Unavailable("webhook: send timed out");
    const ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Unavailable(std::string("webhook: send: ") + std::strerror(errno));
    }
    sent += static_cast<size_t>(n);
  }
  std::string answer;
  char buffer[512];
  while (answer.find("\r\n") == std::string::npos && answer.size() < 4096) {
    if (!WaitFor(fd.get(), POLLIN, timeout_ms)) return Unavailable("webhook: no answer in time");
    const ssize_t n = ::recv(fd.get(), buffer, sizeof(buffer), 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) break;
    answer.append(buffer, static_cast<size_t>(n));
  }
  // "HTTP/1.1 200 OK"
  if (answer.size() < 12 || answer.rfind("HTTP/1.", 0) != 0) {
    return Unavailable("webhook: not an HTTP answer");
  }
  if (answer[9] != '2') {
    return Unavailable("webhook answered " + answer.substr(9, 3));
  }
  return Status::Ok();
}

RetrainHook::RetrainHook(std::vector<std::string> command, std::string webhook, int post_timeout_ms)
    : command_(std::move(command)),
      webhook_(std::move(webhook)),
      post_timeout_ms_(post_timeout_ms) {}

RetrainHook::~RetrainHook() {
  std::thread post;
  {
    MutexLock lock(mu_);
    post = std::move(post_);
  }
  if (post.joinable()) post.join();
  Reap();
}

void RetrainHook::SetStatus(std::string status) {
  MutexLock lock(mu_);
  report_.last_status = std::move(status);
}

Status RetrainHook::Run(const std::string& body, const std::vector<std::string>& env) {
  {
    MutexLock lock(mu_);
    ++report_.runs;
  }
  if (!command_.empty()) {
    std::vector<char*> argv;
    for (const std::string& a : command_) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) envp.push_back(*e);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
    if (rc != 0) {
      SetStatus("spawn failed: " + std::string(std::strerror(rc)));
      return Internal("retrain command " + command_[0] + ": " + std::strerror(rc));
    }
    MutexLock lock(mu_);
    children_.push_back(pid);
    report_.last_pid = pid;
    report_.last_status = "running";
  }
  if (!webhook_.empty()) {
    VERDICT_ASSIGN_OR_RETURN(HttpUrl url, ParseHttpUrl(webhook_));
    std::thread finished;
    {
      MutexLock lock(mu_);
      if (post_running_) {
        report_.last_status = "webhook: the last POST is still in flight; not posted again";
        return Status::Ok();
      }
      finished = std::move(post_);
      post_running_ = true;
      post_ = std::thread([this, url, body] {
        const Status status = PostJson(url, body, post_timeout_ms_);
        MutexLock done(mu_);
        report_.last_status = status.ok() ? "webhook ok" : status.message();
        post_running_ = false;
      });
    }
    if (finished.joinable()) finished.join();  // it has ended, or is about to
  }
  return Status::Ok();
}

void RetrainHook::Reap() {
  MutexLock lock(mu_);
  for (auto it = children_.begin(); it != children_.end();) {
    int status = 0;
    const pid_t done = ::waitpid(*it, &status, WNOHANG);
    if (done == 0) {
      ++it;
      continue;
    }
    if (done == *it) {
      report_.last_status = WIFEXITED(status)
                                ? "exit " + std::to_string(WEXITSTATUS(status))
                                : "killed by signal " + std::to_string(WTERMSIG(status));
    }
    it = children_.erase(it);
  }
}

RetrainHook::Report RetrainHook::report() const {
  MutexLock lock(mu_);
  return report_;
}

}  // namespace verdict::monitor
