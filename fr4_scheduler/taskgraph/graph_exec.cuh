// An instantiated graph (docs/design.md §9), like a CUDA graph exec: uploaded once,
// run many times, each run with its own parameter block; argument blocks
// may be replaced between runs.
//
//   GraphExec<MyKinds> exec(graph);                  // compile + upload
//   Status s = exec.run(MyParams{d_x, d_y});         // launch + wait
//   if (!s.ok()) std::cerr << s.message << "\n";
//   exec.launch(MyParams{d_x2, d_y2}, stream);       // or split the two,
//   s = exec.wait();                                 // e.g. around events
#pragma once

#include "device_graph.hpp"
#include "graph.hpp"
#include "block_executor.cuh"
#include "persistent_executor.cuh"

namespace tiledqr::taskgraph {

template <class Kinds>
class GraphExec {
 public:
  // Uploads `graph`. Throws GraphError (bad graph) or GpuError (no GPU, a
  // failed CUDA call).
  explicit GraphExec(const CompiledGraph& graph, const ExecOptions& options = ExecOptions{})
      : device_(checked(graph), with_worker_shape(options), kernel()) {}
  explicit GraphExec(const Graph& graph, const ExecOptions& options = ExecOptions{})
      : GraphExec(graph.compile(), options) {}
  // Uploads a graph given in the device layout, chunk by chunk (for graphs
  // too large to build as a Graph; device_layout.hpp).
  explicit GraphExec(const LayoutStream& graph, const ExecOptions& options = ExecOptions{})
      : device_(graph, with_worker_shape(options), kernel()) {}

  // The launch this executor would make with `options` on the current GPU
  // (e.g. its worker count, to size the device memory before uploading).
  static LaunchShape launch_shape(const ExecOptions& options = ExecOptions{}) {
    return DeviceGraph::plan_launch(with_worker_shape(options), kernel());
  }

  // Runs every task once and waits (under the watchdog).
  Status run(cudaStream_t stream = 0) { return device_.run(RunParams{}, stream); }
  template <class P>
  Status run(const P& params, cudaStream_t stream = 0) {
    return device_.run(RunParams::of(params), stream);
  }

  // Enqueues a run without waiting; wait() must follow before the next launch.
  Status launch(cudaStream_t stream = 0) { return device_.launch(RunParams{}, stream); }
  template <class P>
  Status launch(const P& params, cudaStream_t stream = 0) {
    return device_.launch(RunParams::of(params), stream);
  }
  Status wait() { return device_.wait(); }

  // Replaces task `task`'s arguments from the next run on.
  //   exec.set_args(t.id(), ScaleArgs{new_ptr, 2.0});
  template <class A>
  void set_args(int32_t task, const A& args) {
    device_.set_args(task, TaskArgs::of(args));
  }

  std::vector<TraceEvent> trace() const { return device_.trace(); }
  const LaunchShape& shape() const { return device_.shape(); }
  int32_t num_tasks() const { return device_.num_tasks(); }
  DeviceGraph& device_graph() { return device_; }

 private:
  DeviceGraph device_;

  // Kinds that are all block kinds run on the block executor.
  static constexpr bool block_only = BlockOnlyKinds<Kinds>::value;
  static const void* kernel() {
    if constexpr (block_only) return reinterpret_cast<const void*>(&block_executor<Kinds>);
    else return reinterpret_cast<const void*>(&persistent_executor<Kinds>);
  }
  static ExecOptions with_worker_shape(ExecOptions options) {
    options.workers_are_blocks = block_only;
    return options;
  }
  static const CompiledGraph& checked(const CompiledGraph& graph) {
    if (block_only)
      for (const Team t : graph.team)
        if (t != Team::block) throw GraphError("these kinds run block tasks only, but the graph has a warp task");
    return graph;
  }
};

}  // namespace tiledqr::taskgraph
