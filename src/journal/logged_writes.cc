#include "journal/logged_writes.h"

namespace verdict::journal {

bool LoggedWrites::Add(const CommitLogFrame& frame) {
  rocksdb::WriteBatch batch(frame.payload);
  return batch.Iterate(this).ok();
}

Result<std::optional<std::string>> LoggedWrites::Get(Cf cf, std::string_view key) const {
  auto it = writes_.find({Id(cf), std::string(key)});
  if (it != writes_.end()) return it->second;
  return store_.Get(cf, key);
}

rocksdb::Status LoggedWrites::PutCF(uint32_t cf, const rocksdb::Slice& key,
                                    const rocksdb::Slice& value) {
  if (cf == Id(Cf::kRecords)) {
    records_.emplace_back(key.ToString(), value.ToString());
    return rocksdb::Status::OK();
  }
  if (cf == Id(Cf::kCheckpoints)) {
    checkpoints_.emplace_back(key.ToString(), value.ToString());
    return rocksdb::Status::OK();
  }
  for (int c = 0; c < static_cast<int>(Cf::kCount); ++c) {
    if (cf == Id(static_cast<Cf>(c))) {
      writes_[{cf, key.ToString()}] = value.ToString();
      return rocksdb::Status::OK();
    }
  }
  return rocksdb::Status::Corruption("a put to an unknown column family");
}

rocksdb::Status LoggedWrites::DeleteCF(uint32_t cf, const rocksdb::Slice& key) {
  // A group commit deletes account state only; a delete of a record, checkpoint, index or the
  // head would make the next start remove what verify had read from the store.
  if (cf != Id(Cf::kState)) return rocksdb::Status::Corruption("a delete outside account state");
  writes_[{cf, key.ToString()}] = std::nullopt;
  return rocksdb::Status::OK();
}

}  // namespace verdict::journal
