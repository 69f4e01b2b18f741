// ReplayPipeline's scratch engine: where it lives and that it goes away.
#include "training/replay_pipeline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace verdict::training {
namespace {

namespace fs = std::filesystem;

TEST(ReplayPipelineTest, AWorkDirectoryThatDoesNotExistIsCreated) {
  const fs::path base =
      fs::temp_directory_path() / ("verdict-replay-work-" + std::to_string(getpid()));
  fs::remove_all(base);
  PipelineOptions options;
  options.work_dir = (base / "nested" / "work").string();
  {
    auto pipeline = ReplayPipeline::Create(options);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
    EXPECT_TRUE(fs::is_directory(options.work_dir));
    EXPECT_FALSE(fs::is_empty(options.work_dir));  // the scratch engine's data directory
  }
  EXPECT_TRUE(fs::is_empty(options.work_dir));  // removed with the pipeline
  fs::remove_all(base);
}

TEST(ReplayPipelineTest, AWorkDirectoryThatCannotBeMadeIsAnErrorNamingIt) {
  const fs::path file =
      fs::temp_directory_path() / ("verdict-replay-file-" + std::to_string(getpid()));
  std::ofstream(file) << "not a folder";
  PipelineOptions options;
  options.work_dir = (file / "work").string();
  auto pipeline = ReplayPipeline::Create(options);
  ASSERT_FALSE(pipeline.ok());
  EXPECT_EQ(pipeline.status().field(), "work-dir");
  EXPECT_NE(pipeline.status().message().find(options.work_dir), std::string::npos)
      << pipeline.status().message();
  fs::remove(file);
}

}  // namespace
}  // namespace verdict::training
