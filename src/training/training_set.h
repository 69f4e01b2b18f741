// TrainingSet: an input history replayed through the engine's own feature code
// (FeatureStream over a FeatureExtractor with default options, exactly what the engine serves
// with), kept as a float matrix with labels, times and typologies. Value type; built once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "features/feature_extractor.h"
#include "features/feature_vector.h"
#include "formats/transaction_reader.h"

namespace verdict::training {

struct TrainingSet {
  size_t rows = 0;
  std::vector<float> x;             // rows × kFeatureCount, row-major; NaN = missing
  std::vector<uint8_t> labels;      // 1 = laundering
  std::vector<uint8_t> labelled;    // 0 where the input row had no label
  std::vector<int64_t> timestamps;  // UTC microseconds
  std::vector<std::string> typologies;
  // Kept only for AMLSim folders (account-level evaluation).
  std::vector<std::string> senders;
  std::vector<std::string> receivers;
  std::unordered_map<std::string, int64_t> fraud_step;  // AMLSim folders only

  CsvFormat format = CsvFormat::kAuto;
  ReadStats stats;
  FeatureCounters counters;
  size_t accounts = 0;
  size_t labelled_rows = 0;
  size_t positives = 0;
  size_t overridden_labels = 0;  // rows whose label came from LabelOverrides

  const float* Row(size_t i) const { return &x[i * kFeatureCount]; }
};

// Called every 100,000 rows with the number read so far.
using Progress = std::function<void(size_t rows)>;

// Labels by transaction id that replace (or supply) the input's: analysts' case dispositions
// (cases::LoadCaseLabels; 1 suspicious, 0 not).
using LabelOverrides = std::unordered_map<std::string, int>;

// Reads every good row of the input (bad rows are counted in `stats`), computing features in
// file order; `overrides` (may be null) relabels rows by transaction id. An input without any
// label is refused (nothing to train or evaluate on).
Result<TrainingSet> LoadTrainingSet(const ReaderOptions& options, const Progress& progress = {},
                                    const LabelOverrides* overrides = nullptr);

// The time split: rows with timestamp < split_us train, the rest are held out. The split is
// the timestamp of the row at (1 − holdout_fraction) of the time-ordered rows, so roughly the
// last `holdout_fraction` of the history is held out. holdout_fraction in (0, 1).
int64_t HoldoutSplitTime(const TrainingSet& set, double holdout_fraction);

}  // namespace verdict::training
