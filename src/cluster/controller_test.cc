#include "cluster/controller.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "cluster/cluster_keys.h"
#include "cluster/cluster_status.h"
#include "cluster/fake_coordination_store.h"
#include "cluster/node_lease.h"

namespace verdict::cluster {
namespace {

constexpr uint32_t kPartitions = 16;

class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest() : store_(clock_) {}

  std::unique_ptr<NodeLease> Join(const std::string& id) {
    auto lease = NodeLease::Join(store_, clock_, {id, "http://127.0.0.1:1/" + id, 5});
    EXPECT_TRUE(lease.ok()) << lease.status().ToString();
    return lease.ok() ? std::move(*lease) : nullptr;
  }
  void AdvanceSeconds(int64_t s) { clock_.AdvanceMicros(s * kMicrosPerSecond); }

  std::map<std::string, size_t> Holdings(const PartitionMap& map) {
    std::map<std::string, size_t> count;
    for (const auto& owner : map) ++count[owner.node];
    return count;
  }

  ManualClock clock_{1'000'000};
  FakeCoordinationStore store_;
};

TEST_F(ControllerTest, FirstNodeBecomesControllerAndOwnsEverything) {
  auto n0 = Join("n0");
  Controller controller(store_, "n0", kPartitions);
  auto round = controller.Tick(n0->lease_id());
  ASSERT_TRUE(round.ok()) << round.status().ToString();
  EXPECT_TRUE(round->is_controller);
  EXPECT_TRUE(round->published);
  EXPECT_EQ(Holdings(round->map)["n0"], kPartitions);
  auto stored = ReadPartitionMap(store_, kPartitions);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->map, round->map);
}

TEST_F(ControllerTest, OnlyOneControllerAndItRebalancesOnJoin) {
  auto n0 = Join("n0");
  auto n1 = Join("n1");
  Controller c0(store_, "n0", kPartitions);
  Controller c1(store_, "n1", kPartitions);
  auto r0 = c0.Tick(n0->lease_id());
  auto r1 = c1.Tick(n1->lease_id());
  ASSERT_TRUE(r0.ok() && r1.ok());
  EXPECT_TRUE(r0->is_controller);
  EXPECT_FALSE(r1->is_controller);
  EXPECT_FALSE(r1->published);
  EXPECT_EQ(Holdings(r1->map)["n0"], 8u);
  EXPECT_EQ(Holdings(r1->map)["n1"], 8u);
}

TEST_F(ControllerTest, ExpiredNodeLosesItsPartitionsWithHigherEpochs) {
  auto n0 = Join("n0");
  auto n1 = Join("n1");
  Controller c0(store_, "n0", kPartitions);
  auto before = c0.Tick(n0->lease_id());
  ASSERT_TRUE(before.ok());
  // n1 stops renewing; n0 renews through its lease time.
  for (int i = 0; i < 6; ++i) {
    AdvanceSeconds(1);
    ASSERT_TRUE(n0->Renew().ok());
  }
  EXPECT_FALSE(n1->Held());
  EXPECT_FALSE(n1->Renew().ok());
  auto after = c0.Tick(n0->lease_id());
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->published);
  EXPECT_EQ(Holdings(after->map)["n0"], kPartitions);
  for (size_t p = 0; p < kPartitions; ++p) {
    if (before->map[p].node == "n1") {
      EXPECT_GT(after->map[p].epoch, before->map[p].epoch) << "partition " << p;
    } else {
      EXPECT_EQ(after->map[p], before->map[p]) << "partition " << p;
    }
  }
}

TEST_F(ControllerTest, ControllerRoleMovesWhenItsLeaseExpires) {
  auto n0 = Join("n0");
  auto n1 = Join("n1");
  Controller c0(store_, "n0", kPartitions);
  Controller c1(store_, "n1", kPartitions);
  ASSERT_TRUE(c0.Tick(n0->lease_id()).ok());
  for (int i = 0; i < 6; ++i) {  // n0 stalls (no renewals); n1 renews
    AdvanceSeconds(1);
    ASSERT_TRUE(n1->Renew().ok());
  }
  auto r1 = c1.Tick(n1->lease_id());
  ASSERT_TRUE(r1.ok());
  EXPECT_TRUE(r1->is_controller);
  EXPECT_EQ(Holdings(r1->map)["n1"], kPartitions);
  // The stalled n0 wakes up: it is no longer the controller and cannot publish.
  auto late = c0.Tick(n0->lease_id());
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(late->is_controller);
  EXPECT_FALSE(late->published);
  auto stored = ReadPartitionMap(store_, kPartitions);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(Holdings(stored->map)["n1"], kPartitions);
}

TEST_F(ControllerTest, MapChangedSinceReadIsNotOverwritten) {
  auto n0 = Join("n0");
  Controller c0(store_, "n0", kPartitions);
  ASSERT_TRUE(c0.Tick(n0->lease_id()).ok());
  // Another writer changes the map (say, a hand move) between two rounds; the next round
  // starts from the map as it is now.
  PartitionMap moved = ReadPartitionMap(store_, kPartitions)->map;
  moved[3] = {"n0", 99};
  ASSERT_TRUE(store_.Txn({}, {{std::string(kPartitionMapKey), EncodeMap(moved), 0}}).ok());
  auto round = c0.Tick(n0->lease_id());
  ASSERT_TRUE(round.ok());
  EXPECT_FALSE(round->published);  // balanced already
  EXPECT_EQ(round->map[3].epoch, 99u);
}

