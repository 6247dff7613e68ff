// A task of the tiled QR algorithm (tile kernel → task → executor:
// docs/design.md §1). Indices are tile coordinates.
#pragma once

#include <cstdint>

#include "host_device.hpp"

namespace tiledqr {

enum class TaskKind : uint8_t {
  geqrt,  // factor tile (i, k); i == k in the flat tree
  ormqr,  // apply geqrt(i, k)'s Qᵀ to tile (i, j)
  tsqrt,  // merge tile (i, k) into the triangle of tile (piv, k)
  tsmqr,  // apply tsqrt(i, k)'s Qᵀ to tiles (piv, j) and (i, j)
  ttqrt,  // merge the triangle of tile (i, k) into the triangle of (piv, k)
  ttmqr,  // apply ttqrt(i, k)'s Qᵀ to tiles (piv, j) and (i, j)
};

struct Task {
  TaskKind kind = TaskKind::geqrt;
  int32_t k = 0;    // step (tile column being eliminated)
  int32_t i = 0;    // tile row written (and factored, for geqrt/tsqrt/ttqrt)
  int32_t j = 0;    // tile column written
  int32_t piv = 0;  // tile row that tile row i is merged into (ts/tt kinds); i otherwise
};

TILEDQR_HOST_DEVICE inline bool is_factorization(TaskKind kind) {
  return kind == TaskKind::geqrt || kind == TaskKind::tsqrt || kind == TaskKind::ttqrt;
}

TILEDQR_HOST_DEVICE inline bool operator==(const Task& a, const Task& b) {
  return a.kind == b.kind && a.k == b.k && a.i == b.i && a.j == b.j && a.piv == b.piv;
}

const char* task_kind_name(TaskKind kind);

}  // namespace tiledqr
