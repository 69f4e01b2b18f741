#include "model/xgboost_json_loader.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace verdict::model {
namespace {

namespace od = simdjson::ondemand;

Status JsonError(simdjson::error_code error, std::string_view where) {
  return InvalidArgument(
      "model JSON: " + std::string(where) + ": " + simdjson::error_message(error),
      std::string(where));
}

Status Invalid(std::string message, std::string_view where) {
  return InvalidArgument("model JSON: " + std::string(where) + ": " + message, std::string(where));
}

// Returns from the enclosing function when a simdjson call fails.
#define VERDICT_JSON_TRY(expr, where)                             \
  do {                                                            \
    if (simdjson::error_code json_error_ = (expr); json_error_) { \
      return JsonError(json_error_, where);                       \
    }                                                             \
  } while (false)

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' ||
                           text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

// Parses the decimal text straight to float, correctly rounded as XGBoost's own reader does
// (going through double could round twice).
bool ParseFloatText(std::string_view text, float* out) {
  if (text.empty() || !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9'))) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

Status ReadFloat(od::value& value, float* out, std::string_view where) {
  od::json_type type;
  VERDICT_JSON_TRY(value.type().get(type), where);
  if (type != od::json_type::number) return Invalid("expected a number", where);
  if (!ParseFloatText(TrimRight(value.raw_json_token()), out)) {
    return Invalid("number out of float range", where);
  }
  return Status::Ok();
}

Status ReadFloatArray(od::value& value, std::vector<float>* out, std::string_view where) {
  od::array array;
  VERDICT_JSON_TRY(value.get_array().get(array), where);
  out->clear();
  for (auto element : array) {
    od::value item;
    VERDICT_JSON_TRY(element.get(item), where);
    if (out->size() >= kMaxNodesPerTree) return Invalid("array too long", where);
    float f = 0;
    VERDICT_RETURN_IF_ERROR(ReadFloat(item, &f, where));
    out->push_back(f);
  }
  return Status::Ok();
}

Status ReadIntArray(od::value& value, std::vector<int32_t>* out, std::string_view where) {
  od::array array;
  VERDICT_JSON_TRY(value.get_array().get(array), where);
  out->clear();
  for (auto element : array) {
    od::value item;
    VERDICT_JSON_TRY(element.get(item), where);
    if (out->size() >= kMaxNodesPerTree) return Invalid("array too long", where);
    int64_t i = 0;
    VERDICT_JSON_TRY(item.get_int64().get(i), where);
    if (i < INT32_MIN || i > INT32_MAX) return Invalid("integer out of range", where);
    out->push_back(static_cast<int32_t>(i));
  }
  return Status::Ok();
}

// XGBoost 1.7 writes default_left as 0/1; older writers used booleans.
Status ReadFlagArray(od::value& value, std::vector<uint8_t>* out, std::string_view where) {
  od::array array;
  VERDICT_JSON_TRY(value.get_array().get(array), where);
  out->clear();
  for (auto element : array) {
    od::value item;
    VERDICT_JSON_TRY(element.get(item), where);
    if (out->size() >= kMaxNodesPerTree) return Invalid("array too long", where);
    od::json_type type;
    VERDICT_JSON_TRY(item.type().get(type), where);
    if (type == od::json_type::boolean) {
      bool b = false;
      VERDICT_JSON_TRY(item.get_bool().get(b), where);
      out->push_back(b ? 1 : 0);
    } else {
      int64_t i = 0;
      VERDICT_JSON_TRY(item.get_int64().get(i), where);
      if (i != 0 && i != 1) return Invalid("expected 0 or 1", where);
      out->push_back(static_cast<uint8_t>(i));
    }
  }
  return Status::Ok();
}

Status ReadStringArray(od::value& value, std::vector<std::string>* out, std::string_view where) {
  od::array array;
  VERDICT_JSON_TRY(value.get_array().get(array), where);
  out->clear();
  for (auto element : array) {
    std::string_view s;
    VERDICT_JSON_TRY(element.get_string().get(s), where);
    if (out->size() >= kMaxFeatures) return Invalid("array too long", where);
    out->emplace_back(s);
  }
  return Status::Ok();
}

// Counts the elements of an array that must be empty for a supported model.
Status ReadArrayLength(od::value& value, size_t* length, std::string_view where) {
  od::array array;
  VERDICT_JSON_TRY(value.get_array().get(array), where);
  VERDICT_JSON_TRY(array.count_elements().get(*length), where);
  return Status::Ok();
}

// XGBoost writes the scalar parameters as strings ("num_feature": "40").
Status ReadStringParam(od::value& value, std::string* out, std::string_view where) {
  std::string_view s;
  VERDICT_JSON_TRY(value.get_string().get(s), where);
  *out = std::string(s);
  return Status::Ok();
}

Status ParseUnsigned(const std::string& text, uint64_t limit, uint64_t* out,
                     std::string_view where) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Invalid("expected an unsigned integer, got '" + text + "'", where);
  }
  if (*out > limit) return Invalid("value " + text + " is too large", where);
  return Status::Ok();
}

// What the file says, before the checks that need the whole picture.
struct RawModel {
  std::string booster;
  std::string objective;
  std::string base_score;
  std::string num_class = "0";
  std::string num_target = "1";
  std::string num_feature;
  std::string num_parallel_tree = "1";
  std::string size_leaf_vector = "0";
  std::vector<std::string> feature_names;
  std::vector<std::string> feature_types;
  std::vector<int32_t> tree_info;
  bool has_trees = false;
  std::vector<TreeSpec> trees;
  std::vector<std::string> tree_num_nodes;
};

Status ParseTree(od::value& value, RawModel* raw, std::string_view where) {
  od::object object;
  VERDICT_JSON_TRY(value.get_object().get(object), where);
  TreeSpec tree;
  std::string num_nodes;
  for (auto field_result : object) {
    od::field field;
    VERDICT_JSON_TRY(std::move(field_result).get(field), where);
    std::string_view key;
    VERDICT_JSON_TRY(field.unescaped_key().get(key), where);
    od::value& v = field.value();
    if (key == "left_children") {
      VERDICT_RETURN_IF_ERROR(ReadIntArray(v, &tree.left, "trees[].left_children"));
    } else if (key == "right_children") {
      VERDICT_RETURN_IF_ERROR(ReadIntArray(v, &tree.right, "trees[].right_children"));
    } else if (key == "split_indices") {
      VERDICT_RETURN_IF_ERROR(ReadIntArray(v, &tree.split_index, "trees[].split_indices"));
    } else if (key == "split_conditions") {
      VERDICT_RETURN_IF_ERROR(ReadFloatArray(v, &tree.split_condition, "trees[].split_conditions"));
    } else if (key == "default_left") {
      VERDICT_RETURN_IF_ERROR(ReadFlagArray(v, &tree.default_left, "trees[].default_left"));
    } else if (key == "sum_hessian") {
      VERDICT_RETURN_IF_ERROR(ReadFloatArray(v, &tree.cover, "trees[].sum_hessian"));
    } else if (key == "split_type") {
      std::vector<int32_t> split_type;
      VERDICT_RETURN_IF_ERROR(ReadIntArray(v, &split_type, "trees[].split_type"));
      for (int32_t t : split_type) {
        if (t != 0) return Invalid("categorical splits are not supported", "trees[].split_type");
      }
    } else if (key == "categories_nodes") {
      size_t n = 0;
      VERDICT_RETURN_IF_ERROR(ReadArrayLength(v, &n, "trees[].categories_nodes"));
      if (n != 0) {
        return Invalid("categorical splits are not supported", "trees[].categories_nodes");
      }
    } else if (key == "tree_param") {
      od::object param;
      VERDICT_JSON_TRY(v.get_object().get(param), "trees[].tree_param");
      for (auto param_result : param) {
        od::field p;
        VERDICT_JSON_TRY(std::move(param_result).get(p), "trees[].tree_param");
        std::string_view name;
        VERDICT_JSON_TRY(p.unescaped_key().get(name), "trees[].tree_param");
        if (name == "num_nodes") {
          VERDICT_RETURN_IF_ERROR(
              ReadStringParam(p.value(), &num_nodes, "trees[].tree_param.num_nodes"));
        } else if (name == "size_leaf_vector") {
          std::string size;
          VERDICT_RETURN_IF_ERROR(
              ReadStringParam(p.value(), &size, "trees[].tree_param.size_leaf_vector"));
          if (size != "0" && size != "1") {
            return Invalid("vector leaves (multi-target trees) are not supported",
                           "trees[].tree_param.size_leaf_vector");
          }
        }
      }
    }
  }
  raw->trees.push_back(std::move(tree));
  raw->tree_num_nodes.push_back(std::move(num_nodes));
  return Status::Ok();
}

Status ParseGbtreeModel(od::value& value, RawModel* raw) {
  od::object object;
  VERDICT_JSON_TRY(value.get_object().get(object), "gradient_booster.model");
  for (auto field_result : object) {
    od::field field;
    VERDICT_JSON_TRY(std::move(field_result).get(field), "gradient_booster.model");
    std::string_view key;
    VERDICT_JSON_TRY(field.unescaped_key().get(key), "gradient_booster.model");
    od::value& v = field.value();
    if (key == "trees") {
      od::array trees;
      VERDICT_JSON_TRY(v.get_array().get(trees), "gradient_booster.model.trees");
      raw->has_trees = true;
      raw->trees.clear();
      raw->tree_num_nodes.clear();
      for (auto tree_result : trees) {
        od::value tree;
        VERDICT_JSON_TRY(std::move(tree_result).get(tree), "gradient_booster.model.trees");
        if (raw->trees.size() >= kMaxTrees) return Invalid("too many trees", "trees");
        VERDICT_RETURN_IF_ERROR(ParseTree(tree, raw, "gradient_booster.model.trees[]"));
      }
    } else if (key == "tree_info") {
      VERDICT_RETURN_IF_ERROR(ReadIntArray(v, &raw->tree_info, "gradient_booster.model.tree_info"));
    } else if (key == "gbtree_model_param") {
      od::object param;
      VERDICT_JSON_TRY(v.get_object().get(param), "gbtree_model_param");
      for (auto param_result : param) {
        od::field p;
        VERDICT_JSON_TRY(std::move(param_result).get(p), "gbtree_model_param");
        std::string_view name;
        VERDICT_JSON_TRY(p.unescaped_key().get(name), "gbtree_model_param");
        if (name == "num_parallel_tree") {
          VERDICT_RETURN_IF_ERROR(ReadStringParam(p.value(), &raw->num_parallel_tree,
                                                  "gbtree_model_param.num_parallel_tree"));
        } else if (name == "size_leaf_vector") {
          VERDICT_RETURN_IF_ERROR(ReadStringParam(p.value(), &raw->size_leaf_vector,
                                                  "gbtree_model_param.size_leaf_vector"));
        }
      }
    }
  }
  return Status::Ok();
}

Status ParseLearner(od::value& value, RawModel* raw) {
  od::object object;
  VERDICT_JSON_TRY(value.get_object().get(object), "learner");
  for (auto field_result : object) {
    od::field field;
    VERDICT_JSON_TRY(std::move(field_result).get(field), "learner");
    std::string_view key;
    VERDICT_JSON_TRY(field.unescaped_key().get(key), "learner");
    od::value& v = field.value();
    if (key == "feature_names") {
      VERDICT_RETURN_IF_ERROR(ReadStringArray(v, &raw->feature_names, "learner.feature_names"));
    } else if (key == "feature_types") {
      VERDICT_RETURN_IF_ERROR(ReadStringArray(v, &raw->feature_types, "learner.feature_types"));
    } else if (key == "gradient_booster") {
      od::object booster;
      VERDICT_JSON_TRY(v.get_object().get(booster), "learner.gradient_booster");
      for (auto booster_field_result : booster) {
        od::field booster_field;
        VERDICT_JSON_TRY(std::move(booster_field_result).get(booster_field),
                         "learner.gradient_booster");
        std::string_view booster_key;
        VERDICT_JSON_TRY(booster_field.unescaped_key().get(booster_key),
                         "learner.gradient_booster");
        if (booster_key == "name") {
          VERDICT_RETURN_IF_ERROR(ReadStringParam(booster_field.value(), &raw->booster,
                                                  "learner.gradient_booster.name"));
        } else if (booster_key == "model") {
          VERDICT_RETURN_IF_ERROR(ParseGbtreeModel(booster_field.value(), raw));
        }
      }
    } else if (key == "learner_model_param") {
      od::object param;
      VERDICT_JSON_TRY(v.get_object().get(param), "learner.learner_model_param");
      for (auto param_result : param) {
        od::field p;
        VERDICT_JSON_TRY(std::move(param_result).get(p), "learner.learner_model_param");
        std::string_view name;
        VERDICT_JSON_TRY(p.unescaped_key().get(name), "learner.learner_model_param");
        std::string* target = nullptr;
        if (name == "base_score") target = &raw->base_score;
        if (name == "num_class") target = &raw->num_class;
        if (name == "num_target") target = &raw->num_target;
        if (name == "num_feature") target = &raw->num_feature;
        if (target != nullptr) {
          VERDICT_RETURN_IF_ERROR(
              ReadStringParam(p.value(), target, "learner.learner_model_param"));
        }
      }
    } else if (key == "objective") {
      od::object objective;
      VERDICT_JSON_TRY(v.get_object().get(objective), "learner.objective");
      for (auto objective_field_result : objective) {
        od::field objective_field;
        VERDICT_JSON_TRY(std::move(objective_field_result).get(objective_field),
                         "learner.objective");
        std::string_view objective_key;
        VERDICT_JSON_TRY(objective_field.unescaped_key().get(objective_key), "learner.objective");
        if (objective_key == "name") {
          VERDICT_RETURN_IF_ERROR(
              ReadStringParam(objective_field.value(), &raw->objective, "learner.objective.name"));
        }
      }
    }
  }
  return Status::Ok();
}

// Checks one tree's structure: sizes agree, children are in range, and a walk from the root
// reaches each node at most once within kMaxTreeDepth levels. Sets *largest_leaf to the largest
// |value| of the leaves that walk reaches (unreachable, deleted nodes are dropped).
Status CheckTree(const TreeSpec& tree, const std::string& num_nodes_text, size_t num_features,
                 size_t index, double* largest_leaf) {
  *largest_leaf = 0;
  const std::string where = "gradient_booster.model.trees[" + std::to_string(index) + "]";
  uint64_t num_nodes = 0;
  VERDICT_RETURN_IF_ERROR(
      ParseUnsigned(num_nodes_text, kMaxNodesPerTree, &num_nodes, where + ".tree_param.num_nodes"));
  if (num_nodes == 0) return Invalid("a tree needs at least one node", where);
  const size_t n = num_nodes;
  if (tree.left.size() != n || tree.right.size() != n || tree.split_index.size() != n ||
      tree.split_condition.size() != n || tree.default_left.size() != n || tree.cover.size() != n) {
    return Invalid("node arrays must all have num_nodes = " + std::to_string(n) +
                       " entries (left_children, right_children, split_indices, "
                       "split_conditions, default_left, sum_hessian)",
                   where);
  }
  std::vector<int32_t> depth(n, -1);
  std::vector<int32_t> stack = {0};
  depth[0] = 0;
  while (!stack.empty()) {
    const int32_t i = stack.back();
    stack.pop_back();
    const std::string node = where + ".node[" + std::to_string(i) + "]";
    if (!std::isfinite(tree.split_condition[i])) {
      return Invalid("split condition or leaf value is not finite", node);
    }
    if (!std::isfinite(tree.cover[i]) || tree.cover[i] < 0) {
      return Invalid("sum_hessian must be finite and non-negative", node);
    }
    if (tree.left[i] == -1) {
      if (tree.right[i] != -1) return Invalid("a leaf has a right child", node);
      *largest_leaf = std::max(*largest_leaf, std::abs(double{tree.split_condition[i]}));
      continue;
    }
    if (tree.split_index[i] < 0 || static_cast<size_t>(tree.split_index[i]) >= num_features) {
      return Invalid("split index " + std::to_string(tree.split_index[i]) +
                         " is not below num_feature " + std::to_string(num_features),
                     node);
    }
    if (depth[i] + 1 > kMaxTreeDepth) {
      return Invalid("tree deeper than " + std::to_string(kMaxTreeDepth) + " levels", where);
    }
    for (int32_t child : {tree.left[i], tree.right[i]}) {
      if (child <= 0 || static_cast<size_t>(child) >= n) {
        return Invalid("child index " + std::to_string(child) + " out of range", node);
      }
      if (depth[child] != -1) {
        return Invalid(
            "node " + std::to_string(child) + " is reached twice (a cycle or a shared child)",
            node);
      }
      depth[child] = depth[i] + 1;
      stack.push_back(child);
    }
  }
  return Status::Ok();
}

Result<ModelSpec> Check(RawModel raw) {
  if (raw.booster.empty()) return Invalid("missing", "learner.gradient_booster.name");
  if (raw.booster != "gbtree") {
    return Invalid("booster '" + raw.booster + "' is not supported (only gbtree)",
                   "learner.gradient_booster.name");
  }
  if (raw.objective.empty()) return Invalid("missing", "learner.objective.name");
  ModelSpec spec;
  VERDICT_ASSIGN_OR_RETURN(spec.objective, ParseObjective(raw.objective));
  uint64_t num_class = 0;
  VERDICT_RETURN_IF_ERROR(
      ParseUnsigned(raw.num_class, 1u << 20, &num_class, "learner.learner_model_param.num_class"));
  if (num_class > 1) {
    return Invalid("multi-class models (num_class=" + raw.num_class + ") are not supported",
                   "learner.learner_model_param.num_class");
  }
  uint64_t num_target = 0;
  VERDICT_RETURN_IF_ERROR(ParseUnsigned(raw.num_target, 1u << 20, &num_target,
                                        "learner.learner_model_param.num_target"));
  if (num_target > 1) {
    return Invalid("multi-target models (num_target=" + raw.num_target + ") are not supported",
                   "learner.learner_model_param.num_target");
  }
  if (raw.size_leaf_vector != "0" && raw.size_leaf_vector != "1") {
    return Invalid("vector leaves (multi-target trees) are not supported",
                   "gbtree_model_param.size_leaf_vector");
  }
  uint64_t num_parallel_tree = 0;
  VERDICT_RETURN_IF_ERROR(ParseUnsigned(raw.num_parallel_tree, kMaxTrees, &num_parallel_tree,
                                        "gbtree_model_param.num_parallel_tree"));
  if (raw.num_feature.empty()) return Invalid("missing", "learner.learner_model_param.num_feature");
  uint64_t num_features = 0;
  VERDICT_RETURN_IF_ERROR(ParseUnsigned(raw.num_feature, kMaxFeatures, &num_features,
                                        "learner.learner_model_param.num_feature"));
  spec.num_features = num_features;
  if (raw.base_score.empty()) return Invalid("missing", "learner.learner_model_param.base_score");
  if (!ParseFloatText(raw.base_score, &spec.base_score)) {
    return Invalid("base_score '" + raw.base_score + "' is not a number",
                   "learner.learner_model_param.base_score");
  }
  VERDICT_RETURN_IF_ERROR(BaseMargin(spec.objective, spec.base_score).status());

  for (const std::string& type : raw.feature_types) {
    if (type == "c") {
      return Invalid("categorical features are not supported", "learner.feature_types");
    }
  }
  if (raw.feature_names.empty()) {
    for (size_t i = 0; i < spec.num_features; ++i) {
      spec.feature_names.push_back("f" + std::to_string(i));
    }
  } else if (raw.feature_names.size() != spec.num_features) {
    return Invalid("has " + std::to_string(raw.feature_names.size()) + " names for " +
                       std::to_string(spec.num_features) + " features",
                   "learner.feature_names");
  } else {
    spec.feature_names = std::move(raw.feature_names);
  }

  if (!raw.has_trees) return Invalid("missing", "learner.gradient_booster.model.trees");
  if (raw.tree_info.size() != raw.trees.size()) {
    return Invalid("must have one entry per tree", "gradient_booster.model.tree_info");
  }
  for (int32_t group : raw.tree_info) {
    if (group != 0) {
      return Invalid("trees for more than one output group (multi-class) are not supported",
                     "gradient_booster.model.tree_info");
    }
  }
  size_t total_nodes = 0;
  // The margin is summed in float, tree by tree: leaves that could add up beyond the float range
  // would score some input as infinite (NaN after an opposite infinity), a score with no JSON
  // form and no meaning to a policy's threshold. Each leaf is finite on its own (CheckTree);
  // the sum is bounded by each tree's largest |leaf|, with room for the float sums' rounding.
  double margin_bound =
      std::abs(static_cast<double>(BaseMargin(spec.objective, spec.base_score).value()));
  for (size_t t = 0; t < raw.trees.size(); ++t) {
    double largest_leaf = 0;
    VERDICT_RETURN_IF_ERROR(
        CheckTree(raw.trees[t], raw.tree_num_nodes[t], spec.num_features, t, &largest_leaf));
    margin_bound += largest_leaf;
    total_nodes += raw.trees[t].left.size();
    if (total_nodes > kMaxTotalNodes) return Invalid("too many nodes in all", "trees");
  }
  if (margin_bound > std::numeric_limits<float>::max() / 2) {
    return Invalid(
        "leaf values could add up to more than a float holds (the score would be infinite for "
        "some input)",
        "gradient_booster.model.trees");
  }
  spec.trees = std::move(raw.trees);
  return spec;
}

}  // namespace

Result<ModelSpec> ParseXGBoostJson(std::string_view json) {
  if (json.size() > kMaxModelBytes) {
    return InvalidArgument("model JSON: larger than " + std::to_string(kMaxModelBytes) + " bytes");
  }
  simdjson::padded_string padded(json.data(), json.size());
  od::parser parser;
  od::document doc;
  VERDICT_JSON_TRY(parser.iterate(padded).get(doc), "document");
  od::object root;
  VERDICT_JSON_TRY(doc.get_object().get(root), "document");
  RawModel raw;
  bool has_learner = false;
  for (auto field_result : root) {
    od::field field;
    VERDICT_JSON_TRY(std::move(field_result).get(field), "document");
    std::string_view key;
    VERDICT_JSON_TRY(field.unescaped_key().get(key), "document");
    if (key == "learner") {
      has_learner = true;
      VERDICT_RETURN_IF_ERROR(ParseLearner(field.value(), &raw));
    }
  }
  // Past the last token the location is out of bounds; anything else is trailing content.
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
    return Invalid("trailing content after the model object", "document");
  }
  if (!has_learner) return Invalid("missing", "learner");
  return Check(std::move(raw));
}

}  // namespace verdict::model
