#include "cluster/controller.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "cluster/cluster_keys.h"

namespace verdict::cluster {

Result<StoredMap> ReadPartitionMap(CoordinationStore& store, uint32_t partitions) {
  auto range = store.Range(kPartitionMapKey, /*prefix_match=*/false);
  if (!range.ok()) return range.status();
  if (range->kvs.empty()) return StoredMap{PartitionMap(partitions), 0};
  auto map = DecodeMap(range->kvs.front().value, partitions);
  if (!map.ok()) {
    return Status(StatusCode::kInternal,
                  "stored partition map " + std::string(kPartitionMapKey) +
                      " is unusable: " + map.status().message(),
                  map.status().field());
  }
  return StoredMap{std::move(*map), range->kvs.front().mod_revision};
}

Controller::Controller(CoordinationStore& store, std::string node_id, uint32_t partitions,
                       Placement placement)
    : store_(store), node_id_(std::move(node_id)), partitions_(partitions), placement_(placement) {}

Result<bool> Controller::Elect(int64_t lease) {
  auto current = store_.Range(kControllerKey, /*prefix_match=*/false);
  if (!current.ok()) return current.status();
  if (!current->kvs.empty()) return current->kvs.front().value == node_id_;
  auto taken =
      store_.Txn({Compare{std::string(kControllerKey), Compare::Target::kCreateRevision, 0, {}}},
                 {PutRequest{std::string(kControllerKey), node_id_, lease}});
  if (!taken.ok()) return taken.status();
  return taken->succeeded;
}

Result<ControllerRound> Controller::Tick(int64_t lease) {
  ControllerRound round;
  auto elected = Elect(lease);
  if (!elected.ok()) return elected.status();
  round.is_controller = *elected;
  auto stored = ReadPartitionMap(store_, partitions_);
  if (!stored.ok()) return stored.status();
  round.map = std::move(stored->map);
  round.map_revision = stored->mod_revision;
  if (!round.is_controller) return round;

  auto nodes = store_.Range(kNodesPrefix, /*prefix_match=*/true);
  if (!nodes.ok()) return nodes.status();
  std::vector<std::string> live;
  for (const KeyValue& kv : nodes->kvs) live.push_back(kv.key.substr(kNodesPrefix.size()));
  uint64_t max_epoch = 0;
  for (const PartitionOwner& owner : round.map) max_epoch = std::max(max_epoch, owner.epoch);
  PartitionMap next = placement_ == Placement::kSpread
                          ? Rebalance(round.map, std::move(live), max_epoch + 1)
                          : SingleOwner(round.map, std::move(live), max_epoch + 1);
  if (next == round.map) return round;

  // Still the controller, and the map unchanged since read: else another round decides.
  auto written =
      store_.Txn({Compare{std::string(kControllerKey), Compare::Target::kValue, 0, node_id_},
                  Compare{std::string(kPartitionMapKey),
                          round.map_revision == 0 ? Compare::Target::kCreateRevision
                                                  : Compare::Target::kModRevision,
                          round.map_revision,
                          {}}},
                 {PutRequest{std::string(kPartitionMapKey), EncodeMap(next), 0}});
  if (!written.ok()) return written.status();
  if (!written->succeeded) return round;
  round.published = true;
  round.moves = CountMoves(round.map, next);
  round.map = std::move(next);
  round.map_revision = written->revision;
  return round;
}

}  // namespace verdict::cluster
