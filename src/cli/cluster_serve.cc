#include "cli/cluster_serve.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "api/error_response.h"
#include "api/http_server.h"
#include "cluster/cluster_keys.h"
#include "cluster/cluster_node.h"
#include "cluster/etcd_client.h"
#include "cluster/partition_map.h"
#include "cluster/pg_journal_backend.h"
#include "cluster/request_forwarder.h"
#include "cluster/warm_state.h"
#include "common/json_writer.h"
#include "common/mutex.h"

namespace verdict {
namespace {

// The journal is one chain, owned with the whole partition map (Placement::kSingleOwner):
// the owner of partition 0 is the owner of the journal.
constexpr uint32_t kJournalPartition = 0;
constexpr uint32_t kJournalChain = cluster::kClusterJournalChain;
// The longest a request waits on a forwarded answer, and a refused client before retrying.
constexpr std::chrono::milliseconds kForwardTimeout{5000};
constexpr char kRetryAfterSeconds[] = "1";

HttpResponse UnavailableResponse(const std::string& why) {
  HttpResponse response = ErrorResponse(Status(StatusCode::kUnavailable, why));
  response.headers.emplace_back("Retry-After", kRetryAfterSeconds);
  return response;
}

// The node's figures on /metrics (docs/cluster.md).
struct NodeMetrics {
  explicit NodeMetrics(MetricsRegistry& m)
      : owner(m.GetGauge("verdict_cluster_owner",
                         "1 while this node owns the journal and decides, else 0 (it forwards).")),
        owned_partitions(
            m.GetGauge("verdict_cluster_owned_partitions", "Partitions the map gives this node.")),
        epoch(m.GetGauge("verdict_cluster_epoch",
                         "The journal fence epoch this node claimed last (0: never).")),
        takeovers(m.GetCounter("verdict_cluster_takeovers_total",
                               "Times this node claimed the journal and started deciding.")),
        takeover_seconds(
            m.GetGauge("verdict_cluster_takeover_seconds",
                       "Time the last takeover took, from the map naming this node to serving.")),
        stand_downs(m.GetCounter("verdict_cluster_stand_downs_total",
                                 "Times this node stopped deciding (lease, fence or journal).")),
        membership_errors(m.GetCounter("verdict_cluster_membership_errors_total",
                                       "Membership rounds that failed (etcd unreachable).")),
        standby_states(m.GetGauge("verdict_cluster_standby_states",
                                  "Account states a standby holds ready for a takeover.")) {}
  Gauge* owner;
  Gauge* owned_partitions;
  Gauge* epoch;
  Counter* takeovers;
  Gauge* takeover_seconds;
  Counter* stand_downs;
  Counter* membership_errors;
  Gauge* standby_states;
};

class NodeRuntime {
 public:
  NodeRuntime(const EngineStackFlags& flags, const EngineOptions& options, MetricsRegistry& metrics)
      : flags_(flags), options_(options), metrics_(metrics), node_metrics_(metrics) {
    // An I/O thread's idle step would refer to a journal the node may destroy while the
    // listener lives on: the writer commits instead.
    options_.journal.commit_on_io_thread = false;
    if (options_.cluster.warm_standby) warm_ = std::make_shared<cluster::WarmState>();
  }
  ~NodeRuntime() { Stop(); }

  // Listens, joins the cluster and starts the membership and role threads.
  Status Start(const std::function<void(uint16_t)>& on_listening);
  // Stops deciding, leaves the cluster (its lease revoked) and stops listening.
  void Stop() EXCLUDES(mu_);

 private:
  void AddFrontRoutes();
  // Every request but the node's own routes: to the local engine, or to the owner.
  void Dispatch(HttpRequest&& request, Responder respond);
  void AnswerReady(Responder respond);
  std::shared_ptr<EngineStack> ActiveStack() const EXCLUDES(mu_);

  // Renews the lease and reads the map every third of the lease.
  void MembershipLoop() EXCLUDES(mu_);
  // Starts and stops the engine as the map and the journal's health say.
  void RoleLoop() EXCLUDES(mu_);
  // One pass of RoleLoop.
  void ApplyRole() EXCLUDES(mu_);
  Status BecomeOwner(uint64_t epoch) EXCLUDES(mu_);
  // A standby's round: its copy of the account states catches up with PostgreSQL.
  void KeepWarm();
  void StandDown(const std::string& why) EXCLUDES(mu_);

