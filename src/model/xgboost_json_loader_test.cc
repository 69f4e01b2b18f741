#include "model/xgboost_json_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/forest.h"

namespace verdict::model {
namespace {

using ::testing::HasSubstr;

// One tree in XGBoost 1.7's JSON layout; fields are raw JSON so tests can break any of them.
struct TreeParts {
  std::string left = "[1,-1,-1]";
  std::string right = "[2,-1,-1]";
  std::string split_indices = "[0,0,0]";
  std::string split_conditions = "[5E-1,-1E0,2E0]";
  std::string default_left = "[1,0,0]";
  std::string sum_hessian = "[1E1,4E0,6E0]";
  std::string split_type = "[0,0,0]";
  std::string categories_nodes = "[]";
  std::string num_nodes = "3";

  std::string Render() const {
    return "{\"base_weights\":[0,0,0],\"categories\":[],\"categories_nodes\":" + categories_nodes +
           ",\"categories_segments\":[],\"categories_sizes\":[],\"default_left\":" + default_left +
           ",\"id\":0,\"left_children\":" + left +
           ",\"loss_changes\":[0,0,0],\"parents\":[2147483647,0,0],\"right_children\":" + right +
           ",\"split_conditions\":" + split_conditions + ",\"split_indices\":" + split_indices +
           ",\"split_type\":" + split_type + ",\"sum_hessian\":" + sum_hessian +
           ",\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"2\",\"num_nodes\":\"" +
           num_nodes + "\",\"size_leaf_vector\":\"0\"}}";
  }
};

struct ModelParts {
  std::vector<TreeParts> trees = {TreeParts{}};
  std::string tree_info;  // default: one 0 per tree
  std::string booster = "gbtree";
  std::string objective = "binary:logistic";
  std::string base_score = "5E-1";
  std::string num_class = "0";
  std::string num_feature = "2";
  std::string feature_names = "[\"amount\",\"velocity\"]";
  std::string feature_types = "[]";

  std::string Render() const {
    std::string tree_list;
    std::string info;
    for (const TreeParts& t : trees) {
      tree_list += (tree_list.empty() ? "" : ",") + t.Render();
      info += info.empty() ? "0" : ",0";
    }
    return "{\"learner\":{\"attributes\":{},\"feature_names\":" + feature_names +
           ",\"feature_types\":" + feature_types +
           ",\"gradient_booster\":{\"model\":{\"gbtree_model_param\":{\"num_parallel_tree\":\"1\","
           "\"num_trees\":\"" +
           std::to_string(trees.size()) + "\",\"size_leaf_vector\":\"0\"},\"tree_info\":[" +
           (tree_info.empty() ? info : tree_info) + "],\"trees\":[" + tree_list + "]},\"name\":\"" +
           booster + "\"},\"learner_model_param\":{\"base_score\":\"" + base_score +
           "\",\"boost_from_average\":\"1\",\"num_class\":\"" + num_class +
           "\",\"num_feature\":\"" + num_feature +
           "\",\"num_target\":\"1\"},\"objective\":{\"name\":\"" + objective +
           "\",\"reg_loss_param\":{\"scale_pos_weight\":\"1\"}}},\"version\":[1,7,4]}";
  }
};

std::string ErrorOf(const std::string& json) {
  Result<ModelSpec> spec = ParseXGBoostJson(json);
  EXPECT_FALSE(spec.ok()) << "accepted: " << json.substr(0, 200);
  return spec.ok() ? "" : spec.status().message();
}

TEST(XGBoostJsonLoader, ReadsAValidModel) {
  Result<ModelSpec> spec = ParseXGBoostJson(ModelParts{}.Render());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->objective, Objective::kBinaryLogistic);
  EXPECT_EQ(spec->num_features, 2u);
  EXPECT_EQ(spec->feature_names, (std::vector<std::string>{"amount", "velocity"}));
  ASSERT_EQ(spec->trees.size(), 1u);
  EXPECT_EQ(spec->trees[0].split_condition[0], 0.5f);
  EXPECT_EQ(spec->trees[0].default_left[0], 1);
}

TEST(XGBoostJsonLoader, NamesFeaturesLikeXGBoostWhenTheFileHasNone) {
  ModelParts parts;
  parts.feature_names = "[]";
  Result<ModelSpec> spec = ParseXGBoostJson(parts.Render());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->feature_names, (std::vector<std::string>{"f0", "f1"}));
}

TEST(XGBoostJsonLoader, ParsesThresholdsStraightToFloat) {
  // Just above the midpoint of 1 and the next float: through double it would land on the
  // midpoint and round (to even) down to 1; parsed directly it rounds up, as XGBoost does.
  ModelParts parts;
  parts.trees[0].split_conditions = "[1.0000000596046447753906251,-1E0,2E0]";
  Result<ModelSpec> spec = ParseXGBoostJson(parts.Render());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->trees[0].split_condition[0], std::nextafter(1.0f, 2.0f));
}

