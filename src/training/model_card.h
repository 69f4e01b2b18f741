// The model card (card.md of a model directory): for the people who decide whether to trust a
// model, in Markdown: the data it learnt from, the features, how it was trained, and its
// detection figures on the hold-out (by score, anomaly and risk; per typology; held-out
// typologies as unseen). Pure function of the trainer's options and result.
#pragma once

#include <string>
#include <vector>

#include "training/trainer.h"

namespace verdict::training {

std::string ModelCardMarkdown(const TrainOptions& options, const TrainResult& result,
                              const std::vector<std::string>& feature_names);

}  // namespace verdict::training
