#include "cli/model_command.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "model/csv_predict.h"
#include "model/forest.h"
#include "model/model_info.h"

namespace verdict {
namespace {

struct ModelFlags {
  std::string model;
  std::string input;
  std::string output;
  bool explain = false;
  bool json = false;
};

Result<std::shared_ptr<const model::Forest>> Load(const std::string& path) {
  auto forest = model::Forest::LoadFile(path);
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
  auto forest = Load(flags.model);
  if (!forest.ok()) return 2;
  const std::string text =
      flags.json ? model::DescribeJson(**forest) : model::DescribeText(**forest);
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
  predict->add_option("--model", flags->model, "XGBoost JSON model file")->required();
  predict->add_option("--input", flags->input, "CSV with a header of feature names")->required();
  predict->add_option("--output", flags->output, "Output CSV (default: standard output)");
  predict->add_flag("--explain", flags->explain,
                    "Add one TreeSHAP contribution column per feature, then bias");
  predict->callback([flags] { throw CLI::RuntimeError(Predict(*flags)); });

  CLI::App* info =
      model->add_subcommand("info", "Print trees, depth, features and objective of a model");
  info->add_option("--model", flags->model, "XGBoost JSON model file")->required();
  info->add_flag("--json", flags->json, "Print one JSON object");
  info->callback([flags] { throw CLI::RuntimeError(Info(*flags)); });
}

}  // namespace verdict