TEST(XGBoostJsonLoader, RefusesUnsupportedModelsByName) {
  ModelParts dart;
  dart.booster = "dart";
  EXPECT_THAT(ErrorOf(dart.Render()), HasSubstr("booster 'dart' is not supported"));
  ModelParts linear;
  linear.booster = "gblinear";
  EXPECT_THAT(ErrorOf(linear.Render()), HasSubstr("booster 'gblinear' is not supported"));
  ModelParts multi;
  multi.num_class = "3";
  multi.objective = "multi:softprob";
  EXPECT_THAT(ErrorOf(multi.Render()), HasSubstr("objective 'multi:softprob'"));
  multi.objective = "binary:logistic";
  EXPECT_THAT(ErrorOf(multi.Render()), HasSubstr("multi-class models (num_class=3)"));
  ModelParts groups;
  groups.tree_info = "1";
  EXPECT_THAT(ErrorOf(groups.Render()), HasSubstr("multi-class"));
  ModelParts categorical;
  categorical.trees[0].split_type = "[1,0,0]";
  EXPECT_THAT(ErrorOf(categorical.Render()), HasSubstr("categorical splits are not supported"));
  ModelParts categories;
  categories.trees[0].categories_nodes = "[0]";
  EXPECT_THAT(ErrorOf(categories.Render()), HasSubstr("categorical splits are not supported"));
  ModelParts types;
  types.feature_types = "[\"float\",\"c\"]";
  EXPECT_THAT(ErrorOf(types.Render()), HasSubstr("categorical features are not supported"));
  ModelParts ranking;
  ranking.objective = "rank:pairwise";
  EXPECT_THAT(ErrorOf(ranking.Render()), HasSubstr("unsupported objective 'rank:pairwise'"));
}

TEST(XGBoostJsonLoader, RefusesBadJson) {
  const std::string good = ModelParts{}.Render();
  EXPECT_THAT(ErrorOf(""), HasSubstr("model JSON"));
  EXPECT_THAT(ErrorOf("not json"), HasSubstr("model JSON"));
  EXPECT_THAT(ErrorOf("[1,2,3]"), HasSubstr("model JSON"));
  EXPECT_THAT(ErrorOf("{}"), HasSubstr("learner: missing"));
  EXPECT_THAT(ErrorOf(good + "{}"), HasSubstr("trailing content"));
  EXPECT_THAT(ErrorOf(std::string(100000, '[')), HasSubstr("model JSON"));
  // Every truncation of a valid model fails cleanly.
  for (size_t length = 0; length < good.size(); ++length) {
    EXPECT_FALSE(ParseXGBoostJson(good.substr(0, length)).ok()) << length;
  }
}

TEST(XGBoostJsonLoader, RefusesBrokenTrees) {
  const auto tree_error = [](auto mutate) {
    ModelParts parts;
    mutate(parts.trees[0]);
    return ErrorOf(parts.Render());
  };
  // A cycle: node 2 points back at node 1.
  EXPECT_THAT(tree_error([](TreeParts& t) {
                t.left = "[1,-1,1]";
                t.right = "[2,-1,1]";
              }),
              HasSubstr("reached twice"));
  // A shared child.
  EXPECT_THAT(tree_error([](TreeParts& t) { t.right = "[1,-1,-1]"; }), HasSubstr("reached twice"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.left = "[0,-1,-1]"; }), HasSubstr("out of range"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.right = "[7,-1,-1]"; }), HasSubstr("out of range"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.right = "[-5,-1,-1]"; }), HasSubstr("out of range"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.right = "[2,-1,4]"; }),
              HasSubstr("a leaf has a right child"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.left = "[1,-1]"; }),
              HasSubstr("node arrays must all have num_nodes"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.num_nodes = "99999999999999"; }),
              HasSubstr("too large"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.num_nodes = "0"; }), HasSubstr("at least one"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.split_indices = "[2,0,0]"; }),
              HasSubstr("split index 2 is not below num_feature 2"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.split_indices = "[-1,0,0]"; }),
              HasSubstr("split index -1"));
  // JSON has no NaN; a writer that emits one produces invalid JSON, refused by the parser.
  EXPECT_THAT(tree_error([](TreeParts& t) { t.split_conditions = "[NaN,-1E0,2E0]"; }),
              HasSubstr("model JSON"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.split_conditions = "[1e60,-1E0,2E0]"; }),
              HasSubstr("out of float range"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.split_conditions = "[\"0.5\",-1E0,2E0]"; }),
              HasSubstr("expected a number"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.sum_hessian = "[-1,4E0,6E0]"; }),
              HasSubstr("sum_hessian"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.default_left = "[2,0,0]"; }),
              HasSubstr("expected 0 or 1"));
  EXPECT_THAT(tree_error([](TreeParts& t) { t.left = "[1.5,-1,-1]"; }), HasSubstr("left_children"));
}

