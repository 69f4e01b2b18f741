#include "journal/logged_writes.h"

namespace verdict::journal {

Status LoggedWrites::Add(const CommitLogFrame& frame) {
  VERDICT_ASSIGN_OR_RETURN(std::vector<GroupBatchOp> ops,
                           CheckGroupBatch(store_, frame.payload, frame.first_seq, frame.last_seq));
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
