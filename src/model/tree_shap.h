// Exact path-dependent TreeSHAP (Lundberg, Erion and Lee, "Consistent individualized feature
// attribution for tree ensembles", 2018) over a compiled Forest. Stateless; thread-safe.
#pragma once

#include "model/forest.h"

namespace verdict::model {

// contributions: num_features() + 1 entries, overwritten; the last is the bias (the expected
// margin). Each tree's share of a leaf's value is distributed as the paper's Algorithm 2 does,
// but each leaf's Shapley weights are summed by exact Gauss-Legendre quadrature of the
// equivalent integral instead of by EXTEND/UNWIND (see docs/model.md).
void TreeShap(const Forest& forest, const float* row, double* contributions);

}  // namespace verdict::model
