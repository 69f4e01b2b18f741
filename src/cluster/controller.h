// Controller: the one node at a time that keeps the partition map balanced (DESIGN §9). Every
// node runs Tick on its lease loop; the node whose lease holds the controller key acts: it reads
// the live nodes and the map and, when they disagree, publishes Rebalance's map in one
// transaction that also checks it is still the controller and that nobody changed the map since
// it was read. A controller that lost its lease can therefore never publish. Moved partitions
// get an epoch above every epoch in the map, so a fence only ever grows.
// Thread-compatible: one thread calls Tick.
#pragma once

#include <cstdint>
#include <string>

#include "cluster/coordination_store.h"
#include "cluster/partition_map.h"
#include "common/result.h"

namespace verdict::cluster {

struct ControllerRound {
  bool is_controller = false;
  bool published = false;  // this round wrote a new map
  size_t moves = 0;        // partitions whose owner changed in it
  PartitionMap map;        // the map as of this round (empty if it could not be read)
  int64_t map_revision = 0;
};

class Controller {
 public:
  Controller(CoordinationStore& store, std::string node_id, uint32_t partitions,
             Placement placement = Placement::kSpread);

  // One round, as the node holding `lease`. Errors: etcd unreachable, or a stored map that does
  // not decode (named; nothing is written then).
  Result<ControllerRound> Tick(int64_t lease);

 private:
  // Takes the controller key if it is free; whether this node holds it.
  Result<bool> Elect(int64_t lease);

  CoordinationStore& store_;
  const std::string node_id_;
  const uint32_t partitions_;
  const Placement placement_;
};

// The map as stored, with the revision it was written at (0: none yet, an unassigned map).
struct StoredMap {
  PartitionMap map;
  int64_t mod_revision = 0;
};
Result<StoredMap> ReadPartitionMap(CoordinationStore& store, uint32_t partitions);

}  // namespace verdict::cluster
