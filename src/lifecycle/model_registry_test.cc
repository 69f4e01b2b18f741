#include "lifecycle/model_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/sha256.h"
#include "lifecycle/lifecycle_test_util.h"

namespace verdict::lifecycle {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ModelRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("verdict-registry-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    options_.models_dir = (dir_ / "models").string();
    options_.schema = testing::kSchema;
    options_.schema_version = "features-test";
    options_.check_reference = testing::CheckReference;
  }
  void TearDown() override { fs::remove_all(dir_); }

  ModelUpload Upload(std::string version, std::string text) {
    return ModelUpload{"aml", std::move(version), std::move(text), "", "", "", ""};
  }

  fs::path dir_;
  RegistryOptions options_;
  MemoryRegistryStore store_;
  ManualClock clock_{1'700'000'000'000'000};
};

TEST_F(ModelRegistryTest, RegistersStoresAndLoads) {
  ModelRegistry registry(options_, store_, clock_);
  ModelUpload upload = Upload("4", testing::ModelA());
  upload.manifest_json = R"({"name":"trained","feature_schema":"features-test",)"
                         R"("features":["amount","velocity"],"model_sha256":")" +
                         Sha256Hex(upload.model_json) + "\"}";
  upload.reference_json = testing::Reference({"amount", "velocity"});
  bool created = false;
  auto entry = registry.Register(upload, "key-1", &created);
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  EXPECT_TRUE(created);
  EXPECT_EQ(entry->sha256, Sha256Hex(testing::ModelA()));
  EXPECT_EQ(entry->registered_by, "key-1");
  EXPECT_EQ(entry->registered_at_us, clock_.NowMicros());
  EXPECT_EQ(entry->num_trees, 1u);
  EXPECT_TRUE(entry->has_reference);
  for (const char* file : {"model.json", "manifest.json", "reference.json"}) {
    EXPECT_TRUE(fs::exists(fs::path(entry->dir) / file)) << file;
  }

  // Again: the same entry, not created; the index survives a new registry over the store.
  auto again = registry.Register(upload, "key-2", &created);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(created);
  EXPECT_EQ(again->registered_by, "key-1");
  ModelRegistry reopened(options_, store_, clock_);
  auto list = reopened.List();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_THAT((*list)[0].manifest_json, HasSubstr("\"trained\""));
  auto loaded = reopened.Load("aml", "4");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ((*loaded)->ref().name, "aml");
  EXPECT_EQ((*loaded)->ref().version, "4");
  EXPECT_EQ((*loaded)->ref().sha256, entry->sha256);
}

TEST_F(ModelRegistryTest, AnotherModelUnderATakenVersionIsRefused) {
  ModelRegistry registry(options_, store_, clock_);
  ASSERT_TRUE(registry.Register(Upload("1", testing::ModelA()), "k").ok());
  auto other = registry.Register(Upload("1", testing::ModelB()), "k");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(other.status().field(), "version");
  EXPECT_TRUE(registry.Register(Upload("2", testing::ModelB()), "k").ok());
}

TEST_F(ModelRegistryTest, BadUploadsAreRefusedWithTheirFieldAndStoreNothing) {
  ModelRegistry registry(options_, store_, clock_);
  struct Case {
    ModelUpload upload;
    std::string field;
  };
  std::vector<Case> cases = {
      {Upload("1", "{\"learner\":7}"), "model"},
      {Upload("1", "not json"), "model"},
      {Upload("1", ""), "model"},
      {ModelUpload{"../etc", "1", testing::ModelA(), "", "", "", ""}, "name"},
      {ModelUpload{"aml", "1/2", testing::ModelA(), "", "", "", ""}, "version"},
      {ModelUpload{"aml", "", testing::ModelA(), "", "", "", ""}, "version"},
      {ModelUpload{"aml", "1", testing::ModelA(), "[1]", "", "", ""}, "manifest"},
      {ModelUpload{"aml", "1", testing::ModelA(), "{\"model_sha256\":\"ab\"}", "", "", ""},
       "manifest.model_sha256"},
      {ModelUpload{"aml", "1", testing::ModelA(), "{\"feature_schema\":\"features-0\"}", "", "",
                   ""},
       "manifest.feature_schema"},
      {ModelUpload{"aml", "1", testing::ModelA(), "{\"features\":[\"amount\",\"nope\"]}", "", "",
                   ""},
       "manifest.features"},
      {ModelUpload{"aml", "1", testing::ModelA(), "", "{bad", "", ""}, "reference"},
      // The drift watch could not use these (it found so only at the first decision before).
      {ModelUpload{"aml", "1", testing::ModelA(), "", R"({"features":{}})", "", ""},
       "reference.features"},
      {ModelUpload{"aml", "1", testing::ModelA(), "", testing::Reference({"amount", "nope"}), "",
                   ""},
       "reference.features[1].name"},
  };
  std::string unknown_feature = testing::ModelA();
  unknown_feature.replace(unknown_feature.find("velocity"), 8, "nosuchft");
  cases.push_back({Upload("1", unknown_feature), "model"});
  for (const Case& c : cases) {
    auto result = registry.Register(c.upload, "k");
    ASSERT_FALSE(result.ok()) << c.field;
    EXPECT_EQ(result.status().field(), c.field) << result.status().message();
  }
  EXPECT_TRUE(registry.List()->empty());
  EXPECT_FALSE(fs::exists(fs::path(options_.models_dir) / "aml" / "1"));
}

