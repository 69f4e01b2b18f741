// FeatureMatrixWriter: writes feature vectors with their labels as CSV (one row per
// transaction: row, transaction_id, timestamp, label, typology, pattern_id, then every feature
// of the schema in order, shortest round-trip decimal). Owns its file; not thread-safe.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "core/transaction.h"
#include "features/feature_vector.h"

namespace verdict {

class FeatureMatrixWriter {
 public:
  static Result<std::unique_ptr<FeatureMatrixWriter>> Open(const std::string& path);
  ~FeatureMatrixWriter();

  Status Write(size_t row, const Transaction& txn, std::optional<bool> label,
               std::string_view typology, std::string_view pattern_id,
               const FeatureVector& features);
  // Flushes and closes; the file is complete only when this returns ok.
  Status Close();

  static std::string Header();

 private:
  FeatureMatrixWriter(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  Status Flush();

  std::FILE* file_;
  std::string path_;
  std::string buffer_;
};

}  // namespace verdict
