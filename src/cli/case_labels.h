// `--labels-from-cases DATA_DIR` of `verdict train` and `verdict features`: analysts' case
// dispositions (closed cases) of one tenant as labels by transaction id, read from a stopped
// engine's journal registry. Stateless; opens and closes the journal per call.
#pragma once

#include <string>

#include "common/result.h"
#include "training/training_set.h"

namespace verdict {

Result<training::LabelOverrides> LoadLabelsFromCases(const std::string& data_dir,
                                                     const std::string& tenant);

}  // namespace verdict
