#include "cluster/etcd_client.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cluster/cluster_keys.h"
#include "cluster/controller.h"
#include "cluster/etcd_test_server.h"
#include "cluster/node_lease.h"

namespace verdict::cluster {
namespace {

TEST(Base64Test, RoundTripsEveryLength) {
  std::string bytes;
  for (int n = 0; n < 40; ++n) {
    auto decoded = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, bytes) << n;
    bytes.push_back(static_cast<char>(n * 37 + 200));
  }
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_FALSE(Base64Decode("Zm9").ok());
  EXPECT_FALSE(Base64Decode("Z!9v").ok());
}

TEST(HttpEndpointTest, ParsesAndRefuses) {
  auto endpoint = ParseHttpEndpoint("http://127.0.0.1:2379/v3");
  ASSERT_TRUE(endpoint.ok());
  EXPECT_EQ(endpoint->host, "127.0.0.1");
  EXPECT_EQ(endpoint->port, "2379");
  auto v6 = ParseHttpEndpoint("http://[::1]:2379");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  for (const char* bad : {"https://a:1", "http://a", "http://:1", "http://a:", "http://a:x1"}) {
    EXPECT_FALSE(ParseHttpEndpoint(bad).ok()) << bad;
  }
}

class EtcdClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ready()) << "etcd did not start (scripts/setup installs etcd-server)";
    auto client = EtcdClient::Create(server_.url(), std::chrono::milliseconds(2000));
    ASSERT_TRUE(client.ok());
    client_ = std::move(*client);
  }

  EtcdTestServer server_;
  std::unique_ptr<EtcdClient> client_;
};

TEST_F(EtcdClientTest, TxnComparesThenPuts) {
  const std::string key = "/test/a";
  auto created = client_->Txn({Compare{key, Compare::Target::kCreateRevision, 0, {}}},
                              {PutRequest{key, std::string("v1\0\xff", 4), 0}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(created->succeeded);
  // Creating again fails: the key exists now.
  auto again = client_->Txn({Compare{key, Compare::Target::kCreateRevision, 0, {}}},
                            {PutRequest{key, "v2", 0}});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->succeeded);
  auto read = client_->Range(key, false);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->kvs.size(), 1u);
  EXPECT_EQ(read->kvs[0].value, std::string("v1\0\xff", 4));  // bytes survive base64
  EXPECT_EQ(read->kvs[0].mod_revision, created->revision);
  // A put guarded by the mod revision succeeds once, then the revision has moved.
  const Compare unchanged{key, Compare::Target::kModRevision, read->kvs[0].mod_revision, {}};
  auto guarded = client_->Txn({unchanged}, {PutRequest{key, "v3", 0}});
  ASSERT_TRUE(guarded.ok());
  EXPECT_TRUE(guarded->succeeded);
  auto stale = client_->Txn({unchanged}, {PutRequest{key, "v4", 0}});
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);
  auto by_value =
      client_->Txn({Compare{key, Compare::Target::kValue, 0, "v3"}}, {PutRequest{key, "v5", 0}});
  ASSERT_TRUE(by_value.ok());
  EXPECT_TRUE(by_value->succeeded);
}

TEST_F(EtcdClientTest, RangeByPrefixInKeyOrder) {
  for (const char* key : {"/p/b", "/p/a", "/q/c", "/p/c"}) {
    ASSERT_TRUE(client_->Txn({}, {PutRequest{key, key, 0}}).ok());
  }
  auto range = client_->Range("/p/", true);
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->kvs.size(), 3u);
  EXPECT_EQ(range->kvs[0].key, "/p/a");
  EXPECT_EQ(range->kvs[2].key, "/p/c");
  auto none = client_->Range("/nothing/", true);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->kvs.empty());
  EXPECT_GT(none->revision, 0);
}

TEST_F(EtcdClientTest, LeaseKeysGoWithTheLease) {
  auto lease = client_->GrantLease(5);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ASSERT_TRUE(client_->Txn({}, {PutRequest{"/l/k", "v", *lease}}).ok());
  auto ttl = client_->KeepAlive(*lease);
  ASSERT_TRUE(ttl.ok());
  EXPECT_EQ(*ttl, 5);
  auto kept = client_->Range("/l/k", false);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->kvs.size(), 1u);
  EXPECT_EQ(kept->kvs[0].lease, *lease);
  ASSERT_TRUE(client_->RevokeLease(*lease).ok());
  auto gone = client_->Range("/l/k", false);
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->kvs.empty());
  auto expired = client_->KeepAlive(*lease);
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(*expired, 0);
}

TEST_F(EtcdClientTest, UnreachableServerIsUnavailableNotAHang) {
  server_.Pause(true);
  auto client = EtcdClient::Create(server_.url(), std::chrono::milliseconds(300));
  ASSERT_TRUE(client.ok());
  auto range = (*client)->Range("/x", false);
  server_.Pause(false);
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.status().code(), StatusCode::kUnavailable);
}

TEST_F(EtcdClientTest, ControllerAssignsOverRealEtcd) {
  auto n0 = NodeLease::Join(*client_, SystemClock::Instance(), {"n0", "http://127.0.0.1:1", 5});
  auto n1 = NodeLease::Join(*client_, SystemClock::Instance(), {"n1", "http://127.0.0.1:2", 5});
  ASSERT_TRUE(n0.ok() && n1.ok());
  Controller c0(*client_, "n0", 8);
  auto round = c0.Tick((*n0)->lease_id());
  ASSERT_TRUE(round.ok()) << round.status().ToString();
  EXPECT_TRUE(round->published);
  size_t owned_by_n1 = 0;
  for (const auto& owner : round->map) owned_by_n1 += owner.node == "n1";
  EXPECT_EQ(owned_by_n1, 4u);
  // n1 leaves (its lease revoked, as on a clean stop): its partitions go to n0.
  ASSERT_TRUE(client_->RevokeLease((*n1)->lease_id()).ok());
  auto after = c0.Tick((*n0)->lease_id());
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->published);
  EXPECT_EQ(after->moves, 4u);
  for (const auto& owner : after->map) EXPECT_EQ(owner.node, "n0");
}

}  // namespace
}  // namespace verdict::cluster
