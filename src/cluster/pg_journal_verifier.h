// Verification of the cluster journal in PostgreSQL (`verdict audit verify --postgres URL`): per
// chain, the hash chain, the Merkle root and signature of every checkpoint, the head in the fence
// row, and (optionally) payloads and the indexes that lead to each record, read through a
// read-only PgJournalBackend. Reports the first bad record and why, as the data-dir verifier
// does (journal/verifier.h). Stateless functions; reads only, safe beside running nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/pg_journal_backend.h"
#include "common/result.h"
#include "journal/checkpoint.h"
#include "journal/envelope.h"
#include "journal/verifier.h"

namespace verdict::cluster {

struct PgVerifyOptions {
  std::string url;
  // The key every checkpoint must be signed with. Without it, each checkpoint must verify under
  // the key it carries (a chain's owners sign with their own keys): that catches altered records
  // and checkpoints, but not a whole journal rewritten and re-signed by someone who can write
  // to the database; an auditor passes a key obtained out of band.
  std::optional<journal::PublicKey> trusted_public_key;
  // With the KEK, encrypted payloads are decrypted and checked too.
  std::string kek_file;
  bool check_payloads = true;
};

struct ChainReport {
  uint32_t chain = 0;
  journal::VerifyReport report;
};

// Every chain that has a journal in the database at `options.url`, in chain order.
Result<std::vector<ChainReport>> VerifyPgJournal(const PgVerifyOptions& options);
// One chain, through an open backend (tests tamper and verify again).
Result<journal::VerifyReport> VerifyPgChain(const PgJournalBackend& backend,
                                            const std::optional<journal::PublicKey>& trusted_key,
                                            const journal::PayloadCipher* cipher,
                                            bool check_payloads);

}  // namespace verdict::cluster
