#include "monitor/reference_distribution.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <utility>

#include "common/json_writer.h"

namespace verdict::monitor {
namespace {

namespace dom = simdjson::dom;

Status Invalid(std::string message, const std::string& field) {
  return InvalidArgument("reference: " + field + ": " + message, field);
}

void WriteVariable(JsonWriter& w, const VariableReference& v) {
  w.BeginObject();
  w.Key("name").String(v.name);
  w.Key("missing").Uint(v.missing);
  w.Key("edges").BeginArray();
  for (double e : v.edges) w.Double(e);
  w.EndArray();
  w.Key("counts").BeginArray();
  for (uint64_t c : v.counts) w.Uint(c);
  w.EndArray();
  w.Key("sample").BeginArray();
  for (double s : v.sample) w.Double(s);
  w.EndArray();
  w.EndObject();
}

Status ReadUint(dom::element value, uint64_t* out, const std::string& field) {
  if (value.type() != dom::element_type::UINT64 && value.type() != dom::element_type::INT64) {
    return Invalid("expected a non-negative integer", field);
  }
  int64_t signed_value = 0;
  if (value.type() == dom::element_type::INT64) {
    if (value.get_int64().get(signed_value) != simdjson::SUCCESS || signed_value < 0) {
      return Invalid("expected a non-negative integer", field);
    }
    *out = static_cast<uint64_t>(signed_value);
    return Status::Ok();
  }
  if (value.get_uint64().get(*out) != simdjson::SUCCESS) {
    return Invalid("expected a non-negative integer", field);
  }
  return Status::Ok();
}

Status ReadDouble(dom::element value, double* out, const std::string& field) {
  if (value.get_double().get(*out) != simdjson::SUCCESS) return Invalid("expected a number", field);
  if (!std::isfinite(*out)) return Invalid("expected a finite number", field);
  return Status::Ok();
}

Status ReadDoubleArray(dom::element value, size_t max_size, std::vector<double>* out,
                       const std::string& field) {
  dom::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) return Invalid("expected an array", field);
  if (array.size() > max_size) {
    return Invalid("more than " + std::to_string(max_size) + " values", field);
  }
  out->clear();
  size_t i = 0;
  for (dom::element item : array) {
    double d = 0;
    VERDICT_RETURN_IF_ERROR(ReadDouble(item, &d, field + "[" + std::to_string(i) + "]"));
    out->push_back(d);
    ++i;
  }
  return Status::Ok();
}

Status ParseVariable(dom::element value, const std::string& field, VariableReference* out) {
  dom::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) {
    return Invalid("expected an object", field);
  }
  std::set<std::string_view> seen;
  for (auto [key, item] : object) {
    const std::string item_field = field + "." + std::string(key);
    if (!seen.insert(key).second) return Invalid("duplicate key", item_field);
    if (key == "name") {
      std::string_view name;
      if (item.get_string().get(name) != simdjson::SUCCESS) {
        return Invalid("expected a string", item_field);
      }
      if (name.empty() || name.size() > kMaxReferenceNameBytes) {
        return Invalid("must be 1 to 256 bytes", item_field);
      }
      out->name = std::string(name);
    } else if (key == "missing") {
      VERDICT_RETURN_IF_ERROR(ReadUint(item, &out->missing, item_field));
    } else if (key == "edges") {
      VERDICT_RETURN_IF_ERROR(
          ReadDoubleArray(item, kMaxReferenceBins + 1, &out->edges, item_field));
    } else if (key == "counts") {
      dom::array array;
      if (item.get_array().get(array) != simdjson::SUCCESS) {
        return Invalid("expected an array", item_field);
      }
      if (array.size() > kMaxReferenceBins) return Invalid("more than 20 bins", item_field);
      size_t i = 0;
      for (dom::element count : array) {
        uint64_t c = 0;
        VERDICT_RETURN_IF_ERROR(ReadUint(count, &c, item_field + "[" + std::to_string(i) + "]"));
        out->counts.push_back(c);
        ++i;
      }
    } else if (key == "sample") {
      VERDICT_RETURN_IF_ERROR(ReadDoubleArray(item, kMaxReferenceSample, &out->sample, item_field));
    } else {
      return Invalid("unknown key; expected name, missing, edges, counts, sample", item_field);
    }
  }
  for (std::string_view required : {"name", "missing", "edges", "counts", "sample"}) {
    if (!seen.contains(required))
      return Invalid("is required", field + "." + std::string(required));
  }
  const std::string edges_field = field + ".edges";
  if (out->edges.size() < 2) return Invalid("needs at least 2 boundaries", edges_field);
  if (out->counts.size() + 1 != out->edges.size()) {
    return Invalid("has " + std::to_string(out->edges.size()) + " boundaries for " +
                       std::to_string(out->counts.size()) + " counts (expected counts + 1)",
                   edges_field);
  }
  const bool constant = out->edges.size() == 2 && out->edges[0] == out->edges[1];
  if (!constant) {
    for (size_t i = 1; i < out->edges.size(); ++i) {
      if (!(out->edges[i] > out->edges[i - 1])) {
        return Invalid("not strictly increasing", edges_field + "[" + std::to_string(i) + "]");
      }
    }
  }
  for (size_t i = 1; i < out->sample.size(); ++i) {
    if (out->sample[i] < out->sample[i - 1]) {
      return Invalid("not sorted", field + ".sample[" + std::to_string(i) + "]");
    }
  }
  uint64_t non_missing = 0;
  for (uint64_t c : out->counts) {
    if (c > UINT64_MAX - non_missing) return Invalid("counts overflow", field + ".counts");
    non_missing += c;
  }
  if (out->sample.size() > non_missing) {
    return Invalid("more sample values than counted values", field + ".sample");
  }
  if (non_missing > 0 && out->sample.empty()) {
    return Invalid("empty although values were counted", field + ".sample");
  }
  return Status::Ok();
}

