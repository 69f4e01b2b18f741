#include "cli/model_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "common/json_writer.h"
#include "engine/engine_options.h"
#include "model/csv_predict.h"
#include "model/forest.h"
#include "model/model_info.h"
#include "training/model_directory.h"

namespace verdict {
namespace {

struct ModelFlags {
  std::string model;
  std::string input;
  std::string output;
  bool explain = false;
  bool json = false;
};

// The model of a model directory (`verdict train`'s: DIR/model.json, named by its manifest) or
// of a bare XGBoost JSON file; `*identity` gets the directory's name and version.
Result<std::shared_ptr<const model::Forest>> Load(const std::string& path,
                                                  ModelOptions* identity = nullptr) {
  Result<ModelOptions> located = training::ModelOptionsFromPath(path);
  if (!located.ok()) {
    std::fprintf(stderr, "verdict model: %s\n", located.status().message().c_str());
    return located.status();
  }
  if (identity != nullptr) *identity = *located;
  auto forest = model::Forest::LoadFile(located->path);
  if (!forest.ok()) std::fprintf(stderr, "verdict model: %s\n", forest.status().message().c_str());
  return forest;
}

int Predict(const ModelFlags& flags) {
  auto forest = Load(flags.model);
  if (!forest.ok()) return 2;
  std::ifstream in(flags.input, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "verdict model predict: cannot open '%s'\n", flags.input.c_str());
    return 2;
  }
  std::ofstream file;
  if (!flags.output.empty()) {
    file.open(flags.output, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::fprintf(stderr, "verdict model predict: cannot write '%s'\n", flags.output.c_str());
      return 2;
    }
  }
  std::ostream& out = flags.output.empty() ? std::cout : file;
  Status s = model::PredictCsv(**forest, in, out, {flags.explain, flags.input});
  out.flush();
  if (!s.ok()) {
    std::fprintf(stderr, "verdict model predict: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}

int Info(const ModelFlags& flags) {
  ModelOptions identity;
  auto forest = Load(flags.model, &identity);
  if (!forest.ok()) return 2;
  const bool is_directory = std::filesystem::is_directory(flags.model);
  std::string text;
  if (flags.json) {
    const std::string facts = model::DescribeJson(**forest);
    if (is_directory) {  // the manifest's identity first, then the model's facts
      JsonWriter w(text);
      w.BeginObject().Key("name").String(identity.name).Key("version").String(identity.version);
      text += "," + facts.substr(1);
    } else {
      text = facts;
    }
  } else {
    if (is_directory) text = "name: " + identity.name + "\nversion: " + identity.version + "\n";
    text += model::DescribeText(**forest);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

void RegisterModelCommand(CLI::App& app) {
  auto flags = std::make_shared<ModelFlags>();
  CLI::App* model = app.add_subcommand("model", "Score with or describe an XGBoost JSON model");
  model->require_subcommand(1);

  CLI::App* predict = model->add_subcommand(
      "predict", "Score each CSV row: margin,probability (and TreeSHAP columns with --explain)");
  predict
      ->add_option("--model", flags->model,
                   "Model directory (from `verdict train`) or XGBoost JSON model file")
      ->required();
  predict->add_option("--input", flags->input, "CSV with a header of feature names")->required();
  predict->add_option("--output", flags->output, "Output CSV (default: standard output)");
  predict->add_flag("--explain", flags->explain,
                    "Add one TreeSHAP contribution column per feature, then bias");
  predict->callback([flags] { throw CLI::RuntimeError(Predict(*flags)); });

  CLI::App* info =
      model->add_subcommand("info", "Print trees, depth, features and objective of a model");
  info->add_option("model,--model", flags->model,
                   "Model directory (from `verdict train`, e.g. models/demo) or XGBoost JSON "
                   "model file")
      ->required();
  info->add_flag("--json", flags->json, "Print one JSON object");
  info->callback([flags] { throw CLI::RuntimeError(Info(*flags)); });
}

}  // namespace verdict
