// A tenant's model, its files and index entry stored by the engine, is loaded at start only
// when a journaled registration recorded the SHA-256 its index entry holds: model.json swapped
// and the entry's digest edited to match (as an insider with disk access would) is refused
// naming the model.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "common/sha256.h"
#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "journal/test_util.h"

namespace verdict {
namespace {

using engine_testing::SourcePath;
using engine_testing::TickingClock;
using journal::testing_util::TempDir;

constexpr std::string_view kEntryKey = "tenant-models/bank-a/models/aml/7";

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class ModelLedgerTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<Engine>> Start() {
    EngineOptions options;
    options.data_dir = dir_.path();
    options.sched.workers = 1;
    return Engine::Create(options, metrics_, clock_);
  }
  // bank-a's own model aml/7, registered and activated as its admin would.
  void RegisterAndActivate() {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    auto models = (*engine)->tenant_models().OwnOrCreate("bank-a");
    ASSERT_TRUE(models.ok()) << models.status().ToString();
    lifecycle::ModelUpload upload;
    upload.name = "aml";
    upload.version = "7";
    upload.model_json = ReadText(SourcePath("models/demo/model.json"));
    ASSERT_FALSE(upload.model_json.empty());
    const lifecycle::Actor admin{"bank-a", "admin"};
    ASSERT_TRUE((*models)->Register(upload, admin).ok());
    ASSERT_TRUE((*models)->Activate("aml", "7", lifecycle::ActivateMode::kPrimary, {}, admin).ok());
  }
  std::string ModelFile() const { return dir_.path() + "/tenant-models/bank-a/aml/7/model.json"; }

  TempDir dir_;
  MetricsRegistry metrics_;
  TickingClock clock_;
};

TEST_F(ModelLedgerTest, TheJournaledModelIsRestored) {
  RegisterAndActivate();
  auto restarted = Start();
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  lifecycle::ModelLifecycle* own = (*restarted)->tenant_models().Own("bank-a");
  ASSERT_NE(own, nullptr);
  ASSERT_NE(own->current()->primary, nullptr);
  EXPECT_EQ(own->current()->primary->ref().version, "7");
}

TEST_F(ModelLedgerTest, AModelSwappedWithItsEntryEditedIsRefused) {
  RegisterAndActivate();
  // Another model.json (here the same trees with a byte more: any other bytes) and the index
  // entry's SHA-256 edited to match it, so that the file still matches its entry.
  const std::string original = ReadText(ModelFile());
  const std::string swapped = original + " ";
  std::ofstream(ModelFile(), std::ios::binary | std::ios::trunc) << swapped;
  {
    auto engine = Start();
    ASSERT_FALSE(engine.ok());  // the edited file alone is already refused
    EXPECT_NE(engine.status().message().find("does not match its recorded SHA-256"),
              std::string::npos)
        << engine.status().ToString();
  }
  std::ofstream(ModelFile(), std::ios::binary | std::ios::trunc) << original;
  {
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    auto entry = (*engine)->journal().GetRegistry(kEntryKey);
    ASSERT_TRUE(entry.ok() && entry->has_value());
    std::string edited = **entry;
    const size_t at = edited.find(Sha256Hex(original));
    ASSERT_NE(at, std::string::npos) << edited;
    edited.replace(at, 64, Sha256Hex(swapped));
    ASSERT_TRUE((*engine)->journal().PutRegistry(kEntryKey, edited).ok());
  }
  std::ofstream(ModelFile(), std::ios::binary | std::ios::trunc) << swapped;
  auto refused = Start();
  ASSERT_EQ(refused.status().code(), StatusCode::kDataLoss) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("model aml version 7"), std::string::npos)
      << refused.status().ToString();
}

TEST_F(ModelLedgerTest, AModelNeverJournaledIsRefused) {
  RegisterAndActivate();
  {
    // The entry copied under a version no admin ever registered, its files with it, and the
    // active set pointed at it.
    auto engine = Start();
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    journal::Journal& j = (*engine)->journal();
    auto entry = j.GetRegistry(kEntryKey);
    auto active = j.GetRegistry("tenant-models/bank-a/lifecycle/active");
    ASSERT_TRUE(entry.ok() && entry->has_value() && active.ok() && active->has_value());
    std::string copied = **entry;
    copied.replace(copied.find("\"version\":\"7\""), 13, "\"version\":\"8\"");
    ASSERT_TRUE(j.PutRegistry("tenant-models/bank-a/models/aml/8", copied).ok());
    std::string pointed = **active;
    const size_t at = pointed.find("\"version\":\"7\"");
    ASSERT_NE(at, std::string::npos) << pointed;
    pointed.replace(at, 13, "\"version\":\"8\"");
    ASSERT_TRUE(j.PutRegistry("tenant-models/bank-a/lifecycle/active", pointed).ok());
  }
  std::filesystem::create_directories(dir_.path() + "/tenant-models/bank-a/aml/8");
  std::filesystem::copy_file(ModelFile(), dir_.path() + "/tenant-models/bank-a/aml/8/model.json");
  auto refused = Start();
  ASSERT_EQ(refused.status().code(), StatusCode::kDataLoss) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("model aml version 8"), std::string::npos)
      << refused.status().ToString();
}

}  // namespace
}  // namespace verdict
