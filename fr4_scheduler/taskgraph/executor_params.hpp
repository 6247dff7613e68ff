// The persistent executor's kernel parameters (one struct, passed by value
// as a __grid_constant__) and its per-task trace record.
#pragma once

#include <cstdint>

#include "scheduler_core.hpp"
#include "task_args.hpp"

namespace tiledqr::taskgraph {

// One executed task: %globaltimer at start and end (ns), and the warp that
// ran it (global warp index; the claiming warp for a block task).
struct TraceEvent {
  int64_t start_ns;
  int64_t end_ns;
  int32_t worker;
  int32_t unused;
};

struct ExecutorParams {
  SchedulerView view;
  const TaskArgs* args = nullptr;  // (num_tasks)
  TraceEvent* trace = nullptr;     // (num_tasks), or null: no trace
  int32_t warps_per_block = 0;
  int32_t scratch_bytes_per_warp = 0;  // multiple of 16
  bool has_block_tasks = false;
  int32_t test_absent_worker = -1;  // ExecOptions::test_absent_worker
  RunParams run_params;
};

}  // namespace tiledqr::taskgraph