Status CheckRows(const VariableReference& v, uint64_t rows, const std::string& field) {
  const uint64_t non_missing = v.NonMissing();
  if (v.missing > rows || non_missing != rows - v.missing) {
    return Invalid("missing + sum(counts) = " + std::to_string(v.missing) + " + " +
                       std::to_string(non_missing) + ", expected rows = " + std::to_string(rows),
                   field);
  }
  return Status::Ok();
}

// Order statistic at fraction q of sorted values (q in [0, 1]).
double OrderStatistic(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  return sorted[static_cast<size_t>(std::llround(position))];
}

}  // namespace

uint64_t VariableReference::NonMissing() const {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  return total;
}

size_t VariableReference::BinOf(double value) const {
  if (counts.size() <= 1) return 0;
  // Interior boundaries edges[1..K-1]: the bin is how many of them are <= value.
  auto first = edges.begin() + 1;
  auto last = edges.begin() + static_cast<std::ptrdiff_t>(counts.size());
  return static_cast<size_t>(std::upper_bound(first, last, value) - first);
}

const VariableReference* ReferenceDistribution::Find(std::string_view name) const {
  for (const VariableReference& f : features) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string ReferenceToJson(const ReferenceDistribution& reference) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("schema").String(kReferenceSchema);
  w.Key("rows").Uint(reference.rows);
  if (reference.min_account_history_days > 0) {
    w.Key("min_account_history_days").Double(reference.min_account_history_days);
  }
  w.Key("features").BeginArray();
  for (const VariableReference& f : reference.features) WriteVariable(w, f);
  w.EndArray();
  w.Key("score");
  WriteVariable(w, reference.score);
  w.EndObject();
  return out;
}

