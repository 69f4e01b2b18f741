// Journal::Recover: what Journal::Open does before group commit starts.
#include <spdlog/spdlog.h>

#include <filesystem>

#include "journal/envelope.h"
#include "journal/group_commit.h"
#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/integrity_check.h"
#include "journal/journal.h"
#include "journal/rocks_backend.h"

namespace verdict::journal {

Status Journal::Recover() {
  int64_t start_ns = clock_.MonotonicNanos();
  Gauge* recovery_gauge = nullptr;
  if (MetricsRegistry* m = options_.metrics) {
    recovery_gauge = m->GetGauge("verdict_journal_recovery_seconds",
                                 "Time the last start spent recovering from the journal.");
  }
  // The backend is whole once open (a commit log's frames the store lacked are replayed).
  if (options_.open_backend) {
    VERDICT_ASSIGN_OR_RETURN(backend_, options_.open_backend(options_));
    if (!backend_) return Internal("journal: open_backend gave no backend");
    // The signer's key file lives there; RocksDB would have created it.
    std::error_code ec;
    std::filesystem::create_directories(options_.data_dir, ec);
    if (ec) return Unavailable("cannot create " + options_.data_dir + ": " + ec.message());
  } else {
    VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<RocksJournalBackend> rocks,
                             RocksJournalBackend::Open(options_));
    commit_log_direct_io_ = rocks->commit_log_direct_io();
    backend_ = std::move(rocks);
  }
  VERDICT_ASSIGN_OR_RETURN(signer_, CheckpointSigner::LoadOrCreate(options_.data_dir));

  VERDICT_ASSIGN_OR_RETURN(std::optional<JournalHead> head, backend_->ReadHead());
  std::optional<Checkpoint> checkpoint;
  std::string damage = backend_->DamageFoundAtOpen();
  if (damage.empty()) {
    Result<std::optional<Checkpoint>> cp = backend_->LatestCheckpoint();
    if (cp.ok()) {
      checkpoint = std::move(cp).value();
      VERDICT_ASSIGN_OR_RETURN(damage, CheckAtOpen(head, checkpoint));
    } else if (cp.status().code() == StatusCode::kInvalidArgument) {
      // DecodeCheckpoint refuses the bytes with kInvalidArgument; anything else is the read's.
      damage = "latest checkpoint is corrupt";
    } else {
      return cp.status();
    }
  }
  if (!damage.empty() && !options_.open_damaged) {
    return Status(StatusCode::kFailedPrecondition, damage);
  }
  GroupCommit::ChainStart start;
  if (head) {
    start.last_seq = head->last_seq;
    start.last_hash = head->last_hash;
    start.merkle = std::move(head->merkle);
  }
  if (checkpoint) start.checkpoint_size = checkpoint->tree_size;

  if (!options_.kek_file.empty()) {
    VERDICT_ASSIGN_OR_RETURN(cipher_,
                             PayloadCipher::FromKekFile(options_.kek_file, options_.cipher));
    uint32_t max_id = 0;
    VERDICT_RETURN_IF_ERROR(backend_->LoadDataKeys(*cipher_, &max_id));
    // An empty journal gets an index key before its first record: from then on its index keys
    // hold keyed hashes of account numbers and transaction ids. A journal with records and no
    // index key was written before they were hashed (or in the clear) and keeps its clear form,
    // so that one store never mixes the two.
    if (!head && !cipher_->has_index_key() && damage.empty()) {
      VERDICT_ASSIGN_OR_RETURN(std::string wrapped, cipher_->NewIndexKey());
      VERDICT_RETURN_IF_ERROR(backend_->PutDataKey(kIndexKeyId, wrapped));
    }
    // A fresh data key per open keeps (key, nonce = seq) pairs unique even if a crash lost the
    // tail of a previous run whose sequence numbers are now reused. A damaged journal writes
    // nothing, so it needs none.
    if (damage.empty()) {
      VERDICT_ASSIGN_OR_RETURN(std::string wrapped, cipher_->NewDataKey(max_id + 1));
      VERDICT_RETURN_IF_ERROR(backend_->PutDataKey(max_id + 1, wrapped));
    }
  } else if (head && head->last_seq > 0 && damage.empty()) {
    // Without the KEK, new records would be written in the clear and indexed under clear ids
    // beside encrypted ones indexed under keyed hashes: a lookup would miss the older records,
    // and a missed transaction id is a duplicate decision.
    Result<std::optional<std::string>> last = backend_->ReadEntry(head->last_seq);
    if (last.ok() && last->has_value()) {
      Result<EntryView> entry = DecodeEntry(**last);
      if (entry.ok() && (entry->flags & kEntryFlagEncrypted) != 0) {
        return Status(StatusCode::kFailedPrecondition,
                      "the journal's records are encrypted: journal.kek_file must name its "
                      "key-encryption key");
      }
    }
  }

  VERDICT_RETURN_IF_ERROR(
      RecoverStates(head ? head->state_digest : std::nullopt, start.state_digest, damage));
  if (start.state_digest) start.sealer = state_sealer();
  if (!damage.empty() && !options_.open_damaged) {
    return Status(StatusCode::kFailedPrecondition, damage);
  }

