#include "cli/cluster_command.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cluster/cluster_status.h"
#include "cluster/etcd_client.h"

namespace verdict {
namespace {

int RunClusterStatus(const std::string& etcd, bool json) {
  auto client = cluster::EtcdClient::Create(etcd, std::chrono::milliseconds(3000));
  if (!client.ok()) {
    std::fprintf(stderr, "cluster status: %s\n", client.status().message().c_str());
    return 2;
  }
  auto status = cluster::ReadClusterStatus(**client);
  if (!status.ok()) {
    std::fprintf(stderr, "cluster status: %s\n", status.status().message().c_str());
    return 1;
  }
  const std::string out =
      json ? cluster::ClusterStatusJson(*status) : cluster::ClusterStatusText(*status);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

void RegisterClusterCommand(CLI::App& app) {
  CLI::App* cluster = app.add_subcommand("cluster", "Inspect a cluster (DESIGN §9)");
  cluster->require_subcommand(1);
  CLI::App* status = cluster->add_subcommand(
      "status", "Live nodes, controller and partition map, as etcd holds them");
  auto etcd = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  status->add_option("--etcd", *etcd, "etcd client URL, e.g. http://127.0.0.1:2379")->required();
  status->add_flag("--json", *json, "Machine-readable output on stdout");
  status->callback([etcd, json] { throw CLI::RuntimeError(RunClusterStatus(*etcd, *json)); });
}

}  // namespace verdict
