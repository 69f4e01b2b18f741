#include "training/training_set.h"

#include <algorithm>

#include "features/feature_stream.h"

namespace verdict::training {

Result<TrainingSet> LoadTrainingSet(const ReaderOptions& options, const Progress& progress,
                                    const LabelOverrides* overrides) {
  VERDICT_ASSIGN_OR_RETURN(auto reader, TransactionReader::Open(options));
  TrainingSet set;
  set.format = reader->format();
  const bool amlsim_folder = reader->account_fraud_steps() != nullptr;
  if (amlsim_folder) set.fraud_step = *reader->account_fraud_steps();

  // The engine's extractor (DefaultFeatureExtractor has the same default options): the
  // features a model learns from are the ones it is served.
  FeatureExtractor extractor;
  FeatureStream stream(extractor);
  LabelledTransaction t;
  FeatureVector features{};
  while (true) {
    VERDICT_ASSIGN_OR_RETURN(bool more, reader->Next(&t));
    if (!more) break;
    stream.Process(t.txn, &features);
    if (overrides != nullptr) {
      if (auto it = overrides->find(t.txn.transaction_id); it != overrides->end()) {
        t.label = it->second != 0;
        if (*t.label && t.typology.empty()) t.typology = "analyst";
        ++set.overridden_labels;
      }
    }
    for (double v : features) set.x.push_back(static_cast<float>(v));
    set.labelled.push_back(t.label.has_value());
    set.labels.push_back(t.label.value_or(false));
    set.timestamps.push_back(t.txn.timestamp_us);
    set.typologies.push_back(t.label.value_or(false) ? t.typology : std::string());
    if (amlsim_folder) {
      set.senders.push_back(t.txn.sender.ref.account);
      set.receivers.push_back(t.txn.receiver.ref.account);
    }
    set.labelled_rows += t.label.has_value();
    set.positives += t.label.value_or(false);
    if (++set.rows % 100'000 == 0 && progress) progress(set.rows);
  }
  set.stats = reader->stats();
  set.counters = extractor.counters();
  set.accounts = stream.store().AccountCount();
  if (set.rows == 0) return InvalidArgument(options.path + ": no good rows to train on", "input");
  if (set.labelled_rows == 0) {
    return InvalidArgument(options.path + ": the input has no labels (is_laundering)", "input");
  }
  return set;
}

int64_t HoldoutSplitTime(const TrainingSet& set, double holdout_fraction) {
  std::vector<int64_t> times = set.timestamps;
  const size_t k =
      std::min(times.size() - 1,
               static_cast<size_t>(static_cast<double>(times.size()) * (1.0 - holdout_fraction)));
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k), times.end());
  return times[k];
}

}  // namespace verdict::training
