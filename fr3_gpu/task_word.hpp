// A flat-tree task in one queue item (task_queue.hpp items are 63 bits): kind
// in bits 0–2, k in 3–22, i in 23–42, j in 43–62. The pivot row is implied: k
// for tsqrt/tsmqr (the flat tree merges into the diagonal tile's row), i
// otherwise. Kind 7 is the null task that ends an executor ("Task-Based
// Scheduling Implementing Tiled Linear Algebra on GPUs", §II.D).
#pragma once

#include <cstdint>

#include "host_device.hpp"
#include "task.hpp"

namespace tiledqr::gpu {

constexpr int task_index_bits = 20;
constexpr int32_t max_tile_count = int32_t(1) << task_index_bits;  // p and q must be below it
constexpr uint64_t null_task_word = 7;

TILEDQR_HOST_DEVICE inline uint64_t pack_task(const Task& t) {
  const uint64_t field = (uint64_t(1) << task_index_bits) - 1;
  return uint64_t(t.kind) | (uint64_t(t.k) & field) << 3 |
         (uint64_t(t.i) & field) << (3 + task_index_bits) |
         (uint64_t(t.j) & field) << (3 + 2 * task_index_bits);
}

TILEDQR_HOST_DEVICE inline Task unpack_task(uint64_t word) {
  const uint64_t field = (uint64_t(1) << task_index_bits) - 1;
  Task t;
  t.kind = TaskKind(word & 7);
  t.k = int32_t((word >> 3) & field);
  t.i = int32_t((word >> (3 + task_index_bits)) & field);
  t.j = int32_t((word >> (3 + 2 * task_index_bits)) & field);
  const bool merge = t.kind == TaskKind::tsqrt || t.kind == TaskKind::tsmqr ||
                     t.kind == TaskKind::ttqrt || t.kind == TaskKind::ttmqr;
  t.piv = merge ? t.k : t.i;
  return t;
}

// tsqrt and tsmqr are the "double" tasks, of two tiles (the GPU tiled-QR
// paper, §II.D item 4).
TILEDQR_HOST_DEVICE inline bool is_double_task(TaskKind kind) {
  return kind == TaskKind::tsqrt || kind == TaskKind::tsmqr || kind == TaskKind::ttqrt ||
         kind == TaskKind::ttmqr;
}

}  // namespace tiledqr::gpu