  const uint64_t last_seq = start.last_seq;
  commit_ =
      std::make_unique<GroupCommit>(options_, *backend_, *signer_, cipher_.get(), std::move(start));
  if (!damage.empty()) {
    MarkDamaged(damage);
  } else if (options_.verify_in_background) {
    StartBackgroundVerify(last_seq);
  } else {
    MutexLock lock(integrity_mu_);
    integrity_.state = IntegrityState::kVerified;
  }
  recovery_seconds_ = static_cast<double>(clock_.MonotonicNanos() - start_ns) / 1e9;
  if (recovery_gauge) recovery_gauge->Set(recovery_seconds_);
  spdlog::info("journal: recovered {} records from {} in {:.3f} s; checkpoint key {}", last_seq,
               options_.data_dir, recovery_seconds_,
               ToHex(std::string_view(reinterpret_cast<const char*>(signer_->public_key().data()),
                                      signer_->public_key().size())));
  if (options_.durability == Durability::kAsync) {
    spdlog::warn(
        "journal: durability = \"async\": decisions are acknowledged BEFORE they are on "
        "disk and can be lost on power failure; use only for benchmarks");
  }
  return Status::Ok();
}

Status Journal::RecoverStates(const std::optional<StateDigest>& sealed,
                              std::optional<StateDigest>& digest, std::string& damage) {
  // The RocksDB store keeps the states beside the chain: sealed there. A cluster's PostgreSQL
  // holds every node's partitions in one table, outside any one chain (docs/architecture.md).
  if (!options_.open_backend) {
    // The key is made with the first sealed head; a sealed head without it cannot be checked.
    Result<StateSealer> sealer = StateSealer::Load(options_.data_dir, /*create=*/!sealed);
    if (sealer.ok()) {
      state_sealer_.emplace(std::move(sealer).value());
    } else if (sealed && damage.empty()) {
      damage =
          "account states cannot be checked against the journal head: " + sealer.status().message();
    } else if (!sealed) {
      return sealer.status();
    }
  }
  if (!options_.on_recovered_state && !state_sealer_) return Status::Ok();
  StateDigest found;
  uint64_t states = 0;
  VERDICT_RETURN_IF_ERROR(
      backend_->ForEachState([&](std::string_view key, std::string_view value) -> Status {
        std::optional<StateTag> tag;
        if (state_sealer_) {
          tag = state_sealer_->Tag(key, value);
          found.Add(*tag);
        }
        ++states;
        if (!options_.on_recovered_state) return Status::Ok();
        return options_.on_recovered_state(key, value, tag ? &*tag : nullptr);
      }));
  if (!state_sealer_) return Status::Ok();
  if (sealed && !(found == *sealed) && damage.empty()) {
    damage = StateDigestProblem(states);
  }
  if (!sealed && states > 0) {
    spdlog::warn("journal: {} account states stored before states were sealed; sealed from now on",
                 states);
  }
  digest = found;
  return Status::Ok();
}

Status Journal::CheckHead(const std::optional<JournalHead>& head) const {
  const uint64_t last_seq = head ? head->last_seq : 0;
  // The head and the records are written in one group, so they agree unless the store was
  // altered; refuse to extend a chain whose end we cannot vouch for.
  if (last_seq > 0) {
    VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> last, backend_->ReadEntry(last_seq));
    if (!last) {
      return Status(StatusCode::kFailedPrecondition,
                    "journal head names record " + std::to_string(last_seq) +
                        ", which is missing; run `verdict audit verify`");
    }
    Result<EntryView> entry = DecodeEntry(*last);
    if (!entry.ok() || entry->record_hash != head->last_hash || entry->seq != last_seq) {
      return Status(StatusCode::kFailedPrecondition,
                    "journal head does not match the last record; run `verdict audit verify`");
    }
  }
  VERDICT_ASSIGN_OR_RETURN(std::optional<std::string> beyond, backend_->ReadEntry(last_seq + 1));
  if (beyond) {
    return Status(StatusCode::kFailedPrecondition,
                  "journal has records beyond its head; run `verdict audit verify`");
  }
  return Status::Ok();
}

Result<std::string> Journal::CheckAtOpen(const std::optional<JournalHead>& head,
                                         const std::optional<Checkpoint>& checkpoint) const {
  if (Status head_ok = CheckHead(head); !head_ok.ok()) {
    if (head_ok.code() != StatusCode::kFailedPrecondition) return head_ok;
    return head_ok.message();
  }
  // A backend other than the data directory's own store (a cluster's PostgreSQL) holds checkpoints
  // signed by each node that owned the chain in turn: there the latest is checked against the key
  // it carries, and `verdict audit verify --public-key` pins the keys.
  const PublicKey& trusted_key =
      options_.open_backend && checkpoint ? checkpoint->public_key : signer_->public_key();
  Status tail = CheckTail(*backend_, head, checkpoint, trusted_key);
  if (!tail.ok()) {
    if (tail.code() != StatusCode::kDataLoss) return tail;
    return tail.message();
  }
  return std::string();
}

void Journal::StartBackgroundVerify(uint64_t through_seq) {
  const int64_t start_ns = clock_.MonotonicNanos();
  background_verify_ = std::make_unique<BackgroundVerify>(
      [this, through_seq](const std::atomic<bool>& cancel) {
        return backend_->VerifyAtRest(through_seq, signer_->public_key(), cipher_.get(), cancel);
      },
      [this, start_ns, through_seq](const Status& result) {
        const double seconds = static_cast<double>(clock_.MonotonicNanos() - start_ns) / 1e9;
        if (!result.ok()) {
          MarkDamaged(result.message());
          return;
        }
        {
          MutexLock lock(integrity_mu_);
          if (integrity_.state == IntegrityState::kVerifying) {
            integrity_.state = IntegrityState::kVerified;
          }
        }
        spdlog::info("journal: store files and the chain of {} records verified in {:.3f} s",
                     through_seq, seconds);
      });
}

}  // namespace verdict::journal