TEST_F(ControllerTest, UnusableStoredMapIsNamedAndNotOverwritten) {
  auto n0 = Join("n0");
  ASSERT_TRUE(store_.Txn({}, {{std::string(kPartitionMapKey), "n0 1\nn0 x\n", 0}}).ok());
  Controller c0(store_, "n0", kPartitions);
  auto round = c0.Tick(n0->lease_id());
  ASSERT_FALSE(round.ok());
  EXPECT_NE(round.status().message().find("partition 1"), std::string::npos)
      << round.status().message();
  auto raw = store_.Range(kPartitionMapKey, false);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->kvs.front().value, "n0 1\nn0 x\n");
}

TEST_F(ControllerTest, SingleOwnerPlacementMovesEverythingWhenTheOwnerDies) {
  auto n0 = Join("n0");
  auto n1 = Join("n1");
  Controller c0(store_, "n0", kPartitions, Placement::kSingleOwner);
  Controller c1(store_, "n1", kPartitions, Placement::kSingleOwner);
  auto first = c0.Tick(n0->lease_id());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Holdings(first->map)["n0"], kPartitions);
  const uint64_t first_epoch = first->map[0].epoch;
  // n0 stops renewing: its lease (and the controller key) expire; n1 takes everything.
  for (int i = 0; i < 3; ++i) {
    AdvanceSeconds(2);
    ASSERT_TRUE(n1->Renew().ok());
  }
  auto second = c1.Tick(n1->lease_id());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->is_controller);
  EXPECT_EQ(Holdings(second->map)["n1"], kPartitions);
  for (const PartitionOwner& owner : second->map) EXPECT_GT(owner.epoch, first_epoch);
}

TEST_F(ControllerTest, DuplicateNodeIdIsRefused) {
  auto n0 = Join("n0");
  auto again = NodeLease::Join(store_, clock_, {"n0", "http://127.0.0.1:2", 5});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
}

TEST(NodeLeaseTest, HeldOnlyWhileRenewed) {
  ManualClock clock(1'000'000);
  FakeCoordinationStore store(clock);
  auto lease = NodeLease::Join(store, clock, {"n0", "http://127.0.0.1:1", 3});
  ASSERT_TRUE(lease.ok());
  EXPECT_TRUE((*lease)->Held());
  clock.AdvanceMicros(2 * kMicrosPerSecond);
  ASSERT_TRUE((*lease)->Renew().ok());
  clock.AdvanceMicros(2 * kMicrosPerSecond);
  EXPECT_TRUE((*lease)->Held());  // renewed 2 s ago, 3 s lease
  // etcd unreachable: renewals fail and the node's own bound runs out.
  store.SetUnreachable(true);
  EXPECT_FALSE((*lease)->Renew().ok());
  EXPECT_TRUE((*lease)->Held());
  clock.AdvanceMicros(1 * kMicrosPerSecond + 1);
  EXPECT_FALSE((*lease)->Held());
  // Reachable again, but the lease has lapsed in etcd: it stays lost.
  store.SetUnreachable(false);
  EXPECT_FALSE((*lease)->Renew().ok());
  EXPECT_FALSE((*lease)->Held());
}

TEST(NodeLeaseTest, RefusesBadOptions) {
  ManualClock clock;
  FakeCoordinationStore store(clock);
  EXPECT_FALSE(NodeLease::Join(store, clock, {"has space", "http://x:1", 5}).ok());
  EXPECT_FALSE(NodeLease::Join(store, clock, {"", "http://x:1", 5}).ok());
  EXPECT_FALSE(NodeLease::Join(store, clock, {"n0", "http://x:1", 0}).ok());
}

}  // namespace
}  // namespace verdict::cluster

namespace verdict::cluster {
namespace {

TEST(ClusterStatusTest, ShowsNodesControllerMapAndOrphans) {
  ManualClock clock(1'000'000);
  FakeCoordinationStore store(clock);
  auto n0 = NodeLease::Join(store, clock, {"n0", "http://127.0.0.1:1", 5});
  auto n1 = NodeLease::Join(store, clock, {"n1", "http://127.0.0.1:2", 5});
  ASSERT_TRUE(n0.ok() && n1.ok());
  Controller controller(store, "n0", 4);
  ASSERT_TRUE(controller.Tick((*n0)->lease_id()).ok());
  ASSERT_TRUE(store.RevokeLease((*n1)->lease_id()).ok());  // n1 gone, not yet rebalanced
  auto status = ReadClusterStatus(store);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->controller, "n0");
  ASSERT_EQ(status->nodes.size(), 1u);
  EXPECT_EQ(status->nodes[0].partitions, 2u);
  EXPECT_EQ(status->map.size(), 4u);
  EXPECT_EQ(status->orphaned, 2u);
  const std::string json = ClusterStatusJson(*status);
  EXPECT_NE(json.find("\"controller\":\"n0\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"orphaned\":2"), std::string::npos) << json;
  EXPECT_NE(ClusterStatusText(*status).find("2 without a live owner"), std::string::npos);
}

TEST(ClusterStatusTest, EmptyClusterHasNoMap) {
  ManualClock clock;
  FakeCoordinationStore store(clock);
  auto status = ReadClusterStatus(store);
  ASSERT_TRUE(status.ok());
  EXPECT_TRUE(status->map.empty());
  EXPECT_TRUE(status->controller.empty());
  EXPECT_NE(ClusterStatusJson(*status).find("\"controller\":null"), std::string::npos);
}

}  // namespace
}  // namespace verdict::cluster
