#include "ingest/stream_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace verdict::ingest {
namespace {

constexpr int64_t kMillis = 1'000'000;
// A refused admission waits this long at first, doubling to the cap while refusals go on.
constexpr int64_t kFirstBackoffNs = 5 * kMillis;
constexpr int64_t kMaxBackoffNs = 500 * kMillis;
// A message whose decision failed transiently (the journal unavailable) is offered again after.
constexpr int64_t kRetryAfterNs = 500 * kMillis;
// Between two attempts to reach a broker that is down.
constexpr auto kReconnectPause = std::chrono::seconds(1);
// How long Stop lets the messages in flight finish.
constexpr int64_t kDrainNs = 10'000 * kMillis;
constexpr int64_t kLagEveryNs = 1'000 * kMillis;

}  // namespace

void StreamRunner::Inbox::Push(uint64_t id, MessageOutcome outcome) {
  MutexLock lock(mu_);
  outcomes_.emplace_back(id, std::move(outcome));
  arrived_.Signal();
}

std::vector<std::pair<uint64_t, MessageOutcome>> StreamRunner::Inbox::Take(int timeout_ms) {
  MutexLock lock(mu_);
  if (outcomes_.empty() && timeout_ms > 0) {
    arrived_.WaitFor(mu_, std::chrono::milliseconds(timeout_ms));
  }
  std::vector<std::pair<uint64_t, MessageOutcome>> taken;
  taken.swap(outcomes_);
  return taken;
}

StreamRunner::StreamRunner(Engine& engine, const IngestOptions& options,
                           std::unique_ptr<StreamTransport> transport, MetricsRegistry& metrics)
    : engine_(engine),
      options_(options),
      name_(options.Name()),
      transport_(std::move(transport)),
      metrics_(metrics, name_),
      decider_(engine, options) {}

StreamRunner::~StreamRunner() { Stop(); }

void StreamRunner::Start() {
  thread_ = std::thread([this] { Run(); });
}

void StreamRunner::Stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void StreamRunner::Run() {
  bool connected = false;
  while (!stopping_) {
    if (!connected) {
      Status status = transport_->Connect();
      if (!status.ok()) {
        metrics_.transport_errors->Increment();
        spdlog::warn("ingest {}: cannot connect: {}", name_, status.message());
        std::this_thread::sleep_for(kReconnectPause);
        continue;
      }
      spdlog::info("ingest {}: consuming", name_);
      connected = true;
    }
    Status status = Turn(/*read=*/true);
    if (!status.ok()) {
      metrics_.transport_errors->Increment();
      spdlog::warn("ingest {}: connection lost ({}); reconnecting", name_, status.message());
      transport_->Close();
      Reset();
      connected = false;
      std::this_thread::sleep_for(kReconnectPause);
    }
  }
  if (!connected) return;
  const int64_t drain_until = NowNs() + kDrainNs;
  while (!pending_.empty() && NowNs() < drain_until) {
    if (!Turn(/*read=*/false).ok()) break;
  }
  if (!pending_.empty()) {
    spdlog::warn("ingest {}: stopping with {} messages uncommitted (read again at restart)", name_,
                 pending_.size());
  }
  transport_->Close();
  Reset();
}

void StreamRunner::Reset() {
  // Outcomes still to come for these ids find nothing and are dropped.
  pending_.clear();
  waiting_.clear();
  UpdateGauges();
}

Status StreamRunner::Turn(bool read) {
  SubmitWaiting();
  const bool can_read = read && waiting_.empty() && pending_.size() < options_.max_in_flight;
  bool got_message = false;
  if (can_read) {
    // Wait on the broker when nothing is in flight; otherwise only look.
    Result<std::optional<InputMessage>> next = transport_->Next(pending_.empty() ? 100 : 0);
    if (!next.ok()) return next.status();
    if (next->has_value()) {
      got_message = true;
      metrics_.received->Increment();
      const uint64_t id = next_id_++;
      pending_.emplace(id, Pending{std::move(**next)});
      waiting_.push_back(id);
      SubmitWaiting();
    }
  }
  // Nothing new read (the window full, admissions refused, the input drained) while messages
  // are in flight: wait a little for the engine rather than spin on the broker.
  VERDICT_RETURN_IF_ERROR(TakeOutcomes(!got_message && !pending_.empty() ? 2 : 0));
  VERDICT_RETURN_IF_ERROR(CommitConfirmed());
  UpdateGauges();
  return Status::Ok();
}

