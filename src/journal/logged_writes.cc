#include "journal/logged_writes.h"

namespace verdict::journal {

Result<std::vector<GroupBatchOp>> CheckGroupBatch(const JournalStore& store,
                                                  std::string_view payload) {
  VERDICT_ASSIGN_OR_RETURN(std::vector<GroupBatchOp> ops, ReadGroupBatch(payload));
  const uint32_t state = store.handle(Cf::kState)->GetID();
  for (const GroupBatchOp& op : ops) {
    bool known = false;
    for (int c = 0; c < static_cast<int>(Cf::kCount) && !known; ++c) {
      known = op.column_family == store.handle(static_cast<Cf>(c))->GetID();
    }
    if (!known) {
      return InvalidArgument("a write to column family " + std::to_string(op.column_family) +
                             ", which the journal does not have");
    }
    if (op.is_delete && op.column_family != state) {
      return InvalidArgument("a delete outside account state");
    }
  }
  return ops;
}

Status LoggedWrites::Add(const CommitLogFrame& frame) {
  VERDICT_ASSIGN_OR_RETURN(std::vector<GroupBatchOp> ops, CheckGroupBatch(store_, frame.payload));
  for (const GroupBatchOp& op : ops) {
    if (op.column_family == Id(Cf::kRecords)) {
      records_.emplace_back(op.key, op.value);
    } else if (op.column_family == Id(Cf::kCheckpoints)) {
      checkpoints_.emplace_back(op.key, op.value);
    } else if (op.is_delete) {
      writes_[{op.column_family, std::string(op.key)}] = std::nullopt;
    } else {
      writes_[{op.column_family, std::string(op.key)}] = std::string(op.value);
    }
  }
  return Status::Ok();
}

Result<std::optional<std::string>> LoggedWrites::Get(Cf cf, std::string_view key) const {
  auto it = writes_.find({Id(cf), std::string(key)});
  if (it != writes_.end()) return it->second;
  return store_.Get(cf, key);
}

}  // namespace verdict::journal
