// PgJournalBackend: open, schema, the fence claim and group commit. Reads and the registry are in
// pg_journal_reads.cc.
#include "cluster/pg_journal_backend.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <thread>
#include <utility>

#include "cluster/pg_fence_table.h"
#include "cluster/pg_journal_group.h"
#include "journal/head.h"

namespace verdict::cluster {
namespace {

// Shared with PgPartitionLog, so that whichever creates the schema first, the other waits.
constexpr std::string_view kSchemaLock = "SELECT pg_advisory_xact_lock(7426)";

// After the fence table (pg_fence_table.h; the first to start creates it), with one
// more column: the chain's whole JournalHead (EncodeHead), null until the journal's first group.
constexpr std::string_view kSchema = R"sql(
ALTER TABLE verdict_partitions ADD COLUMN IF NOT EXISTS journal_head bytea;
CREATE TABLE IF NOT EXISTS verdict_journal_entries (
  chain integer NOT NULL, seq bigint NOT NULL, entry bytea NOT NULL,
  PRIMARY KEY (chain, seq));
CREATE TABLE IF NOT EXISTS verdict_journal_by_decision (
  chain integer NOT NULL, decision_id bytea NOT NULL, seq bigint NOT NULL,
  PRIMARY KEY (chain, decision_id));
CREATE TABLE IF NOT EXISTS verdict_journal_by_transaction (
  txn_key bytea PRIMARY KEY, chain integer NOT NULL, seq bigint NOT NULL);
CREATE TABLE IF NOT EXISTS verdict_journal_by_account (
  chain integer NOT NULL, tenant bytea NOT NULL, account bytea NOT NULL, seq bigint NOT NULL,
  PRIMARY KEY (chain, tenant, account, seq));
CREATE TABLE IF NOT EXISTS verdict_journal_checkpoints (
  chain integer NOT NULL, tree_size bigint NOT NULL, checkpoint bytea NOT NULL,
  PRIMARY KEY (chain, tree_size));
CREATE TABLE IF NOT EXISTS verdict_journal_state (
  chain integer NOT NULL, key bytea NOT NULL, value bytea NOT NULL,
  seq bigint NOT NULL,  -- the last record of the group that wrote it (a standby's catch-up)
  PRIMARY KEY (chain, key));
CREATE INDEX IF NOT EXISTS verdict_journal_state_by_seq ON verdict_journal_state (chain, seq, key);
CREATE TABLE IF NOT EXISTS verdict_journal_data_keys (
  chain integer NOT NULL, id bigint NOT NULL, wrapped bytea NOT NULL,
  PRIMARY KEY (chain, id));
CREATE TABLE IF NOT EXISTS verdict_journal_registry (
  chain integer NOT NULL, key bytea NOT NULL, value bytea NOT NULL,
  PRIMARY KEY (chain, key));
)sql";

// Server-side bound on any one statement, the fence row's lock wait included: a stalled
// PostgreSQL or a stuck lock gives an error, not an endless wait.
// The client's own bound, above the server's: a server that stops answering altogether (stalled,
// or a link that drops packets without a reset) ends the call, the connection is replaced.
constexpr std::chrono::milliseconds kAnswerTimeout(20'000);
// How long a group keeps being sent again while PostgreSQL cannot be reached (a fail-over:
// Patroni's TTL plus the promotion), and the pause between attempts.
constexpr std::chrono::milliseconds kReconnectWindow(60'000);
constexpr std::chrono::milliseconds kReconnectPause(200);
constexpr std::string_view kSessionSettings =
    "SET statement_timeout = '15s'; SET idle_in_transaction_session_timeout = '60s'";

Result<uint64_t> ParseSeq(std::string_view text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return Internal("postgres: not a number: " + std::string(text));
  }
  return value;
}

// The prepared statement that stores a group (PgJournalGroup::CommitSql), on the writer.
constexpr std::string_view kCommitStatement = "verdict_commit_group";

void RollBack(PgConnection& db) { (void)db.Exec("ROLLBACK"); }

bool HasParameter(const std::string& url, std::string_view name) {
  return url.find(std::string(name) + "=") != std::string::npos;
}

}  // namespace

std::string WithTimeouts(const std::string& url) {
  const bool uri = url.starts_with("postgresql://") || url.starts_with("postgres://");
  std::string out = url;
  const auto add = [&](std::string_view name, std::string_view value) {
    if (HasParameter(url, name)) return;
    if (uri) {
      out.push_back(out.find('?') == std::string::npos ? '?' : '&');
    } else if (!out.empty()) {
      out.push_back(' ');
    }
    out.append(name).push_back('=');
    out.append(value);
  };
  add("connect_timeout", "5");
  // A peer that stops acknowledging (a dead host, a cut link) ends the connection.
  add("keepalives_idle", "5");
  add("keepalives_interval", "2");
  add("keepalives_count", "3");
  add("tcp_user_timeout", "15000");
  return out;
}

PgJournalBackend::PgJournalBackend(std::string url, uint32_t chain, std::string owner,
                                   uint64_t epoch, bool read_only)
    : url_(WithTimeouts(url)),
      chain_(chain),
      chain_text_(std::to_string(chain)),
      owner_(std::move(owner)),
      epoch_(epoch),
      read_only_(read_only) {}

PgJournalBackend::~PgJournalBackend() = default;

std::chrono::milliseconds PgJournalBackend::answer_timeout() { return kAnswerTimeout; }

Result<std::unique_ptr<PgJournalBackend>> PgJournalBackend::Open(const std::string& url,
                                                                 uint32_t chain,
                                                                 std::string_view owner,
                                                                 uint64_t epoch) {
  if (owner.empty()) return InvalidArgument("a journal writer needs an owner id", "owner");
  if (epoch == 0) return InvalidArgument("a journal writer's epoch starts at 1", "epoch");
  std::unique_ptr<PgJournalBackend> backend(
      new PgJournalBackend(url, chain, std::string(owner), epoch, /*read_only=*/false));
  VERDICT_RETURN_IF_ERROR(backend->CreateSchemaAndClaim());
  VERDICT_RETURN_IF_ERROR(backend->LoadTransactionKeys());
  return backend;
}

Result<std::unique_ptr<PgJournalBackend>> PgJournalBackend::OpenReadOnly(const std::string& url,
                                                                         uint32_t chain) {
  std::unique_ptr<PgJournalBackend> backend(
      new PgJournalBackend(url, chain, std::string(), 0, /*read_only=*/true));
  // Connects now, so that a wrong URL is named at open rather than at the first read.
  VERDICT_ASSIGN_OR_RETURN(PgRows rows,
                           backend->Read("SELECT to_regclass('verdict_journal_entries') IS NULL "
                                         "OR to_regclass('verdict_partitions') IS NULL",
                                         {}));
  if (rows.size() != 1 || rows.Get(0, 0) == "t") {
    return NotFound("no cluster journal in this database");
  }
  return backend;
}

Result<PgConnection*> PgJournalBackend::WriterLocked() {
  if (writer_ && writer_->broken()) writer_.reset();
  if (!writer_) {
    VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db,
                             PgConnection::Connect(url_, kAnswerTimeout));
    VERDICT_RETURN_IF_ERROR(db->ExecScript(kSessionSettings));
    writer_ = std::move(db);
    commit_prepared_ = false;
  }
  return writer_.get();
}

Result<PgConnection*> PgJournalBackend::ReaderLocked() const {
  if (reader_ && reader_->broken()) reader_.reset();
  if (!reader_) {
    VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db,
                             PgConnection::Connect(url_, kAnswerTimeout));
    VERDICT_RETURN_IF_ERROR(db->ExecScript(kSessionSettings));
    reader_ = std::move(db);
  }
  return reader_.get();
}

