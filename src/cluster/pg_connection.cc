#include "cluster/pg_connection.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

namespace verdict::cluster {
namespace {

constexpr char kHex[] = "0123456789abcdef";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

StatusCode CodeOfSqlState(std::string_view state) {
  if (state == "23505") return StatusCode::kAlreadyExists;  // unique_violation
  // serialization failure, deadlock: nothing was written; the caller may try again
  if (state == "40001" || state == "40P01") return StatusCode::kUnavailable;
  // Class 08 (connection exception), 57P01-03 (admin shutdown, crash, cannot connect now) and
  // 25006 (read-only transaction: this member is no longer the primary) are the database
  // going away or moving: try again, elsewhere.
  if (state.substr(0, 2) == "08" || state.substr(0, 3) == "57P" || state == "25006") {
    return StatusCode::kUnavailable;
  }
  return StatusCode::kInternal;
}

}  // namespace

PgRows::PgRows(pg_result* result) : result_(result) {}
PgRows::~PgRows() {
  if (result_) PQclear(result_);
}
PgRows::PgRows(PgRows&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
PgRows& PgRows::operator=(PgRows&& other) noexcept {
  if (this != &other) {
    if (result_) PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}
int PgRows::size() const { return result_ ? PQntuples(result_) : 0; }
bool PgRows::IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
std::string_view PgRows::Get(int row, int column) const {
  return std::string_view(PQgetvalue(result_, row, column),
                          static_cast<size_t>(PQgetlength(result_, row, column)));
}
long PgRows::affected() const {
  const char* text = result_ ? PQcmdTuples(result_) : "";
  return *text ? std::strtol(text, nullptr, 10) : 0;
}

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& url,
                                                            std::chrono::milliseconds timeout) {
  pg_conn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return Unavailable("postgres: out of memory connecting");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return Unavailable("postgres: cannot connect: " + message);
  }
  // Server notices ("relation already exists, skipping") are not errors; libpq would print
  // them on stderr.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<PgConnection>(new PgConnection(conn, timeout));
}

PgConnection::~PgConnection() { PQfinish(conn_); }

bool PgConnection::broken() const {
  return timed_out_ || abandoned_ || PQstatus(conn_) != CONNECTION_OK;
}

bool PgConnection::AwaitAnswer() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + timeout_;
  while (PQisBusy(conn_)) {
    int wait_ms = -1;
    if (timeout_.count() > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        timed_out_ = true;
        return false;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(left, INT_MAX));
    }
    pollfd socket{PQsocket(conn_), POLLIN, 0};
    const int ready = ::poll(&socket, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return false;
    if (ready > 0 && PQconsumeInput(conn_) == 0) return false;
  }
  return true;
}

pg_result* PgConnection::TakeResults() {
  const auto failed = [](pg_result* r) {
    return PQresultStatus(r) == PGRES_FATAL_ERROR || PQresultStatus(r) == PGRES_BAD_RESPONSE;
  };
  pg_result* kept = nullptr;
  while (AwaitAnswer()) {
    pg_result* next = PQgetResult(conn_);
    if (next == nullptr) return kept;
    if (kept != nullptr && failed(kept)) {  // the first failure is the one to report
      PQclear(next);
      continue;
    }
    if (kept) PQclear(kept);
    kept = next;
    // COPY FROM STDIN waits for its data: no further result comes before it is sent.
    if (PQresultStatus(kept) == PGRES_COPY_IN) return kept;
  }
  if (kept) PQclear(kept);
  return nullptr;
}

Status PgConnection::ErrorOf(pg_result* result, std::string_view what) const {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  if (timed_out_) {
    return Unavailable("postgres: " + std::string(what) + ": no answer within " +
                       std::to_string(timeout_.count()) + " ms");
  }
  std::string message = result ? PQresultErrorMessage(result) : PQerrorMessage(conn_);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  const StatusCode code =
      broken() || state == nullptr ? StatusCode::kUnavailable : CodeOfSqlState(state);
  return Status(code, "postgres: " + std::string(what) + ": " + message);
}

Result<PgRows> PgConnection::Exec(std::string_view sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  const std::string statement(sql);
  pg_result* result = PQsendQueryParams(conn_, statement.c_str(), static_cast<int>(params.size()),
                                        nullptr, values.data(), nullptr, nullptr, 0) == 1
                          ? TakeResults()
                          : nullptr;
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    Status error = ErrorOf(result, statement.substr(0, 60));
    if (result) PQclear(result);
    return error;
  }
  return PgRows(result);
}

Status PgConnection::ExecScript(std::string_view sql) {
  const std::string script(sql);
  pg_result* result = PQsendQuery(conn_, script.c_str()) == 1 ? TakeResults() : nullptr;
  if (result == nullptr || PQresultStatus(result) != PGRES_COMMAND_OK) {
    Status error = ErrorOf(result, "script");
    if (result) PQclear(result);
    return error;
  }
  PQclear(result);
  return Status::Ok();
}