Result<ReferenceDistribution> ParseReferenceJson(std::string_view json) {
  if (json.size() > kMaxReferenceBytes) return Invalid("file too large", "reference");
  dom::parser parser;
  simdjson::padded_string padded(json);
  dom::element root;
  if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    return InvalidArgument(
        std::string("reference: not valid JSON: ") + simdjson::error_message(error), "reference");
  }
  dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) {
    return Invalid("expected a JSON object", "reference");
  }
  ReferenceDistribution reference;
  std::set<std::string_view> seen;
  std::set<std::string> names;
  for (auto [key, value] : object) {
    const std::string field(key);
    if (!seen.insert(key).second) return Invalid("duplicate key", field);
    if (key == "schema") {
      std::string_view schema;
      if (value.get_string().get(schema) != simdjson::SUCCESS || schema != kReferenceSchema) {
        return Invalid("expected \"reference-1\"", field);
      }
    } else if (key == "rows") {
      VERDICT_RETURN_IF_ERROR(ReadUint(value, &reference.rows, field));
    } else if (key == "min_account_history_days") {
      VERDICT_RETURN_IF_ERROR(ReadDouble(value, &reference.min_account_history_days, field));
      if (reference.min_account_history_days < 0) return Invalid("expected >= 0", field);
    } else if (key == "features") {
      dom::array array;
      if (value.get_array().get(array) != simdjson::SUCCESS) {
        return Invalid("expected an array", field);
      }
      if (array.size() > kMaxReferenceFeatures) return Invalid("too many features", field);
      size_t i = 0;
      for (dom::element item : array) {
        const std::string item_field = "features[" + std::to_string(i) + "]";
        VariableReference v;
        VERDICT_RETURN_IF_ERROR(ParseVariable(item, item_field, &v));
        if (!names.insert(v.name).second) {
          return Invalid("duplicate feature name '" + v.name + "'", item_field + ".name");
        }
        reference.features.push_back(std::move(v));
        ++i;
      }
    } else if (key == "score") {
      VERDICT_RETURN_IF_ERROR(ParseVariable(value, "score", &reference.score));
      if (reference.score.name != "score") return Invalid("expected \"score\"", "score.name");
    } else {
      return Invalid(
          "unknown key; expected schema, rows, min_account_history_days, features, score", field);
    }
  }
  for (std::string_view required : {"schema", "rows", "features", "score"}) {
    if (!seen.contains(required)) return Invalid("is required", std::string(required));
  }
  for (size_t i = 0; i < reference.features.size(); ++i) {
    VERDICT_RETURN_IF_ERROR(
        CheckRows(reference.features[i], reference.rows, "features[" + std::to_string(i) + "]"));
  }
  VERDICT_RETURN_IF_ERROR(CheckRows(reference.score, reference.rows, "score"));
  return reference;
}

Result<std::vector<uint32_t>> ResolveReferenceFeatures(
    const ReferenceDistribution& reference, std::span<const std::string_view> feature_names) {
  std::vector<uint32_t> indexes;
  indexes.reserve(reference.features.size());
  for (size_t i = 0; i < reference.features.size(); ++i) {
    const std::string& name = reference.features[i].name;
    auto it = std::find(feature_names.begin(), feature_names.end(), name);
    if (it == feature_names.end()) {
      return InvalidArgument("reference feature '" + name + "' is not a feature of this engine",
                             "features[" + std::to_string(i) + "].name");
    }
    indexes.push_back(static_cast<uint32_t>(it - feature_names.begin()));
  }
  return indexes;
}

Result<ReferenceDistribution> ReadReferenceFile(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec)
    return InvalidArgument("cannot read reference " + path + ": " + ec.message(), "reference");
  if (size > kMaxReferenceBytes) return Invalid(path + " is too large", "reference");
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot open reference " + path, "reference");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto parsed = ParseReferenceJson(text);
  if (!parsed.ok()) {
    return Status(parsed.status().code(), path + ": " + parsed.status().message(),
                  parsed.status().field());
  }
  return parsed;
}

Status WriteReferenceFile(const ReferenceDistribution& reference, const std::string& path) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return Internal("cannot write " + temporary);
    out << ReferenceToJson(reference) << '\n';
    out.flush();
    if (!out) return Internal("cannot write " + temporary);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return Internal("cannot rename " + temporary + " to " + path + ": " + ec.message());
  return Status::Ok();
}

