#include "model/saabas.h"

#include <cmath>
#include <vector>

namespace verdict::model {

void Saabas(const Forest& forest, const float* row, double* contributions) {
  const size_t n = forest.num_features();
  std::vector<uint32_t> keys(std::max<size_t>(2 * n, 1));
  forest.FillKeys(row, keys.data());
  for (size_t i = 0; i <= n; ++i) contributions[i] = 0;
  const Forest::Node* nodes = forest.nodes().data();
  const double* mean = forest.mean_values().data();
  for (uint32_t index : forest.roots()) {
    while (!forest.IsLeaf(index)) {
      const Forest::Node& node = nodes[index];
      const uint32_t next = Forest::Next(node, keys.data());
      contributions[node.slot >= n ? node.slot - n : node.slot] += mean[next] - mean[index];
      index = next;
    }
  }
  contributions[n] = forest.bias();
}

}  // namespace verdict::model
