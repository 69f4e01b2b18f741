// IndexIdHasher: the keyed hashes that stand for account numbers and transaction ids in the
// journal's index keys when payloads are encrypted, so that a copied data directory (store files,
// WAL, commit log) names no customer identifier. HMAC-SHA256 under the index key (wrapped by the
// KEK like a data key, envelope.h), with a label per kind of id so an account and a transaction
// id that are the same string do not hash alike; 128 bits of it, hex-encoded (index keys keep
// their \0 separators unambiguous). Reads through a hashed key still compare the record read
// back with the id sought (journal_reads.cc), so neither a collision nor an edited index entry
// can answer one id with another's record. Immutable after construction; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace verdict::journal {

class IndexIdHasher {
 public:
  explicit IndexIdHasher(std::string key) : key_(std::move(key)) {}

  std::string TransactionId(std::string_view tenant, std::string_view transaction_id) const;
  std::string Account(std::string_view tenant, std::string_view account) const;

 private:
  std::string Hash(std::string_view label, std::string_view tenant, std::string_view id) const;

  const std::string key_;
};

}  // namespace verdict::journal
