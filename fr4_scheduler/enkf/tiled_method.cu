// The "tiled" method: the row-block × column-block tasks of the EnKF report
// ("ECE 408 final report") and a reduction (tiled_plan.hpp), run as one task
// graph through the scheduler's public API (Graph, GraphExec, params_of,
// scratch_of).
#include <cuda_runtime.h>

#include "gpu_methods.hpp"
#include "taskgraph/graph_exec.cuh"
#include "tiled_kinds.cuh"
#include "tiled_plan.hpp"

namespace tiledqr::enkf {

namespace {

// The graph: per row block and m-block, the block's accumulation tasks
// (one per chunk) precede its reduction task. Accumulation tasks have no
// predecessors, so all of them are ready at the start.
taskgraph::Graph tiled_graph(const TiledPlan& plan) {
  taskgraph::Graph g;
  g.define_kind(kind_accumulate, "accumulate");
  g.define_kind(kind_reduce, "reduce");
  for (int64_t rb = 0; rb < plan.row_blocks; ++rb) {
    const int32_t row_begin = static_cast<int32_t>(rb * rows_per_task);
    for (int32_t b = 0; b < plan.m_blocks; ++b) {
      taskgraph::TaskHandle reduce = g.add(kind_reduce, ReduceArgs{row_begin, b});
      for (int32_t c = plan.block_chunks[size_t(b)]; c < plan.block_chunks[size_t(b) + 1]; ++c)
        g.add(kind_accumulate, AccumulateArgs{row_begin, c}).precede(reduce);
    }
  }
  return g;
}

taskgraph::ExecOptions tiled_exec_options() {
  taskgraph::ExecOptions options;
  options.warps_per_block = 4;
  options.scratch_bytes_per_warp = int(sizeof(double)) * h_rows_per_block * rows_per_task;
  // A task of a large problem may run for a while; a genuine stall still ends.
  options.stall_timeout_seconds = 60;
  return options;
}

class TiledMethod : public GpuMethod {
 public:
  explicit TiledMethod(const DeviceProblem& problem)
      : plan_(make_tiled_plan(problem.host().h)),
        union_col_(plan_.union_col, "cudaMalloc (union columns)"),
        union_nz_(plan_.union_nz, "cudaMalloc (union nonzero offsets)"),
        nz_row_(plan_.nz_row, "cudaMalloc (nonzero rows)"),
        nz_value_(plan_.nz_value, "cudaMalloc (nonzero values)"),
        chunks_(plan_.chunks, "cudaMalloc (chunks)"),
        block_chunks_(plan_.block_chunks, "cudaMalloc (block chunks)"),
        partial_(size_t(plan_.partial_doubles), "cudaMalloc (partial sums)"),
        exec_(tiled_graph(plan_), tiled_exec_options()) {
    // In TiledParams's order (tiled_kinds.cuh): the problem, the plan's
    // arrays on the device, the output and the sizes.
    params_ = TiledParams{problem.diagonals(), problem.e(), problem.e_rows(),
                          union_col_.data(), union_nz_.data(), nz_row_.data(), nz_value_.data(),
                          chunks_.data(), block_chunks_.data(), partial_.data(),
                          problem.out(),
                          problem.n(), static_cast<int32_t>(problem.m()), static_cast<int32_t>(problem.l()),
                          1.0 / double(problem.l() - 1)};
  }

  void launch(cudaStream_t stream) override {
    const taskgraph::Status s = exec_.launch(params_, stream);
    if (!s.ok()) throw GpuError(std::string("tiled: the task-graph launch failed: ") + s.message);
  }

  void finish(cudaStream_t) override {
    const taskgraph::Status s = exec_.wait();
    if (!s.ok()) throw GpuError(std::string("tiled: the task-graph run failed: ") + s.message);
  }

 private:
  TiledPlan plan_;
  DeviceArray<int32_t> union_col_, union_nz_, nz_row_;
  DeviceArray<double> nz_value_;
  DeviceArray<TiledChunk> chunks_;
  DeviceArray<int32_t> block_chunks_;
  DeviceArray<double> partial_;
  taskgraph::GraphExec<TiledKinds> exec_;
  TiledParams params_{};
};

}  // namespace

std::unique_ptr<GpuMethod> make_tiled_method(const DeviceProblem& problem) {
  return std::make_unique<TiledMethod>(problem);
}

}  // namespace tiledqr::enkf