Status PgJournalBackend::CreateSchemaAndClaim() {
  MutexLock lock(write_mu_);
  VERDICT_ASSIGN_OR_RETURN(PgConnection * db, WriterLocked());
  // Several nodes starting at once: one creates, the others wait on the lock, then find it.
  VERDICT_RETURN_IF_ERROR(db->Exec("BEGIN").status());
  Status status = db->Exec(kSchemaLock).status();
  if (status.ok()) status = db->ExecScript(std::string(kFenceTableSql) + std::string(kSchema));
  if (status.ok()) {
    status = db->Exec(
                   "INSERT INTO verdict_partitions (partition) VALUES ($1) "
                   "ON CONFLICT DO NOTHING",
                   {chain_text_})
                 .status();
  }
  if (status.ok()) status = Claim(*db);
  if (!status.ok()) {
    if (!db->broken()) RollBack(*db);
    return status;
  }
  return db->Exec("COMMIT").status();
}

Status PgJournalBackend::Claim(PgConnection& db) {
  const std::string epoch = std::to_string(epoch_);
  VERDICT_ASSIGN_OR_RETURN(
      PgRows raised, db.Exec("UPDATE verdict_partitions SET epoch = $2, owner = $3 "
                             "WHERE partition = $1 AND (epoch < $2 OR (epoch = $2 AND owner = $3)) "
                             "RETURNING head_seq, journal_head IS NULL",
                             {chain_text_, epoch, owner_}));
  if (raised.size() == 1) {
    // A chain written through PgPartitionLog alone has a head but no JournalHead: this journal
    // cannot continue it.
    if (raised.Get(0, 0) != "0" && raised.Get(0, 1) == "t") {
      return Status(StatusCode::kFailedPrecondition,
                    "chain " + chain_text_ + " has records but no journal head");
    }
    return Status::Ok();
  }
  VERDICT_ASSIGN_OR_RETURN(
      PgRows current,
      db.Exec("SELECT epoch, owner FROM verdict_partitions WHERE partition = $1", {chain_text_}));
  if (current.size() != 1) return Internal("postgres: no fence row for chain " + chain_text_);
  return Status(StatusCode::kFailedPrecondition,
                "fenced: chain " + chain_text_ + " is at epoch " + std::string(current.Get(0, 0)) +
                    " (owner " + std::string(current.Get(0, 1)) + "), not below " + epoch);
}

