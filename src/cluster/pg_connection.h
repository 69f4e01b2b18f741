// PgConnection: one libpq connection to PostgreSQL (Debian's libpq), with parameterized
// statements, a prepared statement and COMMIT in one pipeline, COPY FROM STDIN and the
// SQLSTATE of a failure mapped to a Status code:
// connection loss and an unknown commit outcome are kUnavailable (the caller must not assume
// either outcome), a unique violation kAlreadyExists, a serialization failure or deadlock
// kUnavailable (nothing written; try again), the rest kInternal. A connection that failed at the
// transport level, or gave no answer within its timeout, reports broken() and is replaced by its
// owner. Not thread-safe: one connection per thread of work.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

struct pg_conn;
struct pg_result;

namespace verdict::cluster {

// A statement's result: rows of text values (libpq's text format).
class PgRows {
 public:
  PgRows() = default;
  explicit PgRows(pg_result* result);
  ~PgRows();
  PgRows(PgRows&& other) noexcept;
  PgRows& operator=(PgRows&& other) noexcept;
  PgRows(const PgRows&) = delete;
  PgRows& operator=(const PgRows&) = delete;

  int size() const;
  bool IsNull(int row, int column) const;
  std::string_view Get(int row, int column) const;
  // The number of rows an INSERT/UPDATE/DELETE touched.
  long affected() const;

 private:
  pg_result* result_ = nullptr;
};

class PgConnection {
 public:
  // `url`: a libpq connection URI; a multi-host one with target_session_attrs=read-write finds
  // the primary after a fail-over.
  // `timeout` above zero bounds the wait for each statement's answer on the client's side, so a
  // server that stopped answering (stalled, or unreachable without a reset) gives kUnavailable
  // and a broken() connection rather than an endless wait; zero waits as long as it takes.
  static Result<std::unique_ptr<PgConnection>> Connect(
      const std::string& url, std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one statement with text parameters ($1, $2, ...). A null std::string_view data()
  // is not special: every parameter is a value.
  Result<PgRows> Exec(std::string_view sql, const std::vector<std::string>& params = {});
  // Runs statements separated by semicolons, without parameters (a schema).
  Status ExecScript(std::string_view sql);
  // Runs statements separated by semicolons in one round trip (the simple query protocol);
  // the last statement's rows, or the first error (the statements after it do not run).
  Result<PgRows> Query(std::string_view script);
  // Prepares statement `name` on this connection, its parameters of the given type OIDs.
  Status Prepare(const std::string& name, std::string_view sql,
                 const std::vector<uint32_t>& param_types);
  // Runs prepared statement `name` with parameters in binary format (nullopt: SQL NULL), then
  // COMMIT, both sent at once (libpq's pipeline mode: one round trip). Ok once COMMIT returned.
  // On the statement's error, COMMIT does not run and the transaction stays open and failed
  // (the caller rolls it back); a broken() connection afterwards leaves the outcome unknown.
  Status ExecPreparedThenCommit(const std::string& name,
                                const std::vector<std::optional<std::string_view>>& params);
  // COPY ... FROM STDIN with `data` in COPY's text format, inside the current transaction.
  Status CopyIn(std::string_view copy_sql, std::string_view data);
  // True after a transport failure: the connection is unusable.
  bool broken() const;

 private:
  PgConnection(pg_conn* conn, std::chrono::milliseconds timeout) : conn_(conn), timeout_(timeout) {}
  Status ErrorOf(pg_result* result, std::string_view what) const;
  // Waits until the answer to what was sent can be read without blocking; false on a transport
  // failure or when the timeout passed (then the connection is broken()).
  bool AwaitAnswer();
  // The statement's results once answered: the first failed one, else the last; null if none
  // came (see broken()).
  pg_result* TakeResults();

  pg_conn* conn_;
  const std::chrono::milliseconds timeout_;
  bool timed_out_ = false;
  bool abandoned_ = false;  // left mid-pipeline: unusable
};

// bytea in COPY text format (hex, with COPY's own backslash escaped) and back from a query's
// text result ("\x0a1b...").
void AppendCopyBytea(std::string& out, std::string_view bytes);
Result<std::string> DecodeByteaHex(std::string_view text);
// A bytea parameter in text format: "\x" + hex.
std::string ByteaParam(std::string_view bytes);

}  // namespace verdict::cluster
