// The console's static files: loading, content types, and that only loaded names are served.
#include "engine/console_routes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace verdict {
namespace {

namespace fs = std::filesystem;

class ConsoleFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("verdict-console-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "assets" / "deep");
    Write("index.html", "<!doctype html><title>verdict</title>");
    Write("assets/app-1.js", "console.log(1)");
    Write("assets/app-1.css", "body{}");
    Write("assets/deep/hidden.txt", "too deep");
    Write("../outside.txt", "secret");
  }
  void TearDown() override {
    fs::remove_all(dir_);
    fs::remove(dir_.parent_path() / "outside.txt");
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

TEST_F(ConsoleFilesTest, LoadsTheTopLevelAndOneLevelDown) {
  auto files = ConsoleFiles::Load(dir_.string());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_NE((*files)->Find("index.html"), nullptr);
  EXPECT_EQ((*files)->Find("index.html")->content_type, "text/html; charset=utf-8");
  ASSERT_NE((*files)->Find("assets/app-1.js"), nullptr);
  EXPECT_EQ((*files)->Find("assets/app-1.js")->body, "console.log(1)");
  EXPECT_EQ((*files)->Find("assets/app-1.css")->content_type, "text/css; charset=utf-8");
  EXPECT_EQ((*files)->Find("assets/deep/hidden.txt"), nullptr);
  EXPECT_EQ((*files)->size(), 3u);
}

TEST_F(ConsoleFilesTest, TraversalNamesAreNeverFound) {
  auto files = ConsoleFiles::Load(dir_.string());
  ASSERT_TRUE(files.ok());
  for (const char* name : {"../outside.txt", "assets/../index.html", "/etc/passwd", "./index.html",
                           "..", "", "assets", "%2e%2e/outside.txt"}) {
    EXPECT_EQ((*files)->Find(name), nullptr) << name;
  }
}

TEST_F(ConsoleFilesTest, ADirectoryWithoutIndexIsRefused) {
  fs::remove(dir_ / "index.html");
  auto files = ConsoleFiles::Load(dir_.string());
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), StatusCode::kNotFound);
}

TEST(ContentTypeTest, KnownAndUnknownExtensions) {
  EXPECT_EQ(ContentTypeFor("a.svg"), "image/svg+xml");
  EXPECT_EQ(ContentTypeFor("a.mjs"), "text/javascript; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("a.exe"), "application/octet-stream");
  EXPECT_EQ(ContentTypeFor(".js"), "application/octet-stream");
}

}  // namespace
}  // namespace verdict
