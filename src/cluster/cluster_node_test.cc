#include "cluster/cluster_node.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cluster/fake_coordination_store.h"

namespace verdict::cluster {
namespace {

constexpr uint32_t kParts = 8;

class ClusterNodeTest : public ::testing::Test {
 protected:
  ClusterNodeTest() : store_(clock_) {}

  std::unique_ptr<ClusterNode> Join(const std::string& id) {
    auto node = ClusterNode::Join(store_, clock_, {id, "http://127.0.0.1/" + id, 3, kParts});
    EXPECT_TRUE(node.ok()) << node.status().ToString();
    return node.ok() ? std::move(*node) : nullptr;
  }
  void Advance(int64_t ms) { clock_.AdvanceMicros(ms * 1000); }

  ManualClock clock_{1'000'000};
  FakeCoordinationStore store_;
};

TEST_F(ClusterNodeTest, TwoNodesSplitThePartitions) {
  auto a = Join("a");
  auto b = Join("b");
  ASSERT_TRUE(a->Tick().ok());  // a becomes controller and publishes
  ASSERT_TRUE(b->Tick().ok());
  ASSERT_TRUE(a->Tick().ok());
  EXPECT_TRUE(a->is_controller());
  EXPECT_FALSE(b->is_controller());
  EXPECT_EQ(a->Owned().size(), kParts / 2);
  EXPECT_EQ(b->Owned().size(), kParts / 2);
  for (uint32_t p = 0; p < kParts; ++p) {
    EXPECT_NE(a->MayServe(p), b->MayServe(p)) << "partition " << p << " needs one owner";
  }
}

TEST_F(ClusterNodeTest, StandbyForwardsToTheSingleOwnerAndTakesOverWhenItDies) {
  ClusterNodeOptions options{"a", "http://127.0.0.1:1", 3, kParts, Placement::kSingleOwner};
  auto a = ClusterNode::Join(store_, clock_, options);
  options.node_id = "b";
  options.url = "http://127.0.0.1:2";
  auto b = ClusterNode::Join(store_, clock_, options);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Tick().ok());
  ASSERT_TRUE((*b)->Tick().ok());
  EXPECT_EQ((*a)->Owned().size(), kParts);
  EXPECT_TRUE((*b)->Owned().empty());
  EXPECT_EQ((*a)->OwnerUrl(0), std::nullopt);
  EXPECT_EQ((*b)->OwnerUrl(0), "http://127.0.0.1:1");
  // a stops renewing; once its lease expires b takes every partition.
  for (int i = 0; i < 4; ++i) {
    Advance(1000);
    ASSERT_TRUE((*b)->Tick().ok());
  }
  EXPECT_EQ((*b)->Owned().size(), kParts);
  EXPECT_EQ((*b)->OwnerUrl(0), std::nullopt);
  EXPECT_FALSE((*a)->MayServe(0));
  // a resumes: it joins again as a new member and stands by, forwarding to b.
  ASSERT_TRUE((*a)->Tick().ok());
  EXPECT_TRUE((*a)->lease_held());
  EXPECT_TRUE((*a)->Owned().empty());
  EXPECT_EQ((*a)->OwnerUrl(0), "http://127.0.0.1:2");
  ASSERT_TRUE((*b)->Tick().ok());
  EXPECT_EQ((*b)->Owned().size(), kParts);
}

TEST_F(ClusterNodeTest, StalledNodeStopsServingBeforeItsPartitionsMove) {
  auto a = Join("a");
  auto b = Join("b");
  ASSERT_TRUE(a->Tick().ok());
  ASSERT_TRUE(b->Tick().ok());
  const auto b_owned = b->Owned();
  ASSERT_FALSE(b_owned.empty());
  // b stalls; a keeps ticking. b's own view lapses no later than etcd's lease, so at no time
  // do both think they may serve one partition.
  for (int i = 0; i < 8; ++i) {
    Advance(500);
    ASSERT_TRUE(a->Tick().ok());
    for (const auto& owned : b_owned) {
      EXPECT_FALSE(a->MayServe(owned.partition) && b->MayServe(owned.partition))
          << "partition " << owned.partition << " served by both at step " << i;
    }
  }
  EXPECT_FALSE(b->lease_held());
  EXPECT_TRUE(b->Owned().empty());
  EXPECT_EQ(a->Owned().size(), kParts);
  for (const auto& owned : b_owned) {
    EXPECT_TRUE(a->MayServe(owned.partition));
    // The new owner's epoch is above the old one: its claim fences the old owner out.
    const auto now = a->Owned();
    EXPECT_GT(now[owned.partition].epoch, owned.epoch);
  }
  // The stalled node wakes: its old lease is gone for good, so it joins again as a new
  // member; the map it reads gives it none of its old partitions.
  ASSERT_TRUE(b->Tick().ok());
  EXPECT_TRUE(b->lease_held());
  EXPECT_FALSE(b->MayServe(b_owned.front().partition));
}

TEST_F(ClusterNodeTest, ARejoiningNodeGetsItsShareBack) {
  auto a = Join("a");
  ASSERT_TRUE(a->Tick().ok());
  EXPECT_EQ(a->Owned().size(), kParts);
  auto b = Join("b");
  ASSERT_TRUE(a->Tick().ok());
  ASSERT_TRUE(b->Tick().ok());
  EXPECT_EQ(a->Owned().size(), kParts / 2);
  EXPECT_EQ(b->Owned().size(), kParts / 2);
}

TEST_F(ClusterNodeTest, RefusesZeroPartitions) {
  auto node = ClusterNode::Join(store_, clock_, {"a", "http://x:1", 3, 0});
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().field(), "cluster.partitions");
}

}  // namespace
}  // namespace verdict::cluster
