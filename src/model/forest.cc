#include "model/forest.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>

#include "common/sha256.h"
#include "model/saabas.h"
#include "model/tree_shap.h"
#include "model/xgboost_json_loader.h"

namespace verdict::model {
namespace {

// Trees walked side by side for one row: independent dependency chains keep the core busy
// while each level's node and feature loads are in flight.
constexpr size_t kGroup = 8;
// Rows walked side by side through one tree in the batch path.
constexpr size_t kLanes = 8;
// Rows up to this many features use a stack buffer.
constexpr size_t kStackFeatures = 512;

inline uint32_t Step(const Forest::Node* nodes, const uint32_t* keys, uint32_t index) {
  return Forest::Next(nodes[index], keys);
}

}  // namespace

Result<std::shared_ptr<const Forest>> Forest::LoadXGBoostJson(std::string_view json) {
  try {
    VERDICT_ASSIGN_OR_RETURN(ModelSpec spec, ParseXGBoostJson(json));
    return Compile(spec, Sha256Hex(json));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "model JSON: out of memory while loading");
  } catch (const std::exception& e) {
    return Internal(std::string("model JSON: ") + e.what());
  }
}

Result<std::shared_ptr<const Forest>> Forest::LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open model file '" + path + "'");
  std::string bytes;
  try {
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) return InvalidArgument("cannot read model file '" + path + "'");
    if (static_cast<uint64_t>(size) > kMaxModelBytes) {
      return InvalidArgument("model file '" + path + "' is too large");
    }
    in.seekg(0, std::ios::beg);
    bytes.resize(static_cast<size_t>(size));
    in.read(bytes.data(), size);
    if (!in) return InvalidArgument("cannot read model file '" + path + "'");
  } catch (const std::exception& e) {
    return Internal("reading model file '" + path + "': " + e.what());
  }
  Result<std::shared_ptr<const Forest>> forest = LoadXGBoostJson(bytes);
  if (!forest.ok()) {
    return Status(forest.status().code(), path + ": " + forest.status().message(),
                  forest.status().field());
  }
  return forest;
}