Result<PgRows> PgConnection::Query(std::string_view script) {
  const std::string text(script);
  pg_result* result = PQsendQuery(conn_, text.c_str()) == 1 ? TakeResults() : nullptr;
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    Status error = ErrorOf(result, text.substr(0, 60));
    if (result) PQclear(result);
    return error;
  }
  return PgRows(result);
}

Status PgConnection::CopyIn(std::string_view copy_sql, std::string_view data) {
  const std::string statement(copy_sql);
  pg_result* started = PQsendQuery(conn_, statement.c_str()) == 1 ? TakeResults() : nullptr;
  if (started == nullptr || PQresultStatus(started) != PGRES_COPY_IN) {
    Status error = ErrorOf(started, "COPY");
    if (started) PQclear(started);
    return error;
  }
  PQclear(started);
  if (PQputCopyData(conn_, data.data(), static_cast<int>(data.size())) != 1 ||
      PQputCopyEnd(conn_, nullptr) != 1) {
    return ErrorOf(nullptr, "COPY data");
  }
  pg_result* result = TakeResults();
  Status outcome = result != nullptr && PQresultStatus(result) == PGRES_COMMAND_OK
                       ? Status::Ok()
                       : ErrorOf(result, "COPY");
  if (result) PQclear(result);
  return outcome;
}

Status PgConnection::Prepare(const std::string& name, std::string_view sql,
                             const std::vector<uint32_t>& param_types) {
  const std::string statement(sql);
  std::vector<Oid> types(param_types.begin(), param_types.end());
  pg_result* result = PQsendPrepare(conn_, name.c_str(), statement.c_str(),
                                    static_cast<int>(types.size()), types.data()) == 1
                          ? TakeResults()
                          : nullptr;
  Status outcome = result != nullptr && PQresultStatus(result) == PGRES_COMMAND_OK
                       ? Status::Ok()
                       : ErrorOf(result, "prepare " + name);
  if (result) PQclear(result);
  return outcome;
}

Status PgConnection::ExecPreparedThenCommit(
    const std::string& name, const std::vector<std::optional<std::string_view>>& params) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  const std::vector<int> formats(params.size(), 1);
  values.reserve(params.size());
  lengths.reserve(params.size());
  for (const auto& p : params) {
    values.push_back(p ? p->data() : nullptr);
    lengths.push_back(p ? static_cast<int>(p->size()) : 0);
  }
  if (PQenterPipelineMode(conn_) != 1) return ErrorOf(nullptr, "pipeline");
  const bool sent =
      PQsendQueryPrepared(conn_, name.c_str(), static_cast<int>(params.size()), values.data(),
                          lengths.data(), formats.data(), 0) == 1 &&
      PQsendQueryParams(conn_, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1 &&
      PQpipelineSync(conn_) == 1;
  // The answers in order: the statement's result, COMMIT's (or "aborted" after an error), each
  // followed by a null, then the sync's. The first failure is the one to report.
  pg_result* failure = nullptr;
  bool synced = false;
  while (sent && !synced && AwaitAnswer()) {
    pg_result* next = PQgetResult(conn_);
    if (next == nullptr) continue;  // the end of one statement's results
    const ExecStatusType status = PQresultStatus(next);
    synced = status == PGRES_PIPELINE_SYNC;
    if (failure == nullptr && (status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE)) {
      failure = next;
      continue;
    }
    PQclear(next);
  }
  Status outcome = Status::Ok();
  if (!synced || failure != nullptr) outcome = ErrorOf(failure, name);
  if (failure) PQclear(failure);
  // Without the sync's answer the connection is mid-pipeline and cannot be used again.
  if (!synced) abandoned_ = true;
  if (synced) PQexitPipelineMode(conn_);
  return outcome;
}

void AppendCopyBytea(std::string& out, std::string_view bytes) {
  out.append("\\\\x");  // COPY text format unescapes "\\" to "\", leaving bytea's "\x"
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
}

std::string ByteaParam(std::string_view bytes) {
  std::string out = "\\x";
  out.reserve(2 + 2 * bytes.size());
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

Result<std::string> DecodeByteaHex(std::string_view text) {
  if (text.substr(0, 2) != "\\x" || text.size() % 2 != 0) {
    return Internal("postgres: bytea value is not in hex format");
  }
  std::string out;
  out.reserve((text.size() - 2) / 2);
  for (size_t i = 2; i < text.size(); i += 2) {
    const int high = HexValue(text[i]);
    const int low = HexValue(text[i + 1]);
    if (high < 0 || low < 0) return Internal("postgres: bytea value has a non-hex digit");
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

}  // namespace verdict::cluster
