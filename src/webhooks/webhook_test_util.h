// Shared by the webhook tests (one translation unit per test binary): a scripted sender that
// records what it was sent, and a journal in a temporary directory.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "journal/journal.h"
#include "journal/test_util.h"
#include "webhooks/webhook_sender.h"

namespace verdict::webhooks::testing_util {

struct SentRequest {
  std::map<std::string, std::string> headers;
  std::string body;
  bool answered_ok = false;
};

// What the scripted senders saw; shared by a test and the sender it hands to a worker.
class SenderLog {
 public:
  // The answers to give, in order (an HTTP status, or 0: no answer); `then` once they run out.
  void Script(std::vector<int> answers, int then = 200) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    script_.assign(answers.begin(), answers.end());
    then_ = then;
  }
  int NextAnswer(SentRequest request) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    int answer = then_;
    if (!script_.empty()) {
      answer = script_.front();
      script_.pop_front();
    }
    request.answered_ok = answer >= 200 && answer < 300;
    sent_.push_back(std::move(request));
    return answer;
  }
  std::vector<SentRequest> sent() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return sent_;
  }
  // The delivery ids answered 2xx, in order.
  std::vector<std::string> Delivered() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    std::vector<std::string> ids;
    for (const SentRequest& r : sent_) {
      if (r.answered_ok) ids.push_back(r.headers.at("Verdict-Delivery"));
    }
    return ids;
  }
  // Waits (10 s at most) until `count` deliveries were answered 2xx.
  bool WaitForDelivered(size_t count) const {
    for (int i = 0; i < 1000; ++i) {
      if (Delivered().size() >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  mutable Mutex mu_;
  std::deque<int> script_ GUARDED_BY(mu_);
  int then_ GUARDED_BY(mu_) = 200;
  std::vector<SentRequest> sent_ GUARDED_BY(mu_);
};

class ScriptedSender final : public WebhookSender {
 public:
  explicit ScriptedSender(std::shared_ptr<SenderLog> log) : log_(std::move(log)) {}
  Result<int> Post(const std::vector<std::pair<std::string, std::string>>& headers,
                   std::string_view body, std::chrono::milliseconds) override {
    SentRequest request;
    for (const auto& [name, value] : headers) request.headers[name] = value;
    request.body = std::string(body);
    const int answer = log_->NextAnswer(std::move(request));
    if (answer == 0) return Unavailable("no answer in time (scripted)");
    return answer;
  }

 private:
  std::shared_ptr<SenderLog> log_;
};

inline std::unique_ptr<journal::Journal> OpenTestJournal(
    const journal::testing_util::TempDir& dir) {
  journal::JournalOptions options;
  options.data_dir = dir.Sub("journal");
  options.min_free_bytes = 0;
  options.verify_in_background = false;
  return journal::testing_util::OpenOrDie(options);
}

}  // namespace verdict::webhooks::testing_util