std::shared_ptr<const Forest> Forest::Compile(const ModelSpec& spec, std::string sha256) {
  std::shared_ptr<Forest> forest(new Forest());
  Forest& f = *forest;
  f.num_features_ = spec.num_features;
  f.feature_names_ = spec.feature_names;
  f.objective_ = spec.objective;
  f.base_score_ = spec.base_score;
  f.base_margin_ = BaseMargin(spec.objective, spec.base_score).value();
  f.sha256_ = std::move(sha256);
  f.bias_ = f.base_margin_;

  const uint32_t n = static_cast<uint32_t>(spec.num_features);
  // Per tree: XGBoost ids in breadth-first order (both children of a node next to each other,
  // depths non-decreasing) and each node's depth.
  struct Walk {
    std::vector<int32_t> order;
    std::vector<uint8_t> depth;
    uint8_t max_depth = 0;
  };
  std::vector<Walk> walks(kGroup);
  std::vector<std::vector<uint32_t>> positions(kGroup);
  for (size_t t = 0; t < spec.trees.size(); t += kGroup) {
    const size_t group = std::min(kGroup, spec.trees.size() - t);
    size_t group_nodes = 0;
    uint8_t group_depth = 0;
    for (size_t k = 0; k < group; ++k) {
      const TreeSpec& tree = spec.trees[t + k];
      Walk& walk = walks[k];
      walk.order.assign(1, 0);
      walk.depth.assign(tree.left.size(), 0);
      walk.max_depth = 0;
      for (size_t j = 0; j < walk.order.size(); ++j) {
        const int32_t i = walk.order[j];
        if (tree.left[i] == -1) continue;
        for (int32_t child : {tree.left[i], tree.right[i]}) {
          walk.depth[child] = walk.depth[i] + 1;
          walk.max_depth = std::max(walk.max_depth, walk.depth[child]);
          walk.order.push_back(child);
        }
      }
      group_nodes += walk.order.size();
      group_depth = std::max(group_depth, walk.max_depth);
    }
    // The group's trees are laid out level by level (level 0 of every tree, then level 1, ...):
    // the levels every row visits stay in few cache lines, and the breadth-first order within a
    // level keeps each node's two children adjacent.
    const uint32_t base = static_cast<uint32_t>(f.nodes_.size());
    uint32_t next = base;
    std::vector<size_t> cursor(group, 0);
    for (int d = 0; d <= group_depth; ++d) {
      for (size_t k = 0; k < group; ++k) {
        Walk& walk = walks[k];
        positions[k].resize(spec.trees[t + k].left.size());
        for (size_t& j = cursor[k]; j < walk.order.size() && walk.depth[walk.order[j]] == d; ++j) {
          positions[k][walk.order[j]] = next++;
        }
      }
    }
    f.nodes_.resize(base + group_nodes);
    f.leaf_values_.resize(base + group_nodes, 0.0f);
    f.xgboost_ids_.resize(base + group_nodes);
    f.cover_fractions_.resize(base + group_nodes, 1.0);
    f.mean_values_.resize(base + group_nodes, 0.0);
    for (size_t k = 0; k < group; ++k) {
      const TreeSpec& tree = spec.trees[t + k];
      const Walk& walk = walks[k];
      const std::vector<uint32_t>& position = positions[k];
      for (int32_t i : walk.order) {
        const uint32_t p = position[i];
        f.xgboost_ids_[p] = i;
        if (tree.left[i] == -1) {
          f.nodes_[p] = Node{0, 0, p};
          f.leaf_values_[p] = tree.split_condition[i];
          continue;
        }
        const uint32_t feature = static_cast<uint32_t>(tree.split_index[i]);
        f.nodes_[p] = Node{Key(tree.split_condition[i]),
                           tree.default_left[i] ? n + feature : feature, position[tree.right[i]]};
        // A node without cover (never produced by training) splits its weight evenly rather
        // than dividing by zero.
        const double cover = tree.cover[i];
        for (int32_t child : {tree.left[i], tree.right[i]}) {
          f.cover_fractions_[position[child]] = cover > 0 ? tree.cover[child] / cover : 0.5;
        }
      }
      // Children come after their parent, so a reverse sweep sees both before the parent.
      for (size_t j = walk.order.size(); j-- > 0;) {
        const int32_t i = walk.order[j];
        const uint32_t p = position[i];
        if (tree.left[i] == -1) {
          f.mean_values_[p] = f.leaf_values_[p];
        } else {
          const uint32_t l = f.nodes_[p].right - 1;
          f.mean_values_[p] = f.cover_fractions_[l] * f.mean_values_[l] +
                              f.cover_fractions_[l + 1] * f.mean_values_[l + 1];
        }
      }
      const uint32_t root = position[0];
      f.roots_.push_back(root);
      f.depths_.push_back(walk.max_depth);
      f.max_depth_ = std::max<int>(f.max_depth_, walk.max_depth);
      f.bias_ += f.mean_values_[root];
    }
    f.group_depths_.push_back(group_depth);
  }
  return forest;
}

void Forest::FillKeys(const float* row, uint32_t* keys) const {
  const size_t n = num_features_;
  // Leaves read slot 0; a model without features still needs it defined.
  if (n == 0) keys[0] = 0;
  for (size_t i = 0; i < n; ++i) {
    const float x = row[i];
    const bool missing = std::isnan(x);
    const uint32_t key = Key(x);
    keys[i] = missing ? 0xffffffffu : key;
    keys[n + i] = missing ? 0u : key;
  }
}

