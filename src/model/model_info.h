// What `verdict model info` prints about a loaded Forest, as text or JSON. Stateless;
// thread-safe.
#pragma once

#include <string>

#include "model/forest.h"

namespace verdict::model {

// Lines of "key: value": trees, max depth, nodes, features (count and names), objective,
// base score, sha256.
std::string DescribeText(const Forest& forest);
// One JSON object with the same facts: {"trees":..,"max_depth":..,"nodes":..,
// "num_features":..,"features":[..],"objective":..,"base_score":..,"sha256":..}.
std::string DescribeJson(const Forest& forest);

}  // namespace verdict::model
