#include "journal/stored_record.h"

#include "journal/bytes.h"
#include "journal/hash_chain.h"

namespace verdict::journal {

Result<JournalRecord> DecodeStoredEntry(std::string_view stored, const PayloadCipher* cipher) {
  VERDICT_ASSIGN_OR_RETURN(EntryView entry, DecodeEntry(stored));
  JournalRecord record;
  if ((entry.flags & kEntryFlagEncrypted) != 0) {
    if (cipher == nullptr) {
      return Status(StatusCode::kFailedPrecondition,
                    "record " + std::to_string(entry.seq) +
                        " is encrypted and no key-encryption key was given");
    }
    VERDICT_ASSIGN_OR_RETURN(std::string plain, cipher->Decrypt(entry.seq, entry.payload));
    VERDICT_RETURN_IF_ERROR(DecodeRecordPayload(plain, record));
  } else {
    VERDICT_RETURN_IF_ERROR(DecodeRecordPayload(entry.payload, record));
  }
  record.seq = entry.seq;
  record.prev_hash = entry.prev_hash;
  record.record_hash = entry.record_hash;
  return record;
}

Status LoadDataKeys(const JournalStore& store, PayloadCipher& cipher, uint32_t* max_id) {
  *max_id = 0;
  std::unique_ptr<rocksdb::Iterator> it = store.NewIterator(Cf::kMeta);
  for (it->Seek(kMetaDekPrefix); it->Valid() && it->key().starts_with(kMetaDekPrefix); it->Next()) {
    std::string_view id_bytes = it->key().ToStringView().substr(kMetaDekPrefix.size());
    if (id_bytes.size() != 4) return InvalidArgument("malformed data key entry in meta");
    uint32_t id = ByteReader(id_bytes).U32();
    VERDICT_RETURN_IF_ERROR(cipher.AddWrappedKey(id, it->value().ToStringView()));
    if (id > *max_id) *max_id = id;
  }
  return FromRocks(it->status(), "reading data keys");
}

}  // namespace verdict::journal
