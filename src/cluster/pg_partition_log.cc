#include "cluster/pg_partition_log.h"

#include <charconv>
#include <utility>

#include "cluster/pg_fence_table.h"

namespace verdict::cluster {
namespace {

constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS verdict_cluster (
  name text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE IF NOT EXISTS verdict_journal (
  partition integer NOT NULL,
  seq bigint NOT NULL,
  epoch bigint NOT NULL,
  record bytea NOT NULL,
  record_hash bytea NOT NULL,
  PRIMARY KEY (partition, seq)
);
)sql";

Result<uint64_t> ParseUint(std::string_view text, std::string_view what) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return Internal("postgres: " + std::string(what) + " is not a number: " + std::string(text));
  }
  return value;
}

Result<PartitionHead> HeadOfRow(const PgRows& rows) {
  PartitionHead head;
  auto epoch = ParseUint(rows.Get(0, 0), "epoch");
  auto seq = ParseUint(rows.Get(0, 2), "head_seq");
  auto hash = DecodeByteaHex(rows.Get(0, 3));
  if (!epoch.ok()) return epoch.status();
  if (!seq.ok()) return seq.status();
  if (!hash.ok()) return hash.status();
  head.epoch = *epoch;
  head.owner = std::string(rows.Get(0, 1));
  head.seq = *seq;
  head.hash = std::move(*hash);
  return head;
}

// Ends a transaction that failed: the connection is reusable afterwards unless it broke.
void RollBack(PgConnection& db) { (void)db.Exec("ROLLBACK"); }

}  // namespace

Result<std::unique_ptr<PgPartitionLog>> PgPartitionLog::Open(const std::string& url,
                                                             uint32_t partitions) {
  if (partitions == 0) return InvalidArgument("partitions must be at least 1", "partitions");
  std::unique_ptr<PgPartitionLog> log(new PgPartitionLog(url, partitions));
  MutexLock lock(log->mu_);
  auto db = log->ConnectionLocked();
  if (!db.ok()) return db.status();
  PgConnection& c = **db;
  // Concurrent first starts of several nodes: one creates, the others wait on the lock.
  auto begun = c.Exec("BEGIN");
  if (!begun.ok()) return begun.status();
  if (auto locked = c.Exec("SELECT pg_advisory_xact_lock(7426)"); !locked.ok()) {
    RollBack(c);
    return locked.status();
  }
  if (Status created = c.ExecScript(std::string(kFenceTableSql) + std::string(kSchema));
      !created.ok()) {
    RollBack(c);
    return created;
  }
  auto stored = c.Exec(
      "INSERT INTO verdict_cluster VALUES ('partitions', $1) "
      "ON CONFLICT (name) DO UPDATE SET value = verdict_cluster.value "
      "RETURNING value",
      {std::to_string(partitions)});
  if (!stored.ok()) {
    RollBack(c);
    return stored.status();
  }
  if (stored->Get(0, 0) != std::to_string(partitions)) {
    RollBack(c);
    return Status(StatusCode::kFailedPrecondition,
                  "the cluster's database was made for " + std::string(stored->Get(0, 0)) +
                      " partitions, not " + std::to_string(partitions),
                  "cluster.partitions");
  }
  auto rows = c.Exec(
      "INSERT INTO verdict_partitions (partition) "
      "SELECT generate_series(0, $1::integer - 1) ON CONFLICT DO NOTHING",
      {std::to_string(partitions)});
  if (!rows.ok()) {
    RollBack(c);
    return rows.status();
  }
  if (auto committed = c.Exec("COMMIT"); !committed.ok()) return committed.status();
  return log;
}

Result<PgConnection*> PgPartitionLog::ConnectionLocked() {
  if (db_ && db_->broken()) db_.reset();
  if (!db_) {
    auto db = PgConnection::Connect(url_);
    if (!db.ok()) return db.status();
    db_ = std::move(*db);
  }
  return db_.get();
}

Status PgPartitionLog::CheckPartition(uint32_t partition) const {
  if (partition >= partitions_) {
    return InvalidArgument(
        "partition " + std::to_string(partition) + " is not below " + std::to_string(partitions_),
        "partition");
  }
  return Status::Ok();
}

Result<PartitionHead> PgPartitionLog::Claim(uint32_t partition, std::string_view owner,
                                            uint64_t epoch) {
  VERDICT_RETURN_IF_ERROR(CheckPartition(partition));
  MutexLock lock(mu_);
  auto db = ConnectionLocked();
  if (!db.ok()) return db.status();
  auto raised = (*db)->Exec(
      "UPDATE verdict_partitions SET epoch = $2, owner = $3 "
      "WHERE partition = $1 AND (epoch < $2 OR (epoch = $2 AND owner = $3)) "
      "RETURNING epoch, owner, head_seq, head_hash",
      {std::to_string(partition), std::to_string(epoch), std::string(owner)});
  if (!raised.ok()) return raised.status();
  if (raised->size() == 1) return HeadOfRow(*raised);
  auto current = (*db)->Exec(
      "SELECT epoch, owner, head_seq, head_hash FROM verdict_partitions WHERE partition = $1",
      {std::to_string(partition)});
  if (!current.ok()) return current.status();
  auto head = HeadOfRow(*current);
  if (!head.ok()) return head.status();
  return Status(StatusCode::kFailedPrecondition, "fenced: partition " + std::to_string(partition) +
                                                     " is at epoch " + std::to_string(head->epoch) +
                                                     " (owner " + head->owner + "), not below " +
                                                     std::to_string(epoch));
}

