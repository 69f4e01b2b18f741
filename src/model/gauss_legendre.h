// Gauss-Legendre quadrature on [0, 1]: `points` nodes integrate any polynomial of degree up to
// 2 * points - 1 exactly. Tables are built once on first use; thread-safe.
#pragma once

namespace verdict::model {

struct Quadrature {
  const double* nodes;
  const double* weights;
  int points;
};

inline constexpr int kMaxQuadraturePoints = 80;

// 1 <= points <= kMaxQuadraturePoints.
const Quadrature& GaussLegendre01(int points);

}  // namespace verdict::model