VariableReference BuildVariableReference(std::string name, std::vector<double> values,
                                         size_t max_bins) {
  max_bins = std::clamp<size_t>(max_bins, 1, kMaxReferenceBins);
  VariableReference v;
  v.name = std::move(name);
  std::vector<double> sorted;
  sorted.reserve(values.size());
  for (double x : values) {
    if (std::isnan(x)) {
      ++v.missing;
    } else {
      sorted.push_back(x);
    }
  }
  values.clear();
  values.shrink_to_fit();
  std::sort(sorted.begin(), sorted.end());
  if (sorted.empty()) {
    // Nothing but missing values: one empty bin so the format stays uniform.
    v.edges = {0.0, 0.0};
    v.counts = {0};
    return v;
  }
  std::vector<double> distinct;
  std::unique_copy(sorted.begin(), sorted.end(), std::back_inserter(distinct),
                   [](double a, double b) { return a == b; });
  if (distinct.size() == 1) {
    v.edges = {distinct[0], distinct[0]};
  } else if (distinct.size() <= max_bins) {
    v.edges.push_back(distinct.front());
    for (size_t i = 1; i < distinct.size(); ++i) {
      v.edges.push_back(distinct[i - 1] + (distinct[i] - distinct[i - 1]) / 2);
    }
    v.edges.push_back(distinct.back());
    // A midpoint can round onto a neighbour for adjacent doubles; keep them strictly increasing.
    v.edges.erase(std::unique(v.edges.begin(), v.edges.end()), v.edges.end());
  } else {
    for (size_t i = 0; i <= max_bins; ++i) {
      const double edge =
          OrderStatistic(sorted, static_cast<double>(i) / static_cast<double>(max_bins));
      if (v.edges.empty() || edge > v.edges.back()) v.edges.push_back(edge);
    }
    if (v.edges.size() == 1) v.edges.push_back(v.edges[0]);
  }
  v.counts.assign(v.edges.size() - 1, 0);
  for (double x : sorted) ++v.counts[v.BinOf(x)];
  if (sorted.size() <= kMaxReferenceSample) {
    v.sample = std::move(sorted);
  } else {
    v.sample.reserve(kMaxReferenceSample);
    for (size_t j = 0; j < kMaxReferenceSample; ++j) {
      v.sample.push_back(OrderStatistic(
          sorted, static_cast<double>(j) / static_cast<double>(kMaxReferenceSample - 1)));
    }
  }
  return v;
}

ReferenceBuilder::ReferenceBuilder(std::vector<std::string> feature_names, size_t max_bins)
    : names_(std::move(feature_names)), max_bins_(max_bins), columns_(names_.size()) {}

Status ReferenceBuilder::AddRow(std::span<const double> features, double score) {
  if (features.size() != names_.size()) {
    return InvalidArgument("row has " + std::to_string(features.size()) + " features, expected " +
                               std::to_string(names_.size()),
                           "features");
  }
  for (size_t i = 0; i < features.size(); ++i) columns_[i].push_back(features[i]);
  scores_.push_back(score);
  return Status::Ok();
}

Status ReferenceBuilder::AddFeatureColumn(size_t feature, std::span<const double> values) {
  if (feature >= names_.size()) {
    return InvalidArgument("feature index " + std::to_string(feature) + " out of range", "feature");
  }
  columns_[feature].insert(columns_[feature].end(), values.begin(), values.end());
  return Status::Ok();
}

Status ReferenceBuilder::AddScoreColumn(std::span<const double> scores) {
  scores_.insert(scores_.end(), scores.begin(), scores.end());
  return Status::Ok();
}

Result<ReferenceDistribution> ReferenceBuilder::Build() const {
  if (names_.size() > kMaxReferenceFeatures) {
    return InvalidArgument("more than 4096 features", "features");
  }
  std::set<std::string_view> names;
  for (size_t i = 0; i < names_.size(); ++i) {
    const std::string field = "features[" + std::to_string(i) + "]";
    if (names_[i].empty() || names_[i].size() > kMaxReferenceNameBytes) {
      return InvalidArgument("feature name must be 1 to 256 bytes", field);
    }
    if (!names.insert(names_[i]).second) {
      return InvalidArgument("duplicate feature name '" + names_[i] + "'", field);
    }
    if (columns_[i].size() != scores_.size()) {
      return InvalidArgument("feature '" + names_[i] + "' has " +
                                 std::to_string(columns_[i].size()) + " values, the score has " +
                                 std::to_string(scores_.size()),
                             field);
    }
  }
  ReferenceDistribution reference;
  reference.rows = scores_.size();
  for (size_t i = 0; i < names_.size(); ++i) {
    reference.features.push_back(BuildVariableReference(names_[i], columns_[i], max_bins_));
  }
  reference.score = BuildVariableReference("score", scores_, max_bins_);
  return reference;
}

}  // namespace verdict::monitor