TEST_F(ModelRegistryTest, ATamperedStoredModelIsNotLoaded) {
  ModelRegistry registry(options_, store_, clock_);
  auto entry = registry.Register(Upload("1", testing::ModelA()), "k");
  ASSERT_TRUE(entry.ok());
  std::ofstream(fs::path(entry->dir) / "model.json", std::ios::trunc) << testing::ModelB();
  auto loaded = registry.Load("aml", "1");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("does not match its recorded SHA-256"));
  EXPECT_EQ(registry.Load("aml", "9").status().code(), StatusCode::kNotFound);
}

// The index entry's SHA-256 must be one a journaled registration recorded: model.json swapped
// together with its entry (both on disk, beyond the chain) is refused naming the model.
TEST_F(ModelRegistryTest, AnEntryNoJournaledRegistrationRecordedIsNotLoaded) {
  std::vector<std::string> journaled;
  std::vector<std::string> asked;
  options_.journaled_sha256s = [&](std::string_view object) -> Result<std::vector<std::string>> {
    asked.emplace_back(object);
    return journaled;
  };
  ModelRegistry registry(options_, store_, clock_);
  auto entry = registry.Register(Upload("1", testing::ModelA()), "k");
  ASSERT_TRUE(entry.ok());

  journaled = {Sha256Hex(testing::ModelB()), Sha256Hex(testing::ModelA())};
  EXPECT_TRUE(registry.Load("aml", "1").ok());
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked.back(), "aml/1");
  journaled = {""};  // journaled before registrations carried the digest
  EXPECT_TRUE(registry.Load("aml", "1").ok());

  journaled = {Sha256Hex(testing::ModelA())};
  std::ofstream(fs::path(entry->dir) / "model.json", std::ios::trunc) << testing::ModelB();
  auto stored = store_.Get("models/aml/1");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  std::string edited = **stored;
  edited.replace(edited.find(Sha256Hex(testing::ModelA())), 64, Sha256Hex(testing::ModelB()));
  ASSERT_TRUE(store_.Put("models/aml/1", edited).ok());
  auto loaded = registry.Load("aml", "1");
  EXPECT_EQ(loaded.status().code(), StatusCode::kDataLoss) << loaded.status().ToString();
  EXPECT_THAT(loaded.status().message(), HasSubstr("model aml version 1"));

  journaled = {};  // never journaled at all
  EXPECT_EQ(registry.Load("aml", "1").status().code(), StatusCode::kDataLoss);
}

// A tenant's registry loads the deployment's models through the deployment's registry, which
// checks them against its own journaled registrations.
TEST_F(ModelRegistryTest, AFallbackModelIsCheckedByTheFallback) {
  RegistryOptions deployment_options = options_;
  deployment_options.journaled_sha256s = [](std::string_view) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{Sha256Hex(testing::ModelA())};
  };
  ModelRegistry deployment(deployment_options, store_, clock_);
  ASSERT_TRUE(deployment.Register(Upload("1", testing::ModelA()), "config").ok());
  MemoryRegistryStore tenant_store;
  RegistryOptions tenant_options = options_;
  tenant_options.models_dir = (dir_ / "tenant").string();
  tenant_options.fallback = &deployment;
  tenant_options.journaled_sha256s = [](std::string_view) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{};  // the tenant registered nothing
  };
  ModelRegistry tenant(tenant_options, tenant_store, clock_);
  auto loaded = tenant.Load("aml", "1");
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
}

TEST_F(ModelRegistryTest, ReadsAModelDirectoryOrFile) {
  fs::create_directories(dir_ / "trained");
  std::ofstream(dir_ / "trained" / "model.json") << testing::ModelA();
  std::ofstream(dir_ / "trained" / "manifest.json") << "{\"name\":\"x\"}";
  auto upload = ModelRegistry::ReadFromPath((dir_ / "trained").string(), "aml", "3", 1 << 20);
  ASSERT_TRUE(upload.ok());
  EXPECT_EQ(upload->model_json, testing::ModelA());
  EXPECT_EQ(upload->manifest_json, "{\"name\":\"x\"}");
  EXPECT_TRUE(upload->reference_json.empty());
  auto file =
      ModelRegistry::ReadFromPath((dir_ / "trained" / "model.json").string(), "aml", "3", 1 << 20);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->model_json, testing::ModelA());
  EXPECT_FALSE(ModelRegistry::ReadFromPath((dir_ / "missing").string(), "a", "1", 1 << 20).ok());
  EXPECT_FALSE(
      ModelRegistry::ReadFromPath((dir_ / "trained" / "model.json").string(), "a", "1", 10).ok());
}

