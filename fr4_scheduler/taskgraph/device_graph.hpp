// The non-template part of an instantiated graph: device buffers uploaded
// once (from a compiled Graph or a stream of chunks in the device layout),
// the launch shape, the cooperative launch and the host watchdog.
// GraphExec<Kinds> (graph_exec.cuh) adds only the kernel for its kinds.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "device_layout.hpp"
#include "executor_params.hpp"
#include "graph.hpp"

namespace tiledqr::taskgraph {

struct ExecOptions {
  int warps_per_block = 4;         // workers per block (a block task gets all of them)
  int blocks_per_sm = 0;           // 0: as many as fit (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
  int max_blocks = 0;              // 0: no cap; else at most this many blocks in all
  int scratch_bytes_per_warp = 0;  // shared memory per warp for the kinds (rounded up to 16)
  bool trace = false;              // record a TraceEvent per task
  double stall_timeout_seconds = 10;  // no task finished for this long: abort the run
  // Test hook: this worker (warp index) returns at once, as if its warp had
  // never started. Graphs with block kinds refuse it (a block task needs
  // every warp of its block).
  int test_absent_worker = -1;
  // Set by GraphExec for kinds that are all block kinds (block_executor.cuh):
  // a worker is a whole block, so there are `blocks` workers.
  bool workers_are_blocks = false;
};

// What run() / wait() report. The message carries the CUDA error text or
// the watchdog's finding.
struct Status {
  enum class Code { ok, stalled, device_error, refused, invalid };
  Code code = Code::ok;
  std::string message;

  bool ok() const { return code == Code::ok; }
  static Status failure(Code code, const std::string& message) { return Status{code, message}; }
};

const char* status_code_name(Status::Code code);

struct LaunchShape {
  std::string device_name;
  int multiprocessors = 0;
  int blocks_per_sm = 0;     // from the occupancy calculator (or ExecOptions)
  int blocks = 0;
  int warps_per_block = 0;
  int workers = 0;           // warps in all (blocks, for block-only kinds)
  size_t shared_bytes = 0;   // dynamic shared memory per block
};

// Number of GPUs (0 when none, or no driver).
int gpu_count();

class DeviceGraph {
 public:
  // Uploads `graph` and sizes the launch of `kernel` (a
  // persistent_executor<Kinds>). Throws GpuError when there is no GPU, the
  // graph's device arrays (device_graph_arrays) do not fit in the free
  // device memory (before allocating any) or a CUDA call fails; GraphError
  // when the stream breaks its contract (ChunkChecker). A launch that cannot
  // be co-resident is refused by launch() instead, with the reason.
  DeviceGraph(const LayoutStream& graph, const ExecOptions& options, const void* kernel);
  DeviceGraph(const CompiledGraph& graph, const ExecOptions& options, const void* kernel);
  ~DeviceGraph();
  DeviceGraph(const DeviceGraph&) = delete;
  DeviceGraph& operator=(const DeviceGraph&) = delete;

  // The launch a DeviceGraph of `kernel` with `options` would make on the
  // current GPU (its worker count sizes the ready ring); `refusal`, when
  // given, receives why it could not be co-resident ("" when it can).
  // Throws InputError for bad options, GpuError without a GPU.
  static LaunchShape plan_launch(const ExecOptions& options, const void* kernel, std::string* refusal = nullptr);

  // Enqueues one run on `stream` (reset, changed arguments, the kernel).
  Status launch(const RunParams& params, cudaStream_t stream);
  // Waits for the launched run under the watchdog.
  Status wait();
  Status run(const RunParams& params, cudaStream_t stream) {
    const Status s = launch(params, stream);
    return s.ok() ? wait() : s;
  }

  // Replaces task `task`'s argument block from the next launch on.
  void set_args(int32_t task, const TaskArgs& args);
  // The trace of the last run (ExecOptions::trace), one event per task.
  std::vector<TraceEvent> trace() const;

  const LaunchShape& shape() const { return shape_; }
  int32_t num_tasks() const { return num_tasks_; }

  // For tests of the watchdog: task `task` waits for one predecessor more
  // than it has in the next run, so that run stalls.
  void add_phantom_predecessor_for_testing(int32_t task);

 private:
  void upload_chunks(const LayoutStream& graph);
  void release() noexcept;

  const void* kernel_ = nullptr;
  ExecOptions options_;
  LaunchShape shape_;
  std::string refusal_;  // why a launch cannot be co-resident, if it cannot
  int32_t num_tasks_ = 0;
  int32_t num_roots_ = 0;
  int32_t num_classes_ = 1;
  ExpressCounts express_tasks_{};  // the express rings' capacities, after the ticket ring in slots_
  bool has_block_tasks_ = false;
  std::map<int32_t, TaskArgs> pending_args_;  // set_args since the last launch
  std::vector<TaskArgs> staged_args_;         // their values, read by the last launch's copies
  uint32_t epoch_ = 0;
  bool needs_full_reset_ = false;
  bool running_ = false;
  bool wedged_ = false;  // a run did not stop after an abort
  cudaEvent_t done_ = nullptr;

  // Device arrays, sized by device_graph_arrays.
  TaskHeader* headers_ = nullptr;
  uint32_t* succs_ = nullptr;
  int32_t* roots_ = nullptr;
  int32_t* remaining_ = nullptr;
  int32_t* initial_remaining_ = nullptr;  // copied over remaining_ after a failed run
  unsigned long long* slots_ = nullptr;
  int64_t slot_count_ = 0;
  RunCounters* counters_ = nullptr;
  TaskArgs* args_ = nullptr;
  TraceEvent* trace_ = nullptr;
  Watch* watch_host_ = nullptr;    // host-mapped
  Watch* watch_device_ = nullptr;  // its device address
};

}  // namespace tiledqr::taskgraph
