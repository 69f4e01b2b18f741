#include "journal/journal.h"

#include <spdlog/spdlog.h>

#include <future>

#include "journal/envelope.h"
#include "journal/group_commit.h"
#include "journal/integrity_check.h"
#include "journal/journal_backend.h"

namespace verdict::journal {

Journal::Journal(const JournalOptions& options)
    : options_(options), clock_(options.clock ? *options.clock : SystemClock::Instance()) {}

Result<std::unique_ptr<Journal>> Journal::Open(const JournalOptions& options) {
  if (options.data_dir.empty()) return InvalidArgument("journal data_dir is empty", "data_dir");
  if (options.checkpoint_every_records == 0 || options.max_group_size == 0 ||
      options.max_pending == 0) {
    return InvalidArgument(
        "journal checkpoint_every_records, max_group_size and max_pending "
        "must be positive");
  }
  auto journal = std::unique_ptr<Journal>(new Journal(options));
  VERDICT_RETURN_IF_ERROR(journal->Recover());
  journal->commit_->Start();
  return journal;
}

Journal::~Journal() {
  background_verify_.reset();  // cancelled and joined: it may fail commit_ closed
  commit_.reset();             // commits everything enqueued, then stops its threads
}

Result<uint64_t> Journal::Enqueue(JournalEntry entry, CommitCallback done) {
  return commit_->Enqueue(std::move(entry), std::move(done));
}

void Journal::WhenDurable(uint64_t seq, std::function<void(const Status&)> done) {
  commit_->WhenDurable(seq, std::move(done));
}

void Journal::HandLoopCommitToWriter() { commit_->HandLoopCommitToWriter(); }

Status Journal::Flush() {
  const uint64_t target = commit_->last_enqueued();
  HandLoopCommitToWriter();
  std::promise<Status> promise;
  std::future<Status> future = promise.get_future();
  WhenDurable(target, [&promise](const Status& s) { promise.set_value(s); });
  return future.get();
}

bool Journal::healthy() const { return commit_->healthy(); }

Status Journal::health() const { return commit_->health(); }

Integrity Journal::integrity() const {
  MutexLock lock(integrity_mu_);
  return integrity_;
}

void Journal::MarkDamaged(const std::string& detail) {
  spdlog::error("journal: the data directory {} is damaged: {}", options_.data_dir, detail);
  // Failed closed first: whoever sees kDamaged finds writes refused.
  commit_->Refuse(DataLoss("journal damaged: " + detail));
  MutexLock lock(integrity_mu_);
  integrity_.state = IntegrityState::kDamaged;
  integrity_.detail = detail;
}

uint64_t Journal::durable_sequence() const { return commit_->durable_sequence(); }

uint64_t Journal::backlog() const { return commit_->backlog(); }

Digest Journal::last_hash() const { return commit_->last_hash(); }

bool Journal::IdleForTesting() const { return commit_->IdleForTesting(); }

Status Journal::RecordAdminEvent(const AdminEvent& event) {
  JournalEntry entry;
  entry.record.kind = RecordKind::kAdminEvent;
  entry.record.decided_at_us = clock_.NowMicros();
  entry.record.tenant = event.tenant;
  entry.record.principal = event.principal;
  entry.record.admin = AdminAction{event.action, event.object, event.details_json};
  auto done = std::make_shared<std::promise<Status>>();
  std::future<Status> committed = done->get_future();
  VERDICT_RETURN_IF_ERROR(Enqueue(std::move(entry), [done](const Result<CommitInfo>& info) {
                            done->set_value(info.ok() ? Status::Ok() : info.status());
                          }).status());
  HandLoopCommitToWriter();
  return committed.get();
}

}  // namespace verdict::journal
