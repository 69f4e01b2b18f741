// Paths in a configuration file are relative to the file, so that `verdict serve --config
// /path/to/verdict.toml` works from any working directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/engine_options.h"

namespace verdict {
namespace {

namespace fs = std::filesystem;

constexpr const char* kEveryPathKey = R"(
[server.tls]
cert_file = "tls/server.pem"
key_file = "/etc/verdict/server.key"
[engine]
data_dir = "../var"
[journal]
kek_file = "keys/kek.bin"
[policy]
path = "policy/demo.policy"
[model]
path = "./models/m.json"
)";

class ConfigPathsTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("verdict-config-paths-" + std::to_string(getpid()));
    fs::create_directories(dir_ / "etc");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& text) {
    const fs::path path = dir_ / "etc" / "verdict.toml";
    std::ofstream(path) << text;
    return path.string();
  }

  fs::path dir_;
};

TEST_F(ConfigPathsTest, RelativePathsResolveAgainstTheFilesDirectory) {
  auto options = LoadEngineOptions(Write(kEveryPathKey));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  const fs::path etc = dir_ / "etc";
  EXPECT_EQ(options->server.tls.cert_file, (etc / "tls/server.pem").string());
  EXPECT_EQ(options->server.tls.key_file, "/etc/verdict/server.key");  // absolute: as written
  EXPECT_EQ(options->data_dir, (dir_ / "var").string());
  EXPECT_EQ(options->journal.kek_file, (etc / "keys/kek.bin").string());
  EXPECT_EQ(options->policy_path, (etc / "policy/demo.policy").string());
  EXPECT_EQ(options->model.path, (etc / "models/m.json").string());
}

TEST_F(ConfigPathsTest, EmptyAndUnwrittenPathsStayAsTheyAre) {
  auto options = LoadEngineOptions(Write("[model]\npath = \"\"\n"));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->model.path, "");  // none: rules only
  EXPECT_EQ(options->policy_path, "");
  EXPECT_EQ(options->data_dir, EngineOptions().data_dir);  // the default, not in the file
}

TEST_F(ConfigPathsTest, TheFilesDirectoryNotTheWorkingDirectoryCounts) {
  const std::string path = Write(kEveryPathKey);
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  auto from_elsewhere = LoadEngineOptions(path);
  auto relative = LoadEngineOptions("etc/verdict.toml");
  fs::current_path(before);
  ASSERT_TRUE(from_elsewhere.ok()) << from_elsewhere.status().ToString();
  ASSERT_TRUE(relative.ok()) << relative.status().ToString();
  EXPECT_EQ(from_elsewhere->policy_path, (dir_ / "etc/policy/demo.policy").string());
  EXPECT_EQ(relative->policy_path, "etc/policy/demo.policy");
}

TEST(ConfigPathsTextTest, TextNotFromAFileKeepsPathsAsWritten) {
  auto options = ParseEngineOptions(kEveryPathKey, "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->policy_path, "policy/demo.policy");
  EXPECT_EQ(options->data_dir, "../var");
}

// The shipped configuration names files that exist, wherever it is loaded from.
TEST(ConfigPathsTextTest, TheShippedConfigurationsFilesExist) {
  const char* root = std::getenv("VERDICT_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "CTest sets VERDICT_SOURCE_DIR";
  auto shipped = LoadEngineOptions(std::string(root) + "/config/verdict.toml");
  ASSERT_TRUE(shipped.ok()) << shipped.status().ToString();
  EXPECT_TRUE(fs::is_regular_file(shipped->policy_path)) << shipped->policy_path;
  EXPECT_TRUE(fs::is_regular_file(shipped->model.path)) << shipped->model.path;
  EXPECT_EQ(fs::path(shipped->data_dir), fs::path(root) / "var");
}

}  // namespace
}  // namespace verdict