float Forest::PredictMargin(const float* row) const {
  uint32_t stack_buffer[2 * kStackFeatures];
  std::vector<uint32_t> heap_buffer;
  uint32_t* buffer = stack_buffer;
  if (num_features_ > kStackFeatures) {
    heap_buffer.resize(2 * num_features_);
    buffer = heap_buffer.data();
  }
  FillKeys(row, buffer);

  const Node* nodes = nodes_.data();
  const float* leaves = leaf_values_.data();
  const size_t num_trees = roots_.size();
  float sum = base_margin_;
  size_t t = 0;
  for (size_t g = 0; t + kGroup <= num_trees; t += kGroup, ++g) {
    uint32_t index[kGroup];
#pragma GCC unroll 8
    for (size_t k = 0; k < kGroup; ++k) index[k] = roots_[t + k];
    for (int s = group_depths_[g]; s > 0; --s) {
#pragma GCC unroll 8
      for (size_t k = 0; k < kGroup; ++k) index[k] = Step(nodes, buffer, index[k]);
    }
#pragma GCC unroll 8
    for (size_t k = 0; k < kGroup; ++k) sum += leaves[index[k]];
  }
  for (; t < num_trees; ++t) {
    uint32_t index = roots_[t];
    for (int s = depths_[t]; s > 0; --s) index = Step(nodes, buffer, index);
    sum += leaves[index];
  }
  return sum;
}

void Forest::PredictMarginBatch(const float* rows, size_t n_rows, float* out) const {
  const size_t n = num_features_;
  const size_t slots = std::max<size_t>(2 * n, 1);
  // Keys of kLanes rows interleaved slot by slot, so lane k of slot s is at s * kLanes + k and
  // one scaled address reaches it. Blocks of rows are walked through one tree at a time, kLanes
  // rows side by side; a block's keys stay in L1 while each tree's nodes are reused.
  const size_t groups_per_block = std::clamp<size_t>(8192 / (slots * kLanes), 1, 16);
  std::vector<uint32_t> row_keys(slots);
  std::vector<uint32_t> lanes(groups_per_block * slots * kLanes);
  const Node* nodes = nodes_.data();
  const float* leaves = leaf_values_.data();
  for (size_t begin = 0; begin < n_rows; begin += groups_per_block * kLanes) {
    const size_t m = std::min(groups_per_block * kLanes, n_rows - begin);
    const size_t groups = (m + kLanes - 1) / kLanes;
    for (size_t r = 0; r < groups * kLanes; ++r) {
      // Short last group: repeat its first row; those lanes are computed but not stored.
      const size_t source = r < m ? r : (r / kLanes) * kLanes;
      FillKeys(rows + (begin + source) * n, row_keys.data());
      uint32_t* group = lanes.data() + (r / kLanes) * slots * kLanes;
      for (size_t s = 0; s < slots; ++s) group[s * kLanes + r % kLanes] = row_keys[s];
    }
    float sums[16 * kLanes];
    for (size_t r = 0; r < groups * kLanes; ++r) sums[r] = base_margin_;
    for (size_t t = 0; t < roots_.size(); ++t) {
      const uint32_t root = roots_[t];
      const int steps = depths_[t];
      for (size_t g = 0; g < groups; ++g) {
        const uint32_t* keys = lanes.data() + g * slots * kLanes;
        uint32_t index[kLanes];
#pragma GCC unroll 8
        for (size_t k = 0; k < kLanes; ++k) index[k] = root;
        for (int s = steps; s > 0; --s) {
#pragma GCC unroll 8
          for (size_t k = 0; k < kLanes; ++k) {
            const Node& node = nodes[index[k]];
            index[k] = node.right - static_cast<uint32_t>(keys[node.slot * kLanes + k] < node.key);
          }
        }
        float* group_sums = sums + g * kLanes;
#pragma GCC unroll 8
        for (size_t k = 0; k < kLanes; ++k) group_sums[k] += leaves[index[k]];
      }
    }
    for (size_t r = 0; r < m; ++r) out[begin + r] = sums[r];
  }
}

void Forest::PredictLeaves(const float* row, int32_t* out) const {
  std::vector<uint32_t> buffer(std::max<size_t>(2 * num_features_, 1));
  FillKeys(row, buffer.data());
  for (size_t t = 0; t < roots_.size(); ++t) {
    uint32_t index = roots_[t];
    for (int s = depths_[t]; s > 0; --s) index = Step(nodes_.data(), buffer.data(), index);
    out[t] = xgboost_ids_[index];
  }
}

void Forest::ExplainTreeShap(const float* row, double* contributions) const {
  TreeShap(*this, row, contributions);
}

void Forest::ExplainSaabas(const float* row, double* contributions) const {
  Saabas(*this, row, contributions);
}

}  // namespace verdict::model
