// RetrainHook: what L2 drift runs: a command (argv, spawned without a shell, never waited
// for on the caller's thread) and/or an HTTP POST of a JSON body to a webhook URL (on a
// background thread). Owned by the DriftMonitor; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"

namespace verdict::monitor {

// "http://host:port/path" split up; only plain http is supported.
struct HttpUrl {
  std::string host;
  std::string port = "80";
  std::string path = "/";
};
Result<HttpUrl> ParseHttpUrl(const std::string& url);

// POSTs `body` (application/json) and waits for the status line; a 2xx answer is ok.
// Connect, send and receive each time out after `timeout_ms`.
Status PostJson(const HttpUrl& url, const std::string& body, int timeout_ms);

class RetrainHook {
 public:
  // `post_timeout_ms`: the webhook's connect, send and answer each time out after this long.
  RetrainHook(std::vector<std::string> command, std::string webhook, int post_timeout_ms = 2000);
  ~RetrainHook();
  RetrainHook(const RetrainHook&) = delete;
  RetrainHook& operator=(const RetrainHook&) = delete;

  bool configured() const { return !command_.empty() || !webhook_.empty(); }

  // Starts the command with `env` ("NAME=value") added to this process's environment, and
  // the webhook POST; returns without waiting for either. One POST at a time: while the last
  // one is in flight (up to its timeouts) no other is sent, so a hook run again and again
  // (a freeze re-fires every cooldown) holds one thread, not one per run. Fails when the
  // command cannot be spawned or the URL is malformed.
  Status Run(const std::string& body, const std::vector<std::string>& env) EXCLUDES(mu_);
  // Collects finished commands (non-blocking); call periodically.
  void Reap() EXCLUDES(mu_);

  // What the last run did, for GET /v1/drift.
  struct Report {
    uint64_t runs = 0;
    int64_t last_pid = 0;
    std::string last_status;  // "running", "exit 0", "webhook 200", an error...
  };
  Report report() const EXCLUDES(mu_);

 private:
  void SetStatus(std::string status) EXCLUDES(mu_);

  const std::vector<std::string> command_;
  const std::string webhook_;
  const int post_timeout_ms_;
  // Taken with the owning DriftMonitor's mu_ held (Tick reaps, Snapshot reports), never the
  // other way round.
  mutable Mutex mu_;
  Report report_ GUARDED_BY(mu_);
  std::vector<int> children_ GUARDED_BY(mu_);
  // The last webhook POST; joined before the next, or at the end.
  std::thread post_ GUARDED_BY(mu_);
  bool post_running_ GUARDED_BY(mu_) = false;
};

}  // namespace verdict::monitor