// Each leaf is a finite float, but three of these add up to infinity: such a model would score
// some input as infinite (JSON null, and over every policy threshold).
TEST(XGBoostJsonLoader, RefusesLeavesThatCouldSumBeyondTheFloatRange) {
  ModelParts parts;
  parts.objective = "reg:squarederror";
  parts.trees[0].split_conditions = "[5E-1,-1E0,1.5E38]";
  ASSERT_TRUE(ParseXGBoostJson(parts.Render()).ok());  // one such leaf is fine
  parts.trees.push_back(parts.trees[0]);
  parts.trees.push_back(parts.trees[0]);
  EXPECT_THAT(ErrorOf(parts.Render()), HasSubstr("more than a float holds"));
  Result<ModelSpec> refused = ParseXGBoostJson(parts.Render());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().field(), "gradient_booster.model.trees");

  // A deleted node (unreachable from the root, dropped) does not count, however large.
  ModelParts deleted;
  deleted.objective = "reg:squarederror";
  TreeParts tree;
  tree.left = "[1,-1,-1,-1]";
  tree.right = "[2,-1,-1,-1]";
  tree.split_indices = "[0,0,0,0]";
  tree.split_conditions = "[5E-1,-1E0,2E0,3E38]";
  tree.default_left = "[1,0,0,0]";
  tree.sum_hessian = "[1E1,4E0,6E0,0]";
  tree.split_type = "[0,0,0,0]";
  tree.num_nodes = "4";
  deleted.trees = {tree, tree, tree};
  Result<ModelSpec> kept = ParseXGBoostJson(deleted.Render());
  EXPECT_TRUE(kept.ok()) << kept.status().ToString();
}

TEST(XGBoostJsonLoader, RefusesTreesDeeperThanTheLimit) {
  // A chain of kMaxTreeDepth + 1 splits: node 2k splits into leaf 2k+1 and node 2k+2.
  const int splits = kMaxTreeDepth + 1;
  const int n = 2 * splits + 1;
  TreeParts t;
  std::string left, right, idx, cond, dl, hess;
  for (int i = 0; i < n; ++i) {
    const bool split = i % 2 == 0 && i < n - 1;
    left += (i ? "," : "") + std::to_string(split ? i + 1 : -1);
    right += (i ? "," : "") + std::to_string(split ? i + 2 : -1);
    idx += i ? ",0" : "0";
    cond += i ? ",1" : "1";
    dl += i ? ",0" : "0";
    hess += i ? ",1" : "1";
  }
  t.left = "[" + left + "]";
  t.right = "[" + right + "]";
  t.split_indices = "[" + idx + "]";
  t.split_conditions = "[" + cond + "]";
  t.default_left = "[" + dl + "]";
  t.sum_hessian = "[" + hess + "]";
  t.num_nodes = std::to_string(n);
  ModelParts parts;
  parts.trees = {t};
  EXPECT_THAT(ErrorOf(parts.Render()), HasSubstr("deeper than 128"));
}

TEST(XGBoostJsonLoader, RefusesBadParameters) {
  ModelParts logistic_base;
  logistic_base.base_score = "1.5";
  EXPECT_THAT(ErrorOf(logistic_base.Render()), HasSubstr("base_score must be in (0, 1)"));
  ModelParts bad_base;
  bad_base.base_score = "abc";
  EXPECT_THAT(ErrorOf(bad_base.Render()), HasSubstr("is not a number"));
  ModelParts names;
  names.feature_names = "[\"only_one\"]";
  EXPECT_THAT(ErrorOf(names.Render()), HasSubstr("1 names for 2 features"));
  ModelParts features;
  features.num_feature = "99999999999";
  EXPECT_THAT(ErrorOf(features.Render()), HasSubstr("too large"));
  ModelParts info;
  info.tree_info = "0,0";
  EXPECT_THAT(ErrorOf(info.Render()), HasSubstr("one entry per tree"));
}

TEST(Forest, LoadReportsTheLoaderError) {
  auto forest = Forest::LoadXGBoostJson("{\"learner\":7}");
  ASSERT_FALSE(forest.ok());
  EXPECT_EQ(forest.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(forest.status().message(), HasSubstr("learner"));
}

}  // namespace
}  // namespace verdict::model