Status PgJournalBackend::CheckWritable() const {
  if (read_only_) {
    return Status(StatusCode::kFailedPrecondition, "the cluster journal is open read-only");
  }
  return Status::Ok();
}

std::unique_ptr<journal::BackendGroup> PgJournalBackend::NewGroup() {
  return std::make_unique<PgJournalGroup>();
}

Status PgJournalBackend::CommitGroup(journal::BackendGroup& group, uint64_t first_seq,
                                     uint64_t last_seq) {
  VERDICT_RETURN_IF_ERROR(CheckWritable());
  MutexLock lock(write_mu_);
  // A connection that broke before COMMIT was sent leaves nothing committed (the server rolls
  // back a transaction whose session ends), so the group is sent again on a new connection:
  // a PostgreSQL fail-over then pauses the journal rather than failing it. A COMMIT without an
  // answer may or may not have committed: the next attempt first reads the head under the
  // fence's row lock, which waits for the unanswered transaction to end (it held the lock), and
  // finds the group either there or not at all.
  const auto give_up = std::chrono::steady_clock::now() + kReconnectWindow;
  bool outcome_unknown = false;
  for (int attempt = 0;; ++attempt) {
    Result<PgConnection*> db = WriterLocked();
    Status status = db.ok() ? Status::Ok() : db.status();
    bool commit_sent = false;
    bool found_committed = false;
    if (db.ok()) {
      status = CommitLocked(**db, group, first_seq, last_seq, outcome_unknown, &commit_sent,
                            &found_committed);
      if ((!status.ok() || found_committed) && !(*db)->broken()) RollBack(**db);
    }
    const bool connection_lost =
        !status.ok() && (!db.ok() ? status.code() == StatusCode::kUnavailable : (*db)->broken());
    if (status.ok()) {
      if (outcome_unknown) {
        spdlog::info("journal: the group of records {}-{} was {}", first_seq, last_seq,
                     found_committed ? "committed before its connection was lost"
                                     : "not committed; sent again");
      }
      MutexLock txn_lock(txn_mu_);
      if (known_txns_) {
        for (const std::string& key : static_cast<PgJournalGroup&>(group).txn_keys()) {
          known_txns_->Insert(key);
        }
      }
      return status;
    }
    if (commit_sent && connection_lost) outcome_unknown = true;
    if (!connection_lost || std::chrono::steady_clock::now() >= give_up) {
      if (outcome_unknown) {
        return Status(StatusCode::kUnavailable,
                      "outcome of the commit unknown: " + status.message());
      }
      return status;
    }
    if (attempt == 0)
      spdlog::warn(
          "journal: PostgreSQL connection lost ({}); {} on a new connection", status.message(),
          outcome_unknown ? "finding out whether the group committed" : "sending the group again");
    std::this_thread::sleep_for(kReconnectPause);
  }
}

