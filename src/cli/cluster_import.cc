#include "cli/cluster_import.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "cluster/cluster_keys.h"
#include "cluster/controller.h"
#include "cluster/etcd_client.h"
#include "cluster/partition_map.h"
#include "cluster/pg_journal_backend.h"

namespace verdict {
namespace {

// "import-<host>-<pid>": a node id no node has (node ids are the operator's), printable, no
// spaces, so that the map and the fence say who wrote the history.
std::string ImporterId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::string id = "import-" + std::string(host) + "-" + std::to_string(getpid());
  std::replace_if(
      id.begin(), id.end(), [](char c) { return c <= ' ' || c > '~'; }, '_');
  return id;
}

}  // namespace

Result<ClusterImportJournal> TakeClusterJournalForImport(const ClusterSettings& cluster) {
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<cluster::EtcdClient> etcd,
                           cluster::EtcdClient::Create(cluster.etcd, std::chrono::seconds(3)));
  VERDICT_ASSIGN_OR_RETURN(cluster::RangeResult nodes,
                           etcd->Range(cluster::kNodesPrefix, /*prefix_match=*/true));
  if (!nodes.kvs.empty()) {
    return Status(StatusCode::kFailedPrecondition,
                  std::to_string(nodes.kvs.size()) +
                      " node(s) of the cluster are live (the first: " +
                      nodes.kvs.front().key.substr(cluster::kNodesPrefix.size()) +
                      "); history is imported before the cluster serves: stop them",
                  "cluster");
  }
  VERDICT_ASSIGN_OR_RETURN(cluster::StoredMap stored,
                           cluster::ReadPartitionMap(*etcd, cluster.partitions));
  uint64_t max_epoch = 0;
  for (const cluster::PartitionOwner& owner : stored.map) {
    max_epoch = std::max(max_epoch, owner.epoch);
  }
  ClusterImportJournal taken;
  taken.owner = ImporterId();
  taken.epoch = max_epoch + 1;
  const cluster::PartitionMap mine(cluster.partitions, {taken.owner, taken.epoch});
  // No controller (so no node) and the map as read: else a node started meanwhile.
  VERDICT_ASSIGN_OR_RETURN(
      cluster::TxnResult written,
      etcd->Txn(
          {cluster::Compare{std::string(cluster::kControllerKey),
                            cluster::Compare::Target::kCreateRevision,
                            0,
                            {}},
           cluster::Compare{std::string(cluster::kPartitionMapKey),
                            stored.mod_revision == 0 ? cluster::Compare::Target::kCreateRevision
                                                     : cluster::Compare::Target::kModRevision,
                            stored.mod_revision,
                            {}}},
          {cluster::PutRequest{std::string(cluster::kPartitionMapKey), cluster::EncodeMap(mine),
                               0}}));
  if (!written.succeeded) {
    return Status(StatusCode::kFailedPrecondition,
                  "a node of the cluster started while the import took the journal; stop it",
                  "cluster");
  }
  taken.open =
      [url = cluster.postgres, owner = taken.owner, epoch = taken.epoch](
          const journal::JournalOptions&) -> Result<std::unique_ptr<journal::JournalBackend>> {
    VERDICT_ASSIGN_OR_RETURN(
        std::unique_ptr<cluster::PgJournalBackend> backend,
        cluster::PgJournalBackend::Open(url, cluster::kClusterJournalChain, owner, epoch));
    return std::unique_ptr<journal::JournalBackend>(std::move(backend));
  };
  return taken;
}

}  // namespace verdict
