#include "model/tree_shap.h"

#include <cmath>
#include <vector>

#include "model/gauss_legendre.h"

namespace verdict::model {
namespace {

// The contribution of a leaf with value v to a feature i on its path, where the path's distinct
// features j have z_j (share of training cover following the path's edges on j) and o_j (1 when
// the row follows all of them, else 0), is
//   v (o_i - z_i) sum_{S within the others} |S|! (d-|S|-1)! / d! prod_S o_j prod_rest z_j.
// That Shapley weight is the Beta integral of t^|S| (1-t)^(d-1-|S|), so the sum equals
//   v (o_i - z_i) integral_0^1 G(t) / a_i(t) dt,  G(t) = prod_j a_j(t),  a_j = z_j + (o_j - z_j) t,
// a polynomial of degree d - 1: ceil(depth / 2) Gauss-Legendre points integrate it exactly.
// Everything is carried as values at those points. Going down, G picks up one factor per edge;
// coming up, each edge credits its feature with (o - z) / a times the sum of v G over the leaves
// below it, minus those below a deeper split on the same feature (which credit the feature
// with their own merged z and o): O(nodes * points) per tree instead of the paper's
// O(leaves * depth^2).

// Values at the quadrature points travel in chunks of two doubles (GCC/Clang vector
// extensions: one SSE2 register on baseline x86-64); points beyond the rule's
// count have weight 0 and t = 1/2, so they add nothing and never divide by zero.
typedef double Chunk __attribute__((vector_size(16)));
constexpr int kChunkPoints = 2;
constexpr int kMaxChunks = (kMaxQuadraturePoints + kChunkPoints - 1) / kChunkPoints;

struct Element {
  double zero;
  double one;
  Chunk* owner;  // where deeper splits on this feature return the leaf sums they take over
  bool active;   // the feature is on the current path
};

struct Walk {
  const Forest::Node* nodes;
  const float* leaves;
  const double* fractions;
  const uint32_t* keys;
  uint32_t num_features;
  double* phi;
  int chunks;
  Chunk t[kMaxChunks];
  Chunk w[kMaxChunks];
  Chunk cold[kMaxChunks];  // -w / (1 - t): the weighted ratio (o - z) / a of a cold edge
  Element* elements;       // per feature
};

inline double Total(Chunk c) { return c[0] + c[1]; }

// kChunks: the chunk count as a compile-time constant for trees up to depth 32, so that the
// loops unroll and stay in registers; kMaxChunks: walk.chunks at run time.
// Adds the credits of the subtree below the split `index` and computes s, the subtree's sum of
// v G at each point, given g.
template <int kChunks>
void Descend(Walk& walk, uint32_t index, const Chunk* __restrict g, Chunk* __restrict s) {
  const int chunks = kChunks < kMaxChunks ? kChunks : walk.chunks;
  const Forest::Node& node = walk.nodes[index];
  Chunk sum[kChunks];
  for (int c = 0; c < chunks; ++c) sum[c] = Chunk{};
  const uint32_t feature =
      node.slot >= walk.num_features ? node.slot - walk.num_features : node.slot;
  const uint32_t hot = Forest::Next(node, walk.keys);
  Element& element = walk.elements[feature];
  const Element saved = element;
  for (uint32_t child = node.right - 1; child <= node.right; ++child) {
    double zero = walk.fractions[child];
    double one = child == hot ? 1.0 : 0.0;
    if (saved.active) {
      // A feature seen again merges into its element (the paper's UNWIND, then EXTEND).
      zero *= saved.zero;
      one *= saved.one;
    }
    // Both weights zero: every leaf below has G = 0 and adds nothing anywhere.
    if (zero == 0 && one == 0) continue;
    Chunk factor[kChunks];
    Chunk child_g[kChunks];
    Chunk child_s[kChunks];
    Chunk taken[kChunks];
    for (int c = 0; c < chunks; ++c) {
      factor[c] = zero + (one - zero) * walk.t[c];
      child_g[c] = g[c] * factor[c];
    }
    if (saved.active) {
      // The old factor is positive on (0, 1): its element was not pruned.
      for (int c = 0; c < chunks; ++c) {
        child_g[c] /= saved.zero + (saved.one - saved.zero) * walk.t[c];
      }
    }
    if (walk.nodes[child].right == child) {
      const double v = walk.leaves[child];
      for (int c = 0; c < chunks; ++c) {
        child_s[c] = v * child_g[c];
        taken[c] = Chunk{};
      }
    } else {
      for (int c = 0; c < chunks; ++c) taken[c] = Chunk{};
      element = Element{zero, one, taken, true};
      Descend<kChunks>(walk, child, child_g, child_s);
      element = saved;
    }
    if (saved.active) {
      for (int c = 0; c < chunks; ++c) saved.owner[c] += child_s[c];
    }
    Chunk credit{};
    if (one == 0) {
      // (o - z) / a = -z / (z (1 - t)): no division needed.
      for (int c = 0; c < chunks; ++c) credit += walk.cold[c] * (child_s[c] - taken[c]);
    } else {
      for (int c = 0; c < chunks; ++c) {
        credit += walk.w[c] * (child_s[c] - taken[c]) / factor[c];
      }
      credit *= one - zero;
    }
    for (int c = 0; c < chunks; ++c) sum[c] += child_s[c];
    walk.phi[feature] += Total(credit);
  }
  for (int c = 0; c < chunks; ++c) s[c] = sum[c];
}

template <int kChunks>
void ExplainTree(Walk& walk, uint32_t root) {
  Chunk g[kChunks];
  Chunk s[kChunks];
  for (int c = 0; c < walk.chunks; ++c) g[c] = Chunk{1, 1};
  Descend<kChunks>(walk, root, g, s);
}

}  // namespace

void TreeShap(const Forest& forest, const float* row, double* contributions) {
  const size_t n = forest.num_features();
  for (size_t i = 0; i <= n; ++i) contributions[i] = 0;
  std::vector<uint32_t> keys(std::max<size_t>(2 * n, 1));
  forest.FillKeys(row, keys.data());
  std::vector<Element> elements(n, Element{0, 0, nullptr, false});
  Walk walk;
  walk.nodes = forest.nodes().data();
  walk.leaves = forest.leaf_values().data();
  walk.fractions = forest.cover_fractions().data();
  walk.keys = keys.data();
  walk.num_features = static_cast<uint32_t>(n);
  walk.phi = contributions;
  walk.elements = elements.data();
  int current_points = 0;
  for (size_t tree = 0; tree < forest.num_trees(); ++tree) {
    const int depth = forest.depths()[tree];
    if (depth == 0) continue;  // a lone leaf: all of it is bias
    const int points = (depth + 1) / 2;
    if (points != current_points) {
      const Quadrature& q = GaussLegendre01(points);
      walk.chunks = (points + kChunkPoints - 1) / kChunkPoints;
      for (int k = 0; k < walk.chunks * kChunkPoints; ++k) {
        const double t = k < points ? q.nodes[k] : 0.5;
        const double w = k < points ? q.weights[k] : 0.0;
        walk.t[k / kChunkPoints][k % kChunkPoints] = t;
        walk.w[k / kChunkPoints][k % kChunkPoints] = w;
        walk.cold[k / kChunkPoints][k % kChunkPoints] = -w / (1 - t);
      }
      current_points = points;
    }
    const uint32_t root = forest.roots()[tree];
    switch (walk.chunks) {
      case 1:
        ExplainTree<1>(walk, root);
        break;
      case 2:
        ExplainTree<2>(walk, root);
        break;
      case 3:
        ExplainTree<3>(walk, root);
        break;
      case 4:
        ExplainTree<4>(walk, root);
        break;
      case 5:
        ExplainTree<5>(walk, root);
        break;
      case 6:
        ExplainTree<6>(walk, root);
        break;
      case 7:
        ExplainTree<7>(walk, root);
        break;
      case 8:
        ExplainTree<8>(walk, root);
        break;
      default:
        ExplainTree<kMaxChunks>(walk, root);
        break;
    }
  }
  contributions[n] = forest.bias();
}

}  // namespace verdict::model
