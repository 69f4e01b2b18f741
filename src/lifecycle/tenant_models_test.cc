#include "lifecycle/tenant_models.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "lifecycle/lifecycle_test_util.h"
#include "lifecycle/prefixed_registry_store.h"

namespace verdict::lifecycle {
namespace {

namespace fs = std::filesystem;

class TenantModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("verdict-tenant-models-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    options_.registry.models_dir = (dir_ / "models").string();
    options_.registry.schema = testing::kSchema;
    options_.tick_interval_ms = 0;
    auto created = ModelLifecycle::Create(options_, store_, nullptr, clock_, nullptr);
    ASSERT_TRUE(created.ok());
    deployment_ = std::move(created).value();
    ASSERT_TRUE(deployment_->Start(std::nullopt).ok());
    ASSERT_TRUE(
        deployment_->Register({"aml", "1", testing::ModelA(), "", "", "", ""}, operator_).ok());
    ASSERT_TRUE(
        deployment_->Register({"aml", "2", testing::ModelB(), "", "", "", ""}, operator_).ok());
    ASSERT_TRUE(deployment_->Activate("aml", "1", ActivateMode::kPrimary, {}, operator_).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // As the engine makes them: namespaced store and files, the deployment's registry read
  // through, its primary inherited.
  std::unique_ptr<TenantModels> Make() {
    return std::make_unique<TenantModels>(
        *deployment_, [this](const std::string& tenant) -> Result<TenantModels::Made> {
          TenantModels::Made made;
          made.store =
              std::make_unique<PrefixedRegistryStore>(store_, "tenant-models/" + tenant + "/");
          LifecycleOptions lo = options_;
          lo.registry.models_dir = (dir_ / "tenant-models" / tenant).string();
          lo.registry.fallback = &deployment_->registry();
          lo.tenant = tenant;
          lo.inherited_primary = [this] { return deployment_->current()->primary; };
          VERDICT_ASSIGN_OR_RETURN(
              made.lifecycle, ModelLifecycle::Create(lo, *made.store, nullptr, clock_, nullptr));
          return made;
        });
  }

  // Alpha registers a model of its own and makes it its primary.
  void ActivateAlphasOwnModel(TenantModels& models) {
    auto alpha = models.OwnOrCreate("alpha");
    ASSERT_TRUE(alpha.ok());
    ASSERT_TRUE(
        (*alpha)
            ->Register({"alpha-model", "1", testing::ModelB(), "", "", "", ""}, alpha_admin_)
            .ok());
    ASSERT_TRUE(
        (*alpha)->Activate("alpha-model", "1", ActivateMode::kPrimary, {}, alpha_admin_).ok());
  }

  static std::string Decider(const TenantModels& models, std::string_view tenant) {
    const auto resolved = models.Current(tenant);
    const auto& primary = resolved.set->primary;
    return primary ? primary->ref().name + "/" + primary->ref().version : "none";
  }

  fs::path dir_;
  LifecycleOptions options_;
  MemoryRegistryStore store_;
  ManualClock clock_{1'700'000'000'000'000};
  std::unique_ptr<ModelLifecycle> deployment_;
  Actor operator_{"default", "config"};
  Actor alpha_admin_{"alpha", "key-alpha"};
  Actor beta_admin_{"beta", "key-beta"};
};

TEST_F(TenantModelsTest, TenantsUseTheDeploymentsModelsUntilTheyActivateTheirOwn) {
  auto models = Make();
  EXPECT_EQ(Decider(*models, "alpha"), "aml/1");
  EXPECT_FALSE(models->Current("alpha").own);
  EXPECT_EQ(models->Own("alpha"), nullptr);

  auto alpha = models->OwnOrCreate("alpha");
  ASSERT_TRUE(alpha.ok()) << alpha.status().message();
  // Registering alone changes nothing: alpha still decides with the deployment's primary.
  ASSERT_TRUE((*alpha)
                  ->Register({"alpha-model", "1", testing::ModelB(), "", "", "", ""}, alpha_admin_)
                  .ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/1");
  EXPECT_FALSE(models->Current("alpha").own);

  ASSERT_TRUE(
      (*alpha)->Activate("alpha-model", "1", ActivateMode::kPrimary, {}, alpha_admin_).ok());
  EXPECT_EQ(Decider(*models, "alpha"), "alpha-model/1");
  EXPECT_TRUE(models->Current("alpha").own);
  EXPECT_EQ(models->Current("alpha").owner, *alpha);
  // Beta and the deployment are untouched.
  EXPECT_EQ(Decider(*models, "beta"), "aml/1");
  EXPECT_EQ(models->Current("beta").owner, deployment_.get());
  EXPECT_EQ(deployment_->current()->primary->ref().version, "1");
}

TEST_F(TenantModelsTest, AnotherTenantsModelIsNotFound) {
  auto models = Make();
  auto alpha = models->OwnOrCreate("alpha");
  ASSERT_TRUE(alpha.ok());
  ASSERT_TRUE((*alpha)
                  ->Register({"alpha-model", "1", testing::ModelB(), "", "", "", ""}, alpha_admin_)
                  .ok());
  auto beta = models->OwnOrCreate("beta");
  ASSERT_TRUE(beta.ok());
  Status activated = (*beta)->Activate("alpha-model", "1", ActivateMode::kPrimary, {}, beta_admin_);
  EXPECT_EQ(activated.code(), StatusCode::kNotFound) << activated.message();
  auto listed = (*beta)->registry().List();
  ASSERT_TRUE(listed.ok());
  for (const ModelEntry& e : *listed) EXPECT_NE(e.name, "alpha-model");
  EXPECT_EQ(Decider(*models, "beta"), "aml/1");
  // Nor can a tenant overwrite a deployment model's name and version with another model.
  auto clash = (*beta)->Register({"aml", "1", testing::ModelB(), "", "", "", ""}, beta_admin_);
  EXPECT_EQ(clash.status().code(), StatusCode::kAlreadyExists);
}

TEST_F(TenantModelsTest, CandidatesCompareWithTheInheritedPrimaryAndRollbackRestoresIt) {
  auto models = Make();
  auto alpha = models->OwnOrCreate("alpha");
  ASSERT_TRUE(alpha.ok());
  // The deployment's aml/2 is readable by the tenant, so it can shadow its inherited aml/1.
  ASSERT_TRUE((*alpha)->Activate("aml", "2", ActivateMode::kShadow, {}, alpha_admin_).ok());
  auto set = models->Current("alpha").set;
  ASSERT_NE(set->candidate, nullptr);
  EXPECT_EQ(set->primary->ref().version, "1");
  EXPECT_EQ(set->candidate->ref().version, "2");
  // The deployment has no candidate: alpha's shadow is alpha's alone.
  EXPECT_EQ(deployment_->current()->candidate, nullptr);
  EXPECT_EQ(models->Current("beta").set->candidate, nullptr);

  ASSERT_TRUE((*alpha)->Activate("aml", "2", ActivateMode::kPrimary, {}, alpha_admin_).ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/2");
  ASSERT_TRUE((*alpha)->Rollback(alpha_admin_, "test").ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/1");
  EXPECT_EQ(Decider(*models, "beta"), "aml/1");
}

// A candidate started while the tenant follows the deployment's primary does not pin that
// primary: once the candidate is gone, the tenant follows the deployment again.
TEST_F(TenantModelsTest, RemovingACandidateReturnsTheTenantToTheDeploymentsPrimary) {
  auto models = Make();
  auto alpha = models->OwnOrCreate("alpha");
  ASSERT_TRUE(alpha.ok());
  ASSERT_TRUE((*alpha)->Activate("aml", "2", ActivateMode::kShadow, {}, alpha_admin_).ok());
  EXPECT_TRUE(models->Current("alpha").set->primary_inherited);
  ASSERT_TRUE((*alpha)->Rollback(alpha_admin_, "test").ok());
  EXPECT_FALSE(models->Current("alpha").own);
  ASSERT_TRUE(deployment_->Activate("aml", "2", ActivateMode::kPrimary, {}, operator_).ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/2");
  EXPECT_FALSE(models->Current("alpha").own);
  // And nothing of alpha's was put in its history to roll back to.
  EXPECT_EQ((*alpha)->Rollback(alpha_admin_, "").code(), StatusCode::kFailedPrecondition);
}

// A tenant's first primary of its own replaces the deployment's; rolling it back follows the
// deployment's again, not the model the deployment had at the time.
TEST_F(TenantModelsTest, RollingBackATenantsFirstPrimaryFollowsTheDeploymentAgain) {
  auto models = Make();
  ActivateAlphasOwnModel(*models);
  ASSERT_TRUE(deployment_->Activate("aml", "2", ActivateMode::kPrimary, {}, operator_).ok());
  EXPECT_EQ(Decider(*models, "alpha"), "alpha-model/1");
  ASSERT_TRUE(models->Own("alpha")->Rollback(alpha_admin_, "test").ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/2");
  EXPECT_FALSE(models->Current("alpha").own);
}

// After a restart, a tenant's candidate is compared with the deployment's primary as it is
// then, and the history entry that means "the deployment's" survives.
TEST_F(TenantModelsTest, AnInheritedPrimaryIsResolvedAgainAtRestart) {
  ASSERT_TRUE(
      deployment_->Register({"aml", "3", testing::ModelA(), "", "", "", ""}, operator_).ok());
  {
    auto models = Make();
    auto alpha = models->OwnOrCreate("alpha");
    ASSERT_TRUE(alpha.ok());
    ASSERT_TRUE((*alpha)->Activate("aml", "2", ActivateMode::kShadow, {}, alpha_admin_).ok());
  }
  ASSERT_TRUE(deployment_->Activate("aml", "3", ActivateMode::kPrimary, {}, operator_).ok());
  {
    auto models = Make();
    ASSERT_TRUE(models->OwnOrCreate("alpha").ok());
    auto set = models->Current("alpha").set;
    ASSERT_NE(set->candidate, nullptr);
    EXPECT_EQ(set->candidate->ref().version, "2");
    EXPECT_EQ(Decider(*models, "alpha"), "aml/3");
    EXPECT_TRUE(set->primary_inherited);
    // Promoting the shadow keeps "the deployment's" in the history.
    ASSERT_TRUE(
        models->Own("alpha")->Activate("aml", "2", ActivateMode::kPrimary, {}, alpha_admin_).ok());
    EXPECT_EQ(Decider(*models, "alpha"), "aml/2");
  }
  ASSERT_TRUE(deployment_->Activate("aml", "1", ActivateMode::kPrimary, {}, operator_).ok());
  auto models = Make();
  ASSERT_TRUE(models->OwnOrCreate("alpha").ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/2");
  ASSERT_TRUE(models->Own("alpha")->Rollback(alpha_admin_, "test").ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/1");
  EXPECT_FALSE(models->Current("alpha").own);
}

// A tenant's shadow that the deployment has made its primary by the next start is dropped:
// it would be compared with itself.
TEST_F(TenantModelsTest, AShadowThatBecameTheDeploymentsPrimaryIsDroppedAtRestart) {
  {
    auto models = Make();
    auto alpha = models->OwnOrCreate("alpha");
    ASSERT_TRUE(alpha.ok());
    ASSERT_TRUE((*alpha)->Activate("aml", "2", ActivateMode::kShadow, {}, alpha_admin_).ok());
  }
  ASSERT_TRUE(deployment_->Activate("aml", "2", ActivateMode::kPrimary, {}, operator_).ok());
  auto models = Make();
  ASSERT_TRUE(models->OwnOrCreate("alpha").ok());
  EXPECT_EQ(models->Current("alpha").set->candidate, nullptr);
  EXPECT_FALSE(models->Current("alpha").own);
  EXPECT_EQ(Decider(*models, "alpha"), "aml/2");
}

TEST_F(TenantModelsTest, ActivatingTheInheritedPrimaryMakesItTheTenantsOwn) {
  auto models = Make();
  auto alpha = models->OwnOrCreate("alpha");
  ASSERT_TRUE(alpha.ok());
  ASSERT_TRUE((*alpha)->Activate("aml", "1", ActivateMode::kPrimary, {}, alpha_admin_).ok());
  EXPECT_TRUE(models->Current("alpha").own);
  EXPECT_EQ(Decider(*models, "alpha"), "aml/1");
  // The deployment moving on no longer moves alpha.
  ASSERT_TRUE(deployment_->Activate("aml", "2", ActivateMode::kPrimary, {}, operator_).ok());
  EXPECT_EQ(Decider(*models, "alpha"), "aml/1");
  EXPECT_EQ(Decider(*models, "beta"), "aml/2");
  // Activating it again changes nothing, and there is nothing of alpha's to roll back to.
  ASSERT_TRUE((*alpha)->Activate("aml", "1", ActivateMode::kPrimary, {}, alpha_admin_).ok());
  EXPECT_EQ((*alpha)->Rollback(alpha_admin_, "").code(), StatusCode::kFailedPrecondition);
}

TEST_F(TenantModelsTest, ATenantsModelsAreNamespacedAndRestored) {
  {
    auto models = Make();
    ActivateAlphasOwnModel(*models);
  }
  // The deployment's keys are where they always were; the tenant's under its prefix.
  auto active = store_.Get("tenant-models/alpha/lifecycle/active");
  ASSERT_TRUE(active.ok());
  EXPECT_TRUE(active->has_value());
  auto entry = store_.Get("tenant-models/alpha/models/alpha-model/1");
  ASSERT_TRUE(entry.ok());
  EXPECT_TRUE(entry->has_value());
  auto leaked = store_.Get("models/alpha-model/1");
  ASSERT_TRUE(leaked.ok());
  EXPECT_FALSE(leaked->has_value());

  auto models = Make();
  EXPECT_EQ(Decider(*models, "alpha"), "aml/1");  // not restored until the tenant is opened
  ASSERT_TRUE(models->OwnOrCreate("alpha").ok());
  EXPECT_EQ(Decider(*models, "alpha"), "alpha-model/1");
  EXPECT_EQ(models->tenants(), std::vector<std::string>{"alpha"});
}

}  // namespace
}  // namespace verdict::lifecycle