Status PgJournalBackend::CommitLocked(PgConnection& db, journal::BackendGroup& base,
                                      uint64_t first_seq, uint64_t last_seq, bool sent_before,
                                      bool* commit_sent, bool* found_committed) {
  // Every group comes from NewGroup.
  const PgJournalGroup& group = static_cast<PgJournalGroup&>(base);
  // Two round trips. The first takes the fence: the row lock orders this group against a
  // claim, which then waits for it.
  VERDICT_ASSIGN_OR_RETURN(PgRows fence, db.Query("BEGIN; SELECT epoch, owner, head_seq, "
                                                  "head_hash FROM "
                                                  "verdict_partitions WHERE partition = " +
                                                  chain_text_ + " FOR UPDATE"));
  if (fence.size() != 1) return Internal("postgres: no fence row for chain " + chain_text_);
  const std::string epoch = std::to_string(epoch_);
  if (fence.Get(0, 0) != epoch || fence.Get(0, 1) != owner_) {
    return Status(StatusCode::kFailedPrecondition,
                  "fenced: chain " + chain_text_ + " is at epoch " + std::string(fence.Get(0, 0)) +
                      " (owner " + std::string(fence.Get(0, 1)) + "), this writer at " + epoch +
                      " (" + owner_ + ")");
  }
  VERDICT_ASSIGN_OR_RETURN(uint64_t head_seq, ParseSeq(fence.Get(0, 2)));
  // The same group sent before without an answer: committed if the head is its last record.
  if (sent_before && group.head() && head_seq == last_seq) {
    VERDICT_ASSIGN_OR_RETURN(std::string head_hash, DecodeByteaHex(fence.Get(0, 3)));
    if (head_hash == journal::AsBytes(group.head()->last_hash)) {
      *found_committed = true;
      return Status::Ok();
    }
  }
  // A group without records (first_seq > last_seq) holds a checkpoint of what is stored.
  if (first_seq <= last_seq && first_seq != head_seq + 1) {
    return Internal("chain " + chain_text_ + ": group from record " + std::to_string(first_seq) +
                    " does not continue the head at " + std::to_string(head_seq));
  }
  // The second writes the whole group, moves the head and commits. Its statement is prepared
  // once per connection, at the first group (the schema exists by then).
  if (!commit_prepared_) {
    VERDICT_RETURN_IF_ERROR(db.Prepare(std::string(kCommitStatement),
                                       PgJournalGroup::CommitSql(chain_),
                                       PgJournalGroup::CommitParamTypes()));
    commit_prepared_ = true;
  }
  group.CommitParams(last_seq, commit_buffers_, commit_params_);
  *commit_sent = true;
  Status committed = db.ExecPreparedThenCommit(std::string(kCommitStatement), commit_params_);
  if (!committed.ok()) {
    // An error the server answered (a duplicate transaction key, a statement refused) stopped
    // the group before its COMMIT, or the COMMIT itself failed: nothing was committed. Only a
    // connection lost before the answer leaves the outcome unknown.
    if (!db.broken()) {
      *commit_sent = false;
      return committed;
    }
    return Status(StatusCode::kUnavailable,
                  "outcome of the commit unknown: " + committed.message());
  }
  return Status::Ok();
}

Status PgJournalBackend::Write(std::string_view sql, const std::vector<std::string>& params) {
  VERDICT_RETURN_IF_ERROR(CheckWritable());
  MutexLock lock(write_mu_);
  VERDICT_ASSIGN_OR_RETURN(PgConnection * db, WriterLocked());
  return db->Exec(sql, params).status();
}

Status PgJournalBackend::PutDataKey(uint32_t id, std::string_view wrapped) {
  return Write(
      "INSERT INTO verdict_journal_data_keys (chain, id, wrapped) VALUES ($1, $2, $3) "
      "ON CONFLICT (chain, id) DO UPDATE SET wrapped = EXCLUDED.wrapped",
      {chain_text_, std::to_string(id), ByteaParam(wrapped)});
}

Status PgJournalBackend::PutRegistry(std::string_view key, std::string_view value, bool /*sync*/) {
  // Every PostgreSQL commit is durable (and on the synchronous standby): `sync` asks no more.
  return Write(
      "INSERT INTO verdict_journal_registry (chain, key, value) VALUES ($1, $2, $3) "
      "ON CONFLICT (chain, key) DO UPDATE SET value = EXCLUDED.value",
      {chain_text_, ByteaParam(key), ByteaParam(value)});
}

Status PgJournalBackend::DeleteRegistry(std::string_view key) {
  return Write("DELETE FROM verdict_journal_registry WHERE chain = $1 AND key = $2",
               {chain_text_, ByteaParam(key)});
}

}  // namespace verdict::cluster