// An isolation forest over the hand-built model's two features: amount < 100 is typical.
constexpr const char* kAnomaly =
    "verdict-iforest 1\nfeatures 2 trees 1 sample 256\ntree 3\nsplit 0 100 1 2\nleaf 255\n"
    "leaf 1\n";
constexpr const char* kRisk =
    R"({"schema":"risk-1","intercept":-1,"score_weight":1,"anomaly_weight":2,)"
    R"("uses_anomaly":true})";

TEST_F(ModelRegistryTest, AnomalyModelAndRiskCalibrationAreReadStoredAndLoaded) {
  fs::create_directories(dir_ / "trained");
  std::ofstream(dir_ / "trained" / "model.json") << testing::ModelA();
  std::ofstream(dir_ / "trained" / "anomaly.txt") << kAnomaly;
  std::ofstream(dir_ / "trained" / "risk.json") << kRisk;
  // Named by its model.json (as `[model] path` does), the directory's files come along.
  auto upload =
      ModelRegistry::ReadFromPath((dir_ / "trained" / "model.json").string(), "aml", "5", 1 << 20);
  ASSERT_TRUE(upload.ok());
  EXPECT_EQ(upload->anomaly_text, kAnomaly);
  EXPECT_EQ(upload->risk_json, kRisk);
  ModelRegistry registry(options_, store_, clock_);
  auto entry = registry.Register(*upload, "k");
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  EXPECT_TRUE(fs::exists(fs::path(entry->dir) / "anomaly.txt"));
  EXPECT_TRUE(fs::exists(fs::path(entry->dir) / "risk.json"));
  auto loaded = registry.Load("aml", "5");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_TRUE((*loaded)->has_anomaly());
  std::array<double, 3> unusual = {500, 1, 0};
  const FeatureView view{unusual, testing::kSchema, "features-test"};
  const std::optional<double> anomaly = (*loaded)->Anomaly(view);
  ASSERT_TRUE(anomaly.has_value());
  EXPECT_GT(*anomaly, 0.8);  // isolated by the first split
  const auto explained = (*loaded)->ExplainAnomaly(view, 4);
  ASSERT_EQ(explained.size(), 1u);
  EXPECT_EQ(explained[0].feature, "amount");
  EXPECT_EQ(explained[0].value, 500);
  const double score = (*loaded)->Score(view);
  auto logit = [](double p) { return std::log(p / (1 - p)); };
  EXPECT_NEAR((*loaded)->Risk(score, anomaly),
              1 / (1 + std::exp(-(-1 + logit(score) + 2 * logit(*anomaly)))), 1e-9);
}

TEST_F(ModelRegistryTest, WithoutTheDetectionFilesRiskIsTheScore) {
  ModelRegistry registry(options_, store_, clock_);
  ASSERT_TRUE(registry.Register(Upload("6", testing::ModelA()), "k").ok());
  auto loaded = registry.Load("aml", "6");
  ASSERT_TRUE(loaded.ok());
  std::array<double, 3> values = {500, 1, 0};
  const FeatureView view{values, testing::kSchema, "features-test"};
  EXPECT_FALSE((*loaded)->has_anomaly());
  EXPECT_FALSE((*loaded)->Anomaly(view).has_value());
  EXPECT_TRUE((*loaded)->ExplainAnomaly(view, 4).empty());
  EXPECT_EQ((*loaded)->Risk(0.25, std::nullopt), 0.25);
}

TEST_F(ModelRegistryTest, MalformedDetectionFilesAreRefusedWithTheirField) {
  ModelRegistry registry(options_, store_, clock_);
  struct Case {
    std::string anomaly;
    std::string risk;
    std::string field;
    std::string says;
  };
  std::string three_features = kAnomaly;
  three_features.replace(three_features.find("features 2"), 10, "features 3");
  const Case cases[] = {
      {"verdict-iforest 1\nfeatures 2 trees 1 sample 256\ntree 1\ntwig\n", "", "anomaly", "line 4"},
      {three_features, "", "anomaly", "3 features"},
      {"", kRisk, "risk", "no anomaly model"},
      {kAnomaly, R"({"schema":"risk-1"})", "risk", "intercept"},
  };
  for (const Case& c : cases) {
    ModelUpload upload = Upload("7", testing::ModelA());
    upload.anomaly_text = c.anomaly;
    upload.risk_json = c.risk;
    auto entry = registry.Register(upload, "k");
    ASSERT_FALSE(entry.ok()) << c.says;
    EXPECT_EQ(entry.status().field(), c.field) << entry.status().message();
    EXPECT_THAT(entry.status().message(), HasSubstr(c.says));
  }
  EXPECT_FALSE(fs::exists(dir_ / "models" / "aml" / "7"));
}

}  // namespace
}  // namespace verdict::lifecycle
