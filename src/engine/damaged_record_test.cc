// A decision whose stored record cannot be read back, asked for over every HTTP route that reads
// it: the answer is the server's fault (500, code data_loss), names no store internals, and
// never blames the caller with a 4xx.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "api/router.h"
#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "engine/http_routes.h"
#include "journal/journal_backend.h"
#include "journal/rocks_backend.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using journal::testing_util::TempDir;

// Every request is tenant "default" (the offline Caller's) with the roles these routes need.
class DefaultTenantAuthenticator final : public Authenticator {
 public:
  Result<AuthContext> Authenticate(std::string_view) const override {
    AuthContext context;
    context.authenticated = true;
    context.tenant = Caller{}.tenant;
    context.principal = "test";
    context.roles = static_cast<uint32_t>(Role::kScorer) | static_cast<uint32_t>(Role::kAnalyst);
    return context;
  }
};

HttpResponse Call(const Router& router, std::string method, std::string path,
                  std::string body = {}) {
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  if (!request.body.empty()) request.content_type = "application/json";
  request.headers.emplace_back("authorization", "Bearer test");
  std::promise<HttpResponse> answered;
  router.Dispatch(std::move(request), [&answered](HttpResponse r) { answered.set_value(r); });
  return answered.get_future().get();
}

// The journal's RocksDB backend, with the stored entry of one record (`damaged`, once set)
// read back as bytes that are no journal entry, or failing as a failing disk would, with the
// store's own words. Everything else passes through. Thread-safe as the backend it wraps.
class DamagingBackend final : public journal::JournalBackend {
 public:
  struct Damage {
    std::atomic<uint64_t> seq{0};       // 0: none
    std::atomic<bool> io_error{false};  // fail the read rather than return garbage
  };
  DamagingBackend(std::unique_ptr<journal::JournalBackend> inner, Damage& damage)
      : inner_(std::move(inner)), damage_(damage) {}

  static constexpr std::string_view kStoreText =
      "IO error: While pread offset 4096 len 512: /var/lib/verdict/journal/000123.sst: "
      "Input/output error";

  std::unique_ptr<journal::BackendGroup> NewGroup() override { return inner_->NewGroup(); }
  Status CommitGroup(journal::BackendGroup& g, uint64_t first, uint64_t last) override {
    return inner_->CommitGroup(g, first, last);
  }
  Result<std::optional<journal::JournalHead>> ReadHead() const override {
    return inner_->ReadHead();
  }
  Status LoadDataKeys(journal::PayloadCipher& cipher, uint32_t* max_id) const override {
    return inner_->LoadDataKeys(cipher, max_id);
  }
  Status PutDataKey(uint32_t id, std::string_view wrapped) override {
    return inner_->PutDataKey(id, wrapped);
  }
  Result<std::optional<std::string>> ReadEntry(uint64_t seq) const override {
    if (seq != damage_.seq.load()) return inner_->ReadEntry(seq);
    if (damage_.io_error.load()) return Unavailable(std::string(kStoreText));
    return std::optional<std::string>("not a journal entry");
  }
  Status ScanEntries(
      uint64_t first_seq,
      const std::function<Result<bool>(uint64_t, std::string_view)>& fn) const override {
    return inner_->ScanEntries(first_seq, fn);
  }
  Result<std::optional<uint64_t>> FindByDecisionId(const Uuid& id) const override {
    return inner_->FindByDecisionId(id);
  }
  Result<std::optional<uint64_t>> FindByTransaction(std::string_view txn_key) const override {
    return inner_->FindByTransaction(txn_key);
  }
  Status ScanIndex(std::string_view tenant, std::string_view account, uint64_t before_seq,
                   const std::function<Result<bool>(uint64_t)>& fn) const override {
    return inner_->ScanIndex(tenant, account, before_seq, fn);
  }
  Result<std::vector<std::string>> AdminTenants() const override { return inner_->AdminTenants(); }
  Result<std::optional<journal::Checkpoint>> LatestCheckpoint() const override {
    return inner_->LatestCheckpoint();
  }
  Result<std::optional<std::string>> GetState(std::string_view key) const override {
    return inner_->GetState(key);
  }
  Status ForEachState(
      const std::function<Status(std::string_view, std::string_view)>& fn) const override {
    return inner_->ForEachState(fn);
  }
  Status PutRegistry(std::string_view key, std::string_view value, bool sync) override {
    return inner_->PutRegistry(key, value, sync);
  }
  Status DeleteRegistry(std::string_view key) override { return inner_->DeleteRegistry(key); }
  Result<std::optional<std::string>> GetRegistry(std::string_view key) const override {
    return inner_->GetRegistry(key);
  }
  Result<std::vector<std::pair<std::string, std::string>>> ListRegistry(
      std::string_view prefix) const override {
    return inner_->ListRegistry(prefix);
  }

