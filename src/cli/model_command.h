// `verdict model predict` and `verdict model info`: score a CSV file with an XGBoost JSON
// model, or describe the model. A thin CLI11 layer over model/csv_predict.h and model_info.h.
#pragma once

#include <CLI/CLI.hpp>

namespace verdict {

void RegisterModelCommand(CLI::App& app);

}  // namespace verdict
