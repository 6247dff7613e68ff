// Synthetic graph shapes for the scheduler's tests and overhead benchmark:
// a chain, independent tasks, and random layered DAGs.
#pragma once

#include <cstdint>
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "graph.hpp"

namespace tiledqr::taskgraph {

struct GraphShape {
  int32_t tasks = 0;
  std::vector<std::pair<int32_t, int32_t>> edges;  // (before, after)
};

// 0 → 1 → … → n−1.
inline GraphShape chain_shape(int32_t n) {
  GraphShape s;
  s.tasks = n;
  for (int32_t t = 1; t < n; ++t) s.edges.emplace_back(t - 1, t);
  return s;
}

// n tasks, no edges.
inline GraphShape independent_shape(int32_t n) {
  GraphShape s;
  s.tasks = n;
  return s;
}

// n tasks in `layers` layers of (nearly) equal size; each task after the
// first layer has 1 … max_preds predecessors, drawn from the previous layer
// (and, one time in four, from any earlier layer).
inline GraphShape layered_random_shape(int32_t n, int32_t layers, int max_preds, uint64_t seed) {
  GraphShape s;
  s.tasks = n;
  if (n == 0) return s;
  if (layers < 1) layers = 1;
  if (layers > n) layers = n;
  std::mt19937_64 engine(seed);
  const auto layer_start = [n, layers](int32_t l) { return int32_t(int64_t(n) * l / layers); };
  for (int32_t l = 1; l < layers; ++l) {
    const int32_t prev_first = layer_start(l - 1), first = layer_start(l), end = layer_start(l + 1);
    for (int32_t t = first; t < end; ++t) {
      const int preds = 1 + int(engine() % uint64_t(max_preds));
      int32_t drawn[64];
      int distinct = 0;
      for (int k = 0; k < preds && k < 64; ++k) {
        const bool far = engine() % 4 == 0;
        const int32_t lo = far ? 0 : prev_first;
        const int32_t p = lo + int32_t(engine() % uint64_t(first - lo));
        // A predecessor drawn twice is one edge (a CUDA graph refuses duplicates).
        if (std::find(drawn, drawn + distinct, p) != drawn + distinct) continue;
        drawn[distinct++] = p;
        s.edges.emplace_back(p, t);
      }
    }
  }
  return s;
}

// A Graph of `shape` whose tasks get kinds 0 … num_kinds−1 at random
// (kinds named "k0", "k1", …, all warp kinds) and empty arguments.
inline Graph graph_of_shape(const GraphShape& shape, int num_kinds, uint64_t seed) {
  Graph g;
  for (int k = 0; k < num_kinds; ++k) g.define_kind(k, "k" + std::to_string(k));
  std::mt19937_64 engine(seed);
  struct NoArgs {};
  for (int32_t t = 0; t < shape.tasks; ++t) g.add(int32_t(engine() % uint64_t(num_kinds)), NoArgs{});
  for (const auto& e : shape.edges) g.add_edge(e.first, e.second);
  return g;
}

}  // namespace tiledqr::taskgraph
