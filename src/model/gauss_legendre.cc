#include "model/gauss_legendre.h"

#include <cmath>
#include <numbers>
#include <vector>

namespace verdict::model {
namespace {

struct Table {
  std::vector<double> nodes;
  std::vector<double> weights;
  Quadrature quadrature;
};

// Roots of the Legendre polynomial P_m by Newton's method from the usual cosine guesses,
// then mapped from [-1, 1] to [0, 1].
void Build(int m, Table* table) {
  table->nodes.resize(m);
  table->weights.resize(m);
  for (int i = 0; i < m; ++i) {
    double x = std::cos(std::numbers::pi * (i + 0.75) / (m + 0.5));
    double derivative = 1;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p_prev = 1;
      double p = x;
      for (int k = 2; k <= m; ++k) {
        const double p_next = ((2 * k - 1) * x * p - (k - 1) * p_prev) / k;
        p_prev = p;
        p = p_next;
      }
      derivative = m * (x * p - p_prev) / (x * x - 1);
      const double step = p / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) break;
    }
    table->nodes[i] = (1 + x) / 2;
    table->weights[i] = 1 / ((1 - x * x) * derivative * derivative);
  }
  table->quadrature = Quadrature{table->nodes.data(), table->weights.data(), m};
}

}  // namespace

const Quadrature& GaussLegendre01(int points) {
  static const std::vector<Table>* const tables = [] {
    auto* built = new std::vector<Table>(kMaxQuadraturePoints + 1);
    for (int m = 1; m <= kMaxQuadraturePoints; ++m) Build(m, &(*built)[m]);
    return built;
  }();
  return (*tables)[points].quadrature;
}

}  // namespace verdict::model