void StreamRunner::SubmitWaiting() {
  const int64_t now = NowNs();
  while (!waiting_.empty()) {
    auto it = pending_.find(waiting_.front());
    if (it == pending_.end()) {
      waiting_.pop_front();
      continue;
    }
    Pending& p = it->second;
    if (p.submit_after_ns > now) return;
    const uint64_t id = it->first;
    std::shared_ptr<Inbox> inbox = inbox_;
    Status admitted = decider_.Submit(
        p.message.content_type, p.message.payload,
        [inbox, id](MessageOutcome outcome) { inbox->Push(id, std::move(outcome)); },
        p.message.traceparent, p.message.tracestate);
    if (!admitted.ok() && StreamDecider::Transient(admitted)) {
      // The engine is saturated (or the tenant over its rate): wait, longer while it lasts.
      metrics_.backpressure->Increment();
      backoff_ns_ = backoff_ns_ == 0 ? kFirstBackoffNs : std::min(kMaxBackoffNs, backoff_ns_ * 2);
      p.submit_after_ns = now + backoff_ns_;
      return;
    }
    backoff_ns_ = 0;
    waiting_.pop_front();
    if (!admitted.ok()) {
      MessageOutcome outcome;
      outcome.dead_letter_error = DeadLetterErrorJson({{-1, admitted}});
      inbox_->Push(id, std::move(outcome));
    }
  }
}

Status StreamRunner::TakeOutcomes(int wait_ms) {
  for (auto& [id, outcome] : inbox_->Take(wait_ms)) {
    auto it = pending_.find(id);
    if (it == pending_.end()) continue;  // from before a reconnect
    Pending& p = it->second;
    if (outcome.retry) {
      metrics_.retries->Increment();
      spdlog::warn("ingest {}: deciding a message again later: {}", name_,
                   outcome.retry_status.message());
      p.submit_after_ns = NowNs() + kRetryAfterNs;
      waiting_.push_back(id);
      continue;
    }
    p.dead_letter = !outcome.dead_letter_error.empty();
    VERDICT_RETURN_IF_ERROR(transport_->Publish(id, p.message, outcome));
    metrics_.decisions->Increment(outcome.decisions.size());
  }
  return Status::Ok();
}

Status StreamRunner::CommitConfirmed() {
  std::vector<uint64_t> confirmed;
  VERDICT_RETURN_IF_ERROR(transport_->Poll(&confirmed));
  for (uint64_t id : confirmed) {
    auto it = pending_.find(id);
    if (it == pending_.end()) continue;
    VERDICT_RETURN_IF_ERROR(transport_->Commit(it->second.message));
    (it->second.dead_letter ? metrics_.dead_lettered : metrics_.decided)->Increment();
    pending_.erase(it);
  }
  return Status::Ok();
}

void StreamRunner::UpdateGauges() {
  metrics_.in_flight->Set(static_cast<double>(pending_.size()));
  if (transport_ == nullptr) return;
  if (const uint64_t skipped = transport_->OutputsNotRepublished(); skipped > not_republished_) {
    metrics_.not_republished->Increment(skipped - not_republished_);
    not_republished_ = skipped;
  }
  const int64_t now = NowNs();
  if (now < next_lag_ns_) return;
  next_lag_ns_ = now + kLagEveryNs;
  if (std::optional<int64_t> lag = transport_->Lag()) {
    metrics_.lag->Set(static_cast<double>(*lag));
  }
}

}  // namespace verdict::ingest
