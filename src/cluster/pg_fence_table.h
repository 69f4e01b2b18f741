// The fence table both PostgreSQL journal layouts share (PgPartitionLog, PgJournalBackend): one
// row per partition or chain with its owner, epoch and chain head. Whichever starts first creates
// it; the definition lives here once so that the two can never disagree. Constants only.
#pragma once

#include <string_view>

namespace verdict::cluster {

inline constexpr std::string_view kFenceTableSql = R"sql(
CREATE TABLE IF NOT EXISTS verdict_partitions (
  partition integer PRIMARY KEY,
  epoch bigint NOT NULL DEFAULT 0,
  owner text NOT NULL DEFAULT '',
  head_seq bigint NOT NULL DEFAULT 0,
  head_hash bytea NOT NULL DEFAULT ''::bytea
);
)sql";

}  // namespace verdict::cluster
