// Test-only: a tiny hand-written XGBoost 1.7 JSON model whose every path is known.
//   node 0: amount < 0.5 (missing: left)  -> node 1: leaf -1
//                                         -> node 2: velocity < 2 (missing: right)
//                                               -> node 3: leaf 0.25, node 4: leaf 2
// Covers 10 / 4 / 6 / 2 / 4; binary:logistic with base_score 0.5, so the base margin is 0.
#pragma once

namespace verdict::model::testing {

inline constexpr char kHandBuiltModel[] =
    R"({"learner":{"attributes":{},"feature_names":["amount","velocity"],"feature_types":[],)"
    R"("gradient_booster":{"model":{"gbtree_model_param":{"num_parallel_tree":"1",)"
    R"("num_trees":"1","size_leaf_vector":"0"},"tree_info":[0],"trees":[{"base_weights":)"
    R"([0,0,0,0,0],"categories":[],"categories_nodes":[],"categories_segments":[],)"
    R"("categories_sizes":[],"default_left":[1,0,0,0,0],"id":0,"left_children":)"
    R"([1,-1,3,-1,-1],"loss_changes":[0,0,0,0,0],"parents":[2147483647,0,0,2,2],)"
    R"("right_children":[2,-1,4,-1,-1],"split_conditions":[5E-1,-1E0,2E0,2.5E-1,2E0],)"
    R"("split_indices":[0,0,1,0,0],"split_type":[0,0,0,0,0],"sum_hessian":[1E1,4E0,6E0,)"
    R"(2E0,4E0],"tree_param":{"num_deleted":"0","num_feature":"2","num_nodes":"5",)"
    R"("size_leaf_vector":"0"}}]},"name":"gbtree"},"learner_model_param":{"base_score":)"
    R"("5E-1","boost_from_average":"1","num_class":"0","num_feature":"2","num_target":"1"},)"
    R"("objective":{"name":"binary:logistic","reg_loss_param":{"scale_pos_weight":"1"}}},)"
    R"("version":[1,7,4]})";

}  // namespace verdict::model::testing
