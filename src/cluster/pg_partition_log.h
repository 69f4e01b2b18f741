// PgPartitionLog: the cluster journal's storage in PostgreSQL (DESIGN §9): per partition, a
// fence row (owner, epoch, chain head) and the partition's records in sequence order. Every
// group commit is one transaction that locks the fence row, checks the writer's epoch and that
// the records continue the head, copies them in (COPY) and moves the head, so a node that lost
// its partition can never get a record committed for it (I8), and the chain continues across
// owners. Opaque records and hashes: the journal's record format and hash chain are the
// caller's. Thread-safe: calls are serialized over one connection (a node keeps one log per
// committing thread); a broken connection is replaced on the next call, through the URL's
// hosts, so a PostgreSQL fail-over needs no restart.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/pg_connection.h"
#include "common/mutex.h"
#include "common/result.h"

namespace verdict::cluster {

struct PartitionHead {
  uint64_t epoch = 0;
  std::string owner;  // empty: never claimed
  uint64_t seq = 0;   // last committed record (0: none)
  std::string hash;   // its record hash (empty: none)
};

struct LogRecord {
  uint64_t seq = 0;
  std::string record;  // the journal's encoded record
  std::string hash;    // its record hash (the chain)
};

class PgPartitionLog {
 public:
  // Connects and creates the tables and the `partitions` fence rows if missing. A cluster's
  // number of partitions never changes: a database made for another number is refused.
  static Result<std::unique_ptr<PgPartitionLog>> Open(const std::string& url, uint32_t partitions);
  PgPartitionLog(const PgPartitionLog&) = delete;
  PgPartitionLog& operator=(const PgPartitionLog&) = delete;

  // Raises the partition's fence to `epoch` for `owner` and returns its head, from which the
  // new owner continues the chain. kFailedPrecondition "fenced" (nothing changed) when the fence is
  // already at `epoch` or above for another owner; the same owner and epoch again is not an error.
  Result<PartitionHead> Claim(uint32_t partition, std::string_view owner, uint64_t epoch)
      EXCLUDES(mu_);
  // One group commit, all or nothing. Ok only once PostgreSQL's COMMIT has returned (with a
  // synchronous standby: on its disk too). kFailedPrecondition "fenced": the partition has
  // moved to another epoch, nothing written. kInternal: the records do not continue the head
  // (a caller's bug; nothing written).
  // kUnavailable: PostgreSQL unreachable, or the outcome of the COMMIT unknown (the caller
  // must not acknowledge and must read the head again before it writes).
  Status Append(uint32_t partition, uint64_t epoch, const std::vector<LogRecord>& records)
      EXCLUDES(mu_);
  // Records with seq >= from_seq in order, at most `limit`.
  Result<std::vector<LogRecord>> Read(uint32_t partition, uint64_t from_seq, size_t limit)
      EXCLUDES(mu_);
  Result<PartitionHead> Head(uint32_t partition) EXCLUDES(mu_);
  uint32_t partitions() const { return partitions_; }

 private:
  PgPartitionLog(std::string url, uint32_t partitions)
      : url_(std::move(url)), partitions_(partitions) {}
  // The connection, reconnected if the last one broke.
  Result<PgConnection*> ConnectionLocked() REQUIRES(mu_);
  Status CheckPartition(uint32_t partition) const;
  Status AppendLocked(PgConnection& db, uint32_t partition, uint64_t epoch,
                      const std::vector<LogRecord>& records) REQUIRES(mu_);

  const std::string url_;
  const uint32_t partitions_;
  Mutex mu_;
  std::unique_ptr<PgConnection> db_ GUARDED_BY(mu_);
};

}  // namespace verdict::cluster
