// Offline verification of a journal: the hash chain, the Merkle root at every checkpoint, the
// checkpoint signatures, the head, and (optionally) payloads and indexes, over the store and the
// commit log's frames that continue it. Reports the first bad record and why. Stateless
// functions; a read-only view of the store, safe beside a running engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "journal/checkpoint.h"
#include "journal/commit_log.h"
#include "journal/envelope.h"
#include "journal/store.h"

namespace verdict::journal {

struct VerifyOptions {
  std::string data_dir;
  // The key checkpoints must be signed with. Default: <data_dir>/journal_signing.pub. An auditor
  // should pass a key obtained out of band: anyone who can rewrite the data dir can rewrite that.
  std::optional<PublicKey> trusted_public_key;
  // With the KEK, encrypted payloads are decrypted and checked too; without it the chain,
  // trees and signatures are still checked over the ciphertext.
  std::string kek_file;
  // Decode payloads, check input_sha256 and that the decision-id and transaction indexes point
  // at each record.
  bool check_payloads = true;
  // Read every store table file whole against its block checksums (seconds per GB).
  bool check_store_files = true;
};

struct VerifyReport {
  bool ok = false;
  uint64_t records = 0;      // records that verified, in order, before any problem
  uint64_t checkpoints = 0;  // checkpoints whose root and signature verified
  uint64_t encrypted_records = 0;
  // The first record (by sequence number) that is missing, altered or out of place; for a bad
  // checkpoint, the last record it covers. 0 when ok.
  uint64_t first_bad_seq = 0;
  std::string problem;  // empty when ok
  Digest last_hash{};
  Digest root{};
  // Of `records`, those after the store's last that only the commit log's frames hold (after a
  // power failure, or a kill before the store's write): Verify checks them where the engine's
  // next start will restore them. Set by Verify only.
  uint64_t records_only_in_commit_log = 0;
};

Result<VerifyReport> Verify(const VerifyOptions& options);
// The same over an open store (used by Verify and by tests that tamper in place).
Result<VerifyReport> VerifyStore(const JournalStore& store, const PublicKey& trusted_key,
                                 const PayloadCipher* cipher, bool check_payloads);

// What a verification beside a running engine covers.
struct StoreVerifyLimits {
  uint64_t through_seq = 0;  // records 1..through_seq and their checkpoints; not the head
  // Checked every thousand records: once set, the walk stops with kUnavailable.
  const std::atomic<bool>* cancel = nullptr;
};
// VerifyStore of the records a running engine had when it opened (the head moves on as it
// writes, so it is not checked here; Journal::Open checks it).
Result<VerifyReport> VerifyStorePrefix(const JournalStore& store, const PublicKey& trusted_key,
                                       const PayloadCipher* cipher,
                                       const StoreVerifyLimits& limits);

// The problem a commit log's lost frames are reported with, beside a journal that holds records
// through `durable_seq`.
std::string CommitLogLossProblem(const CommitLogLoss& loss, uint64_t durable_seq);
// The problem a commit log's durable mark (DurableMarkOf) beyond the journal's last record
// `held_seq` is reported with.
std::string DurableMarkProblem(uint64_t durable_mark, uint64_t held_seq);

std::string VerifyReportToJson(const VerifyReport& report);

}  // namespace verdict::journal