  const EngineStackFlags flags_;
  EngineOptions options_;
  MetricsRegistry& metrics_;
  NodeMetrics node_metrics_;
  std::unique_ptr<cluster::RequestForwarder> forwarder_;
  Router front_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<cluster::EtcdClient> etcd_;
  std::unique_ptr<cluster::ClusterNode> node_;
  // node_ once it has joined: the listener answers before then (the request threads read this).
  std::atomic<cluster::ClusterNode*> joined_{nullptr};
  // The standby's copy of the account states (null when [cluster] warm_standby is off) and the
  // reader it catches up through; the role thread alone uses them.
  std::shared_ptr<cluster::WarmState> warm_;
  std::unique_ptr<cluster::PgJournalBackend> warm_reader_;
  std::thread membership_thread_;
  std::thread role_thread_;

  mutable Mutex mu_;
  CondVar changed_;  // a membership round finished, or stop
  bool stop_ GUARDED_BY(mu_) = false;
  uint64_t rounds_ GUARDED_BY(mu_) = 0;
  // The engine while this node owns the journal; requests hold a reference while they are
  // dispatched, so StandDown waits for them before destroying it.
  std::shared_ptr<EngineStack> stack_ GUARDED_BY(mu_);
  uint64_t stack_epoch_ GUARDED_BY(mu_) = 0;
  // When the map first named this node owner of the current epoch (takeover time).
  int64_t owner_since_ns_ GUARDED_BY(mu_) = 0;
  uint64_t owner_since_epoch_ GUARDED_BY(mu_) = 0;
  std::string last_failure_ GUARDED_BY(mu_);
};

Status NodeRuntime::Start(const std::function<void(uint16_t)>& on_listening) {
  if (!cluster::ValidNodeId(options_.cluster.node_id)) {
    return InvalidArgument("cluster.node_id must be 1-64 printable characters without spaces",
                           "cluster.node_id");
  }
  cluster::RequestForwarderOptions forward_options;
  forward_options.node_id = options_.cluster.node_id;
  forward_options.timeout = kForwardTimeout;
  VERDICT_ASSIGN_OR_RETURN(forwarder_,
                           cluster::RequestForwarder::Create(forward_options, metrics_));
  AddFrontRoutes();
  VERDICT_ASSIGN_OR_RETURN(server_, HttpServer::Create(options_.server, front_, metrics_));
  server_->Start();
  const uint16_t port = server_->port();
  spdlog::info("cluster node {} listening on {}:{}", options_.cluster.node_id,
               options_.server.address, port);
  on_listening(port);

  std::string url = options_.cluster.advertise_url;
  if (url.empty()) url = "http://" + options_.server.address + ":" + std::to_string(port);
  VERDICT_ASSIGN_OR_RETURN(
      etcd_, cluster::EtcdClient::Create(options_.cluster.etcd, std::chrono::milliseconds(2000)));
  cluster::ClusterNodeOptions node_options{
      options_.cluster.node_id, url, options_.cluster.lease_seconds, options_.cluster.partitions,
      cluster::Placement::kSingleOwner};
  // A node restarted after it died holds its id in etcd until its old lease expires: wait
  // that out. A second live process with the id is refused for good once it has.
  const auto give_up = std::chrono::steady_clock::now() +
                       std::chrono::seconds(options_.cluster.lease_seconds * 2 + 5);
  for (;;) {
    auto joined = cluster::ClusterNode::Join(*etcd_, SystemClock::Instance(), node_options);
    if (joined.ok()) {
      node_ = std::move(joined).value();
      joined_.store(node_.get(), std::memory_order_release);
      break;
    }
    if (joined.status().code() != StatusCode::kAlreadyExists ||
        std::chrono::steady_clock::now() >= give_up) {
      return joined.status();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  spdlog::info("cluster node {} joined (etcd {}, {} partitions, lease {} s) as {}",
               options_.cluster.node_id, options_.cluster.etcd, options_.cluster.partitions,
               options_.cluster.lease_seconds, url);
  membership_thread_ = std::thread([this] { MembershipLoop(); });
  role_thread_ = std::thread([this] { RoleLoop(); });
  return Status::Ok();
}

void NodeRuntime::Stop() {
  {
    MutexLock lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  changed_.SignalAll();
  if (membership_thread_.joinable()) membership_thread_.join();
  if (role_thread_.joinable()) role_thread_.join();
  StandDown("stopping");
  if (node_) {
    Status left = node_->Leave();
    if (!left.ok()) spdlog::warn("cluster: leaving: {}", left.ToString());
  }
  // Forwarded requests hold the listener's connections: answered before it stops.
  if (forwarder_) forwarder_->Stop();
  if (server_) server_->Stop();
}

void NodeRuntime::AddFrontRoutes() {
  front_.Add("GET", "/healthz", [](HttpRequest&&, Responder respond) {
    HttpResponse response;
    response.body = R"({"status":"ok"})";
    respond(std::move(response));
  });
  front_.Add("GET", "/readyz",
             [this](HttpRequest&&, Responder respond) { AnswerReady(std::move(respond)); });
  front_.SetFallback(
      [this](HttpRequest&& request, Responder respond) { Dispatch(std::move(request), respond); });
}

std::shared_ptr<EngineStack> NodeRuntime::ActiveStack() const {
  MutexLock lock(mu_);
  return stack_;
}

void NodeRuntime::Dispatch(HttpRequest&& request, Responder respond) {
  cluster::ClusterNode* node = joined_.load(std::memory_order_acquire);
  if (node == nullptr) {
    respond(UnavailableResponse("this node is joining the cluster"));
    return;
  }
  if (std::shared_ptr<EngineStack> stack = ActiveStack()) {
    // The map may have moved, or the lease lapsed, since the engine started: answer nothing
    // the journal's fence would refuse anyway.
    if (!node->MayServe(kJournalPartition)) {
      respond(UnavailableResponse("this node no longer owns the journal (lease lost or moved)"));
      return;
    }
    stack->router.Dispatch(std::move(request), std::move(respond));
    return;
  }
  if (request.path == "/metrics") {
    // A standby's own figures, without any tenant's series (it has no keys to check).
    HttpResponse response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = metrics_.RenderPrometheus(std::string());
    respond(std::move(response));
    return;
  }
  std::optional<std::string> owner = node->OwnerUrl(kJournalPartition);
  if (!owner) {
    respond(UnavailableResponse("no live node owns the journal yet"));
    return;
  }
  forwarder_->Forward(*owner, std::move(request), std::move(respond));
}

void NodeRuntime::AnswerReady(Responder respond) {
  HttpResponse response;
  JsonWriter w(response.body);
  std::string reason;
  bool ready = false;
  std::string role = "follower";
  cluster::ClusterNode* node = joined_.load(std::memory_order_acquire);
  // An engine runs only once the node has joined.
  if (std::shared_ptr<EngineStack> stack = node ? ActiveStack() : nullptr) {
    role = "owner";
    ready = stack->engine->Ready(&reason);
    if (ready && !node->MayServe(kJournalPartition)) {
      ready = false;
      reason = "lease lost or journal moved: stopping";
    }
  } else if (node == nullptr) {
    reason = "joining the cluster";
  } else if (!node->lease_held()) {
    reason = "cluster lease not held (etcd unreachable?)";
  } else if (node->OwnerUrl(kJournalPartition)) {
    ready = true;  // it answers by forwarding
  } else {
    MutexLock lock(mu_);
    reason = last_failure_.empty() ? "no live node owns the journal yet" : last_failure_;
  }
  if (!ready) response.status = 503;
  w.BeginObject().Key("ready").Bool(ready).Key("role").String(role);
  w.Key("node").String(options_.cluster.node_id);
  {
    MutexLock lock(mu_);
    w.Key("epoch").Uint(stack_epoch_);
  }
  if (!reason.empty()) w.Key("reason").String(reason);
  w.EndObject();
  respond(std::move(response));
}

void NodeRuntime::MembershipLoop() {
  const auto interval = std::chrono::milliseconds(node_->tick_interval_ms());
  bool failing = false;
  for (;;) {
    Status round = node_->Tick();
    if (!round.ok()) {
      node_metrics_.membership_errors->Increment();
      if (!failing) spdlog::warn("cluster: membership round failed: {}", round.ToString());
    } else if (failing) {
      spdlog::info("cluster: membership rounds succeed again");
    }
    failing = !round.ok();
    node_metrics_.owned_partitions->Set(static_cast<double>(node_->Owned().size()));
    MutexLock lock(mu_);
    ++rounds_;
    changed_.SignalAll();
    const auto next = std::chrono::steady_clock::now() + interval;
    while (!stop_ && changed_.WaitUntil(mu_, next)) {
    }
    if (stop_) return;
  }
}

void NodeRuntime::RoleLoop() {
  uint64_t seen = 0;
  for (;;) {
    {
      MutexLock lock(mu_);
      while (!stop_ && rounds_ == seen) changed_.Wait(mu_);
      if (stop_) return;
      seen = rounds_;
    }
    ApplyRole();
  }
}

void NodeRuntime::ApplyRole() {
  const std::vector<cluster::OwnedPartition> owned = node_->Owned();
  const bool owner = owned.size() == options_.cluster.partitions;
  uint64_t epoch = 0;
  for (const cluster::OwnedPartition& p : owned) epoch = std::max(epoch, p.epoch);
  // What the engine is, read under the lock; no reference is kept, as StandDown waits for
  // every reference to go.
  bool running = false;
  uint64_t stack_epoch = 0;
  Status journal_health;
  {
    MutexLock lock(mu_);
    running = stack_ != nullptr;
    stack_epoch = stack_epoch_;
    if (running) journal_health = stack_->engine->journal().health();
    if (owner && owner_since_epoch_ != epoch) {
      owner_since_epoch_ = epoch;
      owner_since_ns_ = SystemClock::Instance().MonotonicNanos();
    }
  }
  if (running && !owner) {
    StandDown(node_->lease_held() ? "the partition map moved the journal to another node"
                                  : "the cluster lease is lost");
    return;
  }
  if (running && stack_epoch != epoch) {
    StandDown("the journal's epoch moved to " + std::to_string(epoch));
    running = false;
  }
  if (running && !journal_health.ok()) {
    // Fenced, or a commit whose outcome is unknown (a PostgreSQL fail-over): the journal has
    // failed closed. Start again from what PostgreSQL holds.
    StandDown("journal: " + journal_health.message());
    running = false;
  }
  if (!running && !owner) KeepWarm();
  if (!running && owner) {
    Status became = BecomeOwner(epoch);
    if (!became.ok()) {
      spdlog::warn("cluster: cannot take the journal at epoch {}: {}", epoch, became.ToString());
      MutexLock lock(mu_);
      last_failure_ = "taking the journal failed: " + became.message();
    }
  }
}

void NodeRuntime::KeepWarm() {
  if (!warm_) return;
  Status caught_up = Status::Ok();
  if (!warm_reader_) {
    auto reader = cluster::PgJournalBackend::OpenReadOnly(options_.cluster.postgres, kJournalChain);
    if (reader.ok()) warm_reader_ = std::move(reader).value();
    caught_up = reader.status();
  }
  // Until the first owner made the schema there is nothing to read: not worth a warning.
  if (warm_reader_) caught_up = warm_->CatchUp(*warm_reader_);
  if (!caught_up.ok()) spdlog::debug("cluster: standby copy: {}", caught_up.ToString());
  node_metrics_.standby_states->Set(static_cast<double>(warm_->size()));
}

Status NodeRuntime::BecomeOwner(uint64_t epoch) {
  spdlog::info("cluster: node {} takes the journal at epoch {}", options_.cluster.node_id, epoch);
  const std::string url = options_.cluster.postgres;
  const std::string node_id = options_.cluster.node_id;
  journal::BackendOpener open =
      [url, node_id,
       epoch](const journal::JournalOptions&) -> Result<std::unique_ptr<journal::JournalBackend>> {
    VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<cluster::PgJournalBackend> backend,
                             cluster::PgJournalBackend::Open(url, kJournalChain, node_id, epoch));
    return std::unique_ptr<journal::JournalBackend>(std::move(backend));
  };
  VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<EngineStack> built,
                           BuildEngineStack(flags_, options_, metrics_, std::move(open)));
  MutexLock lock(mu_);
  stack_ = std::move(built);
  stack_epoch_ = epoch;
  last_failure_.clear();
  const double seconds =
      static_cast<double>(SystemClock::Instance().MonotonicNanos() - owner_since_ns_) / 1e9;
  node_metrics_.owner->Set(1);
  node_metrics_.epoch->Set(static_cast<double>(epoch));
  node_metrics_.takeovers->Increment();
  node_metrics_.takeover_seconds->Set(seconds);
  spdlog::info("cluster: node {} decides (epoch {}, {:.3f} s after the map named it)",
               options_.cluster.node_id, epoch, seconds);
  return Status::Ok();
}

void NodeRuntime::StandDown(const std::string& why) {
  std::shared_ptr<EngineStack> stack;
  {
    MutexLock lock(mu_);
    stack = std::move(stack_);
    stack_ = nullptr;
  }
  if (!stack) return;
  spdlog::warn("cluster: node {} stops deciding: {}", options_.cluster.node_id, why);
  node_metrics_.owner->Set(0);
  node_metrics_.stand_downs->Increment();
  // Requests already dispatched hold the stack; the engine drains what they queued when it
  // is destroyed, here, after the last of them.
  while (stack.use_count() > 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stack.reset();
}

}  // namespace

int ServeClusterNode(const EngineStackFlags& flags, const EngineOptions& options,
                     MetricsRegistry& metrics, const sigset_t& stop_signals,
                     const std::function<void(uint16_t port)>& on_listening) {
  NodeRuntime runtime(flags, options, metrics);
  Status started = runtime.Start(on_listening);
  if (!started.ok()) {
    spdlog::error("cluster: {}", started.ToString());
    return 2;
  }
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  spdlog::info("received signal {}; stopping", signal_number);
  runtime.Stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace verdict
