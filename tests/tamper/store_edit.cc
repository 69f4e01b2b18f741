// store_edit: one record-level edit of a stopped engine's journal store, for the tamper suite
// (tamper_suite.py). It writes through RocksDB, so every store checksum stays valid: only the
// journal's own checks (hash chain, signed checkpoints, the registry's and indexes' checks
// against the journal) can tell. Edits, chosen by the seed: a value's byte flipped, a key
// deleted, a value copied over another key's of the same family, a value moved to a new key,
// and a journal entry decoded, changed (a decision's outcome, an admin event's text) and encoded
// anew with a valid entry hash; for the last entry, the head too (hash and Merkle tree), as an
// attacker who knows the format but not the signing key would.
// Prints one line saying what it changed; exit 2 when the chosen family had nothing to edit.
// Single-threaded; a test tool, never shipped.
#include <rocksdb/db.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "journal/digest.h"
#include "journal/hash_chain.h"
#include "journal/head.h"
#include "journal/merkle.h"
#include "journal/record.h"
#include "journal/store.h"

namespace verdict::journal {
namespace {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

KeyValues ReadFamily(JournalStore& store, Cf cf) {
  KeyValues out;
  std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(cf);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  return out;
}

// A payload changed as an editor would: a decision's outcome turned, else (an admin event, or
// ciphertext) the role words swapped where present, else one byte changed.
std::string EditedPayload(std::string_view payload, std::mt19937_64& rng) {
  JournalRecord record;
  if (DecodeRecordPayload(payload, record).ok()) {
    record.decision.outcome =
        record.decision.outcome == Outcome::kAllow ? Outcome::kBlock : Outcome::kAllow;
    std::string out;
    EncodeRecordPayload(record, out);
    return out;
  }
  std::string out(payload);
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"scorer", "admin\""},
                                 {"analyst", "admin\"\""},
                                 {"revoke", "create"}}) {
    const size_t at = out.find(from);
    if (at != std::string::npos) {
      // Same length, so that any length field before it stays right.
      out.replace(at, from.size(), to.substr(0, from.size()));
      return out;
    }
  }
  if (!out.empty()) out[rng() % out.size()] ^= 0x01;
  return out;
}

// The stored head's state digest, which an edit of the records alone leaves as it was.
std::optional<StateDigest> StateDigestOfHead(const JournalStore& store) {
  Result<std::optional<JournalHead>> head = ReadStoredHead(store);
  return head.ok() && head->has_value() ? (*head)->state_digest : std::nullopt;
}

// Re-encodes entry `seq` with an edited payload; for the last entry, the head as well.
std::string ReencodeEntry(JournalStore& store, const KeyValues& records, size_t index,
                          std::mt19937_64& rng, rocksdb::WriteBatch& batch) {
  Result<EntryView> entry = DecodeEntry(records[index].second);
  if (!entry.ok()) return "";
  std::string value;
  const Digest edited = EncodeEntry(entry->seq, entry->flags, entry->prev_hash,
                                    EditedPayload(entry->payload, rng), value);
  batch.Put(store.handle(Cf::kRecords), records[index].first, value);
  if (index + 1 != records.size()) return "re-encoded entry " + std::to_string(entry->seq);
  CompactMerkle merkle;
  for (size_t i = 0; i < records.size(); ++i) {
    Result<EntryView> other = DecodeEntry(records[i].second);
    if (!other.ok()) return "";
    const Digest& hash = i == index ? edited : other->record_hash;
    merkle.AppendLeafHash(MerkleLeafHash(AsBytes(hash)));
  }
  JournalHead head{entry->seq, edited, merkle, StateDigestOfHead(store)};
  batch.Put(store.handle(Cf::kMeta), kMetaHeadKey, EncodeHead(head));
  return "re-encoded the last entry " + std::to_string(entry->seq) + " and the head";
}

int Run(const std::string& data_dir, uint64_t seed) {
  StoreOptions so;
  so.data_dir = data_dir;
  so.create_if_missing = false;
  Result<std::unique_ptr<JournalStore>> opened = JournalStore::Open(so);
  if (!opened.ok()) {
    std::cerr << "store_edit: " << opened.status().ToString() << "\n";
    return 1;
  }
  JournalStore& store = **opened;
  std::mt19937_64 rng(seed);
  const Cf cf = static_cast<Cf>(1 + rng() % (static_cast<int>(Cf::kCount) - 1));
  const KeyValues family = ReadFamily(store, cf);
  if (family.empty()) {
    std::cout << "family " << CfName(cf) << " is empty\n";
    return 2;
  }
  const size_t index = rng() % family.size();
  const auto& [key, value] = family[index];
  const std::string where = std::string(CfName(cf)) + " key " + ToHex(key);
  rocksdb::WriteBatch batch;
  rocksdb::ColumnFamilyHandle* handle = store.handle(cf);
  std::string did;
  switch (cf == Cf::kRecords ? rng() % 5 : rng() % 4) {
    case 0: {
      std::string flipped = value;
      if (flipped.empty()) flipped = "x";
      const size_t at = rng() % flipped.size();
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << (rng() % 8)));
      batch.Put(handle, key, flipped);
      did = "flipped a bit of the value at " + std::to_string(at) + " of " + where;
      break;
    }
    case 1:
      batch.Delete(handle, key);
      did = "deleted " + where;
      break;
    case 2: {
      const auto& other = family[rng() % family.size()];
      batch.Put(handle, key, other.second);
      did = "copied the value of " + ToHex(other.first) + " over " + where;
      break;
    }
    case 3: {
      std::string moved = key;
      if (moved.empty()) moved = "k";
      moved.back() = static_cast<char>(moved.back() ^ 0x01);
      batch.Delete(handle, key);
      batch.Put(handle, moved, value);
      did = "moved the value of " + where + " to " + ToHex(moved);
      break;
    }
    default:
      did = ReencodeEntry(store, family, index, rng, batch);
      break;
  }
  if (did.empty()) {
    std::cout << "nothing to edit at " << where << "\n";
    return 2;
  }
  if (Status written = store.Write(batch, /*sync=*/true); !written.ok()) {
    std::cerr << "store_edit: " << written.ToString() << "\n";
    return 1;
  }
  std::cout << did << "\n";
  return 0;
}

}  // namespace
}  // namespace verdict::journal

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: store_edit JOURNAL_DIR SEED\n";
    return 1;
  }
  return verdict::journal::Run(argv[1], std::strtoull(argv[2], nullptr, 10));
}