Status PgPartitionLog::Append(uint32_t partition, uint64_t epoch,
                              const std::vector<LogRecord>& records) {
  VERDICT_RETURN_IF_ERROR(CheckPartition(partition));
  if (records.empty()) return Status::Ok();
  MutexLock lock(mu_);
  auto db = ConnectionLocked();
  if (!db.ok()) return db.status();
  Status status = AppendLocked(**db, partition, epoch, records);
  if (!status.ok() && !(*db)->broken()) RollBack(**db);
  return status;
}

Status PgPartitionLog::AppendLocked(PgConnection& db, uint32_t partition, uint64_t epoch,
                                    const std::vector<LogRecord>& records) {
  const std::string p = std::to_string(partition);
  if (auto begun = db.Exec("BEGIN"); !begun.ok()) return begun.status();
  // The fence: the row lock orders this commit against a Claim, which then waits for it.
  auto fence = db.Exec(
      "SELECT epoch, owner, head_seq, head_hash FROM verdict_partitions "
      "WHERE partition = $1 FOR UPDATE",
      {p});
  if (!fence.ok()) return fence.status();
  auto head = HeadOfRow(*fence);
  if (!head.ok()) return head.status();
  if (head->epoch != epoch) {
    return Status(StatusCode::kFailedPrecondition, "fenced: partition " + p + " is at epoch " +
                                                       std::to_string(head->epoch) +
                                                       ", this writer at " + std::to_string(epoch));
  }
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].seq != head->seq + 1 + i) {
      return Status(StatusCode::kInternal,
                    "partition " + p + ": record " + std::to_string(records[i].seq) +
                        " does not continue the head at " + std::to_string(head->seq + i));
    }
  }
  std::string data;
  const std::string prefix = p + "\t";
  const std::string epoch_text = "\t" + std::to_string(epoch) + "\t";
  for (const LogRecord& r : records) {
    data.append(prefix).append(std::to_string(r.seq)).append(epoch_text);
    AppendCopyBytea(data, r.record);
    data.push_back('\t');
    AppendCopyBytea(data, r.hash);
    data.push_back('\n');
  }
  VERDICT_RETURN_IF_ERROR(db.CopyIn(
      "COPY verdict_journal (partition, seq, epoch, record, record_hash) FROM STDIN", data));
  auto moved = db.Exec(
      "UPDATE verdict_partitions SET head_seq = $2, head_hash = $3 "
      "WHERE partition = $1",
      {p, std::to_string(records.back().seq), ByteaParam(records.back().hash)});
  if (!moved.ok()) return moved.status();
  auto committed = db.Exec("COMMIT");
  if (!committed.ok()) {
    return Status(StatusCode::kUnavailable,
                  "outcome of the commit unknown: " + committed.status().message());
  }
  return Status::Ok();
}

Result<std::vector<LogRecord>> PgPartitionLog::Read(uint32_t partition, uint64_t from_seq,
                                                    size_t limit) {
  VERDICT_RETURN_IF_ERROR(CheckPartition(partition));
  MutexLock lock(mu_);
  auto db = ConnectionLocked();
  if (!db.ok()) return db.status();
  auto rows = (*db)->Exec(
      "SELECT seq, record, record_hash FROM verdict_journal "
      "WHERE partition = $1 AND seq >= $2 ORDER BY seq LIMIT $3",
      {std::to_string(partition), std::to_string(from_seq), std::to_string(limit)});
  if (!rows.ok()) return rows.status();
  std::vector<LogRecord> out;
  out.reserve(static_cast<size_t>(rows->size()));
  for (int i = 0; i < rows->size(); ++i) {
    auto seq = ParseUint(rows->Get(i, 0), "seq");
    auto record = DecodeByteaHex(rows->Get(i, 1));
    auto hash = DecodeByteaHex(rows->Get(i, 2));
    if (!seq.ok()) return seq.status();
    if (!record.ok()) return record.status();
    if (!hash.ok()) return hash.status();
    out.push_back({*seq, std::move(*record), std::move(*hash)});
  }
  return out;
}

Result<PartitionHead> PgPartitionLog::Head(uint32_t partition) {
  VERDICT_RETURN_IF_ERROR(CheckPartition(partition));
  MutexLock lock(mu_);
  auto db = ConnectionLocked();
  if (!db.ok()) return db.status();
  auto rows = (*db)->Exec(
      "SELECT epoch, owner, head_seq, head_hash FROM verdict_partitions WHERE partition = $1",
      {std::to_string(partition)});
  if (!rows.ok()) return rows.status();
  if (rows->size() != 1) return Internal("postgres: no fence row for partition");
  return HeadOfRow(*rows);
}

}  // namespace verdict::cluster
