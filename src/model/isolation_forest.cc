#include "model/isolation_forest.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace verdict::model {
namespace {

constexpr std::string_view kMagic = "verdict-iforest 1";
// Bounds a file may declare, so a malformed count cannot make the loader allocate without end.
constexpr size_t kMaxFeatures = 4096;
constexpr size_t kMaxTrees = 10'000;
constexpr size_t kMaxNodesPerTree = 1 << 20;

// Splits a text into lines and lines into tokens; tracks the line number for errors.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  // The next line's tokens; false at the end of the text.
  bool Next(std::vector<std::string_view>* tokens) {
    ++line_;  // at the end too, so "ends early" names the line that is missing
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    tokens->clear();
    size_t i = 0;
    while (i < line.size()) {
      size_t j = line.find(' ', i);
      if (j == std::string_view::npos) j = line.size();
      tokens->push_back(line.substr(i, j - i));
      i = j + 1;
    }
    return true;
  }
  Status Error(const std::string& what) const {
    return InvalidArgument("anomaly model line " + std::to_string(line_) + ": " + what,
                           "line " + std::to_string(line_));
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 0;
};

bool ParseSize(std::string_view s, size_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

bool ParseFloat(std::string_view s, float* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty() && std::isfinite(*out);
}

// One node line of a tree of `count` nodes at index `index`.
Status ParseNode(const LineReader& reader, const std::vector<std::string_view>& t, size_t index,
                 size_t count, size_t num_features, IsolationForest::Node* node) {
  size_t value = 0;
  if (t.size() == 2 && t[0] == "leaf") {
    if (!ParseSize(t[1], &value) || value > UINT32_MAX) return reader.Error("bad leaf size");
    node->size = static_cast<uint32_t>(value);
    return Status::Ok();
  }
  if (t.size() != 5 || t[0] != "split") {
    return reader.Error("expected 'split <feature> <threshold> <left> <right>' or 'leaf <size>'");
  }
  if (!ParseSize(t[1], &value) || value >= num_features) {
    return reader.Error("feature index out of range");
  }
  node->feature = static_cast<int32_t>(value);
  if (!ParseFloat(t[2], &node->threshold)) return reader.Error("threshold is not a finite number");
  size_t left = 0;
  size_t right = 0;
  if (!ParseSize(t[3], &left) || !ParseSize(t[4], &right) || left <= index || right <= index ||
      left >= count || right >= count || left == right) {
    return reader.Error("children must be distinct nodes after this one within the tree");
  }
  node->left = static_cast<uint32_t>(left);
  node->right = static_cast<uint32_t>(right);
  return Status::Ok();
}

}  // namespace

IsolationForest::IsolationForest(size_t num_features, size_t sample_size, std::vector<Tree> trees)
    : num_features_(num_features),
      sample_size_(sample_size),
      normalizer_(AveragePathLength(static_cast<double>(sample_size))),
      trees_(std::move(trees)) {
  for (const Tree& tree : trees_) {
    std::vector<double>& depths = leaf_depth_.emplace_back(tree.size(), 0.0);
    for (size_t i = 0; i < tree.size(); ++i) {
      if (tree[i].feature < 0) depths[i] = AveragePathLength(tree[i].size);
    }
  }
}

double IsolationForest::AveragePathLength(double n) {
  if (n <= 1) return 0;
  if (n == 2) return 1;
  constexpr double kEulerGamma = 0.5772156649015329;
  return 2 * (std::log(n - 1) + kEulerGamma) - 2 * (n - 1) / n;
}

double IsolationForest::PathLength(size_t t, const float* row, std::vector<int32_t>* path) const {
  const Tree& tree = trees_[t];
  uint32_t i = 0;
  double depth = 0;
  while (tree[i].feature >= 0) {
    const Node& n = tree[i];
    if (path != nullptr) path->push_back(n.feature);
    // NaN compares false, so missing values go right, as in training.
    i = row[n.feature] < n.threshold ? n.left : n.right;
    depth += 1;
  }
  return depth + leaf_depth_[t][i];
}

double IsolationForest::Score(const float* row) const {
  if (trees_.empty() || normalizer_ <= 0) return 0.5;
  double total = 0;
  for (size_t t = 0; t < trees_.size(); ++t) total += PathLength(t, row, nullptr);
  return std::exp2(-(total / static_cast<double>(trees_.size())) / normalizer_);
}

double IsolationForest::Explain(const float* row, double* attribution) const {
  for (size_t f = 0; f < num_features_; ++f) attribution[f] = 0;
  if (trees_.empty() || normalizer_ <= 0) return 0.5;
  thread_local std::vector<int32_t> path;
  double total = 0;
  const double trees = static_cast<double>(trees_.size());
  for (size_t t = 0; t < trees_.size(); ++t) {
    path.clear();
    const double h = PathLength(t, row, &path);
    total += h;
    const double shortening = normalizer_ - h;
    if (shortening <= 0 || path.empty()) continue;
    const double share = shortening / static_cast<double>(path.size()) / trees;
    for (int32_t f : path) attribution[f] += share;
  }
  return std::exp2(-(total / trees) / normalizer_);
}

std::string IsolationForest::Serialize() const {
  std::string out(kMagic);
  out += "\nfeatures " + std::to_string(num_features_) + " trees " + std::to_string(trees_.size()) +
         " sample " + std::to_string(sample_size_) + "\n";
  char buf[96];
  for (const Tree& tree : trees_) {
    out += "tree " + std::to_string(tree.size()) + "\n";
    for (const Node& n : tree) {
      if (n.feature < 0) {
        std::snprintf(buf, sizeof buf, "leaf %u\n", n.size);
      } else {
        std::snprintf(buf, sizeof buf, "split %d %.9g %u %u\n", n.feature,
                      static_cast<double>(n.threshold), n.left, n.right);
      }
      out += buf;
    }
  }
  return out;
}

Result<std::shared_ptr<const IsolationForest>> IsolationForest::Parse(std::string_view text) {
  LineReader reader(text);
  std::vector<std::string_view> t;
  if (!reader.Next(&t) || t.size() != 2 || t[0] != "verdict-iforest" || t[1] != "1") {
    return reader.Error("expected the header '" + std::string(kMagic) + "'");
  }
  size_t features = 0;
  size_t tree_count = 0;
  size_t sample = 0;
  if (!reader.Next(&t) || t.size() != 6 || t[0] != "features" || t[2] != "trees" ||
      t[4] != "sample" || !ParseSize(t[1], &features) || !ParseSize(t[3], &tree_count) ||
      !ParseSize(t[5], &sample) || features == 0 || features > kMaxFeatures || tree_count == 0 ||
      tree_count > kMaxTrees || sample < 2) {
    return reader.Error("expected 'features <1..4096> trees <1..10000> sample <2 or more>'");
  }
  std::vector<Tree> trees(tree_count);
  for (Tree& tree : trees) {
    size_t count = 0;
    if (!reader.Next(&t) || t.size() != 2 || t[0] != "tree" || !ParseSize(t[1], &count) ||
        count == 0 || count > kMaxNodesPerTree) {
      return reader.Error("expected 'tree <node count>'");
    }
    tree.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (!reader.Next(&t)) return reader.Error("the file ends inside a tree");
      VERDICT_RETURN_IF_ERROR(ParseNode(reader, t, i, count, features, &tree[i]));
    }
  }
  while (reader.Next(&t)) {
    if (!t.empty()) return reader.Error("text after the last tree");
  }
  return std::make_shared<const IsolationForest>(features, sample, std::move(trees));
}

Result<std::shared_ptr<const IsolationForest>> IsolationForest::LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  auto forest = Parse(ss.str());
  if (!forest.ok()) {
    return InvalidArgument(path + ": " + forest.status().message(), forest.status().field());
  }
  return forest;
}

}  // namespace verdict::model