 private:
  std::unique_ptr<journal::JournalBackend> inner_;
  Damage& damage_;
};

TEST(DamagedRecordTest, EveryReadRouteAnswersDataLossWithoutTheStoresWords) {
  TempDir dir;
  EngineOptions options;
  options.data_dir = dir.path();
  options.sched.workers = 1;
  MetricsRegistry metrics;
  DamagingBackend::Damage damage;
  auto engine = Engine::Create(options, metrics, SystemClock::Instance(),
                               [&damage](const journal::JournalOptions& o)
                                   -> Result<std::unique_ptr<journal::JournalBackend>> {
                                 auto inner = journal::RocksJournalBackend::Open(o);
                                 if (!inner.ok()) return inner.status();
                                 return std::unique_ptr<journal::JournalBackend>(
                                     new DamagingBackend(std::move(inner).value(), damage));
                               });
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  DefaultTenantAuthenticator authenticator;
  Router router;
  router.SetAuthenticator(&authenticator);
  RegisterEngineRoutes(**engine, metrics, router);

  const std::string txn =
      R"({"transaction_id":"t1","timestamp":"2026-12-02T10:00:00Z","amount":"90.00",)"
      R"("currency":"USD","sender":{"account":"S1"},"receiver":{"account":"R1"}})";
  HttpResponse decided = Call(router, "POST", "/v1/decisions", txn);
  ASSERT_EQ(decided.status, 200) << decided.body;
  const size_t at = decided.body.find(R"("decision_id":")");
  ASSERT_NE(at, std::string::npos);
  const std::string decision_id = decided.body.substr(at + 15, 36);
  Result<std::optional<Decision>> found =
      (*engine)->FindDecision(Caller{}.tenant, *Uuid::Parse(decision_id));
  ASSERT_TRUE(found.ok() && found->has_value());
  const uint64_t seq = (*engine)->journal().durable_sequence();
  damage.seq.store(seq);
  const std::string expected =
      "journal record " + std::to_string(seq) + " cannot be read back from the journal";

  struct Read {
    const char* method;
    std::string path;
    std::string body;
  };
  for (bool io_error : {false, true}) {
    damage.io_error.store(io_error);
    for (const Read& read : {Read{"GET", "/v1/decisions/" + decision_id, ""},
                             Read{"GET", "/v1/transactions/t1/decision", ""},
                             Read{"GET", "/v1/accounts/S1/decisions", ""},
                             Read{"GET", "/v1/accounts/R1/decisions", ""},
                             // Again: its idempotency check reads the stored record.
                             Read{"POST", "/v1/decisions", txn}}) {
      HttpResponse response = Call(router, read.method, read.path, read.body);
      EXPECT_EQ(response.status, 500) << read.method << " " << read.path << ": " << response.body;
      EXPECT_NE(response.body.find(R"("code":"data_loss")"), std::string::npos) << response.body;
      EXPECT_NE(response.body.find(expected), std::string::npos) << response.body;
      EXPECT_EQ(response.body.find("IO error"), std::string::npos) << response.body;
      EXPECT_EQ(response.body.find("malformed"), std::string::npos) << response.body;
    }
  }
}

}  // namespace
}  // namespace verdict
