// What the task-graph QR runs for one choice of tile kernels: the
// factorisation's task graph (from the closed form, qr_graph.hpp) and the
// graphs applying Q or Qᵀ, uploaded
// for one kinds type — the warp kinds (tiles of 32) or the block kinds of
// one tile NB and inner block IB (docs/design.md §8). Fr4Factorization
// holds one behind Fr4Runner<T>; each block configuration is instantiated
// in its own .cu (fr4_block_runners_*.cu), so nvcc compiles them in parallel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "elimination_tree.hpp"
#include "errors.hpp"
#include "gpu/qr_storage.hpp"
#include "options.hpp"
#include "qr_graph.hpp"
#include "qr_kinds.cuh"
#include "taskgraph/graph_exec.cuh"

namespace tiledqr::gpu {

namespace qr_detail {

inline void define_qr_kinds(Graph& g, Team team) {
  for (const TaskKind k : {TaskKind::geqrt, TaskKind::ormqr, TaskKind::tsqrt, TaskKind::tsmqr,
                           TaskKind::ttqrt, TaskKind::ttmqr})
    g.define_kind(int32_t(k), task_kind_name(k), team);
}

// The graph applying Qᵀ (transpose) or Q to `column_tiles` tile columns of
// a matrix with p tile rows: per panel, the factorisation's eliminations
// in order (reversed for Q), each as an update task per tile column; edges
// come from the tiles each task writes.
inline Graph qr_apply_graph(int32_t p, int32_t q, Tree tree, int32_t domains, Team team, bool transpose,
                            int32_t column_tiles) {
  Graph g;
  define_qr_kinds(g, team);
  const int32_t steps = std::min(p, q);
  for (int32_t s = 0; s < steps; ++s) {
    const int32_t k = transpose ? s : steps - 1 - s;
    std::vector<Elimination> plan = panel_eliminations(p, k, tree, domains, Tree::flat);
    if (!transpose) std::reverse(plan.begin(), plan.end());
    for (const Elimination& e : plan)
      for (int32_t j = 0; j < column_tiles; ++j) {
        const Task t = update_task(e, k, j);
        TaskHandle h = g.add(int32_t(t.kind), QrTaskArgs{t, transpose ? 1 : 0});
        h.writes(int64_t(t.i) + int64_t(j) * p);
        if (t.kind != TaskKind::ormqr) h.writes(int64_t(t.piv) + int64_t(j) * p);
      }
  }
  return g;
}

inline void throw_on_failure(const Status& s, const char* what) {
  if (s.ok()) return;
  const std::string text = std::string(what) + ": " + s.message;
  if (s.code == Status::Code::stalled) throw StallError(text);
  throw GpuError(text);
}

}  // namespace qr_detail

// The graph runs of one kinds type, on the tiles and T factors of `storage`.
template <typename T>
class Fr4Runner {
 public:
  virtual ~Fr4Runner() = default;
  // Enqueues the factorisation on `stream`; wait() must follow.
  virtual Status launch(const QrStorage<T>& storage, cudaStream_t stream) = 0;
  virtual Status wait() = 0;
  // Applies Qᵀ (transpose) or Q to c_tiles (p·column_tiles tiles) and waits.
  virtual Status apply(const QrStorage<T>& storage, bool transpose, T* c_tiles, int32_t column_tiles) = 0;
  virtual std::vector<TraceEvent> trace() const = 0;
  // The factorisation's DAG in closed form: task t of the graph is
  // qr_dag::task_of(graph_shape(), t).
  virtual const qr_dag::Shape& graph_shape() const = 0;
  virtual const LaunchShape& shape() const = 0;
};

namespace qr_detail {
// Kinds::staged_tile_elements where the kinds have it (the block kinds), else 0.
template <class Kinds, class = void>
struct StagedTileElements {
  static constexpr std::size_t value = 0;
};
template <class Kinds>
struct StagedTileElements<Kinds, std::void_t<decltype(Kinds::staged_tile_elements)>> {
  static constexpr std::size_t value = Kinds::staged_tile_elements;
};
}  // namespace qr_detail

// Fr4Runner for `Kinds`, whose run parameters are Params{tiles, t_local,
// t_merge, c, p} (the warp and the block binding's task data alike); for
// kinds with staged copies of their factors (the block kinds) the runner
// keeps p·q of them, which a factorisation writes and reads (Params::staged).
template <typename T, class Kinds, class Params>
class Fr4RunnerOf final : public Fr4Runner<T> {
 public:
  // priority_classes: the factorisation graph's (qr_factor_graph); the
  // graphs applying Q keep one.
  Fr4RunnerOf(int32_t p, int32_t q, Tree tree, int32_t domains, Team team, int32_t priority_classes,
              const ExecOptions& exec)
      : p_(p), q_(q), staged_(staged_buffer(p, q)), tree_(tree), domains_(domains), team_(team), exec_(exec),
        shape_(qr_graph_shape(p, q, tree, domains)),
        factor_(std::make_unique<GraphExec<Kinds>>(
            qr_factor_graph(p, q, tree, domains, team, 1 << 16, 0, priority_classes), exec)) {}

  Status launch(const QrStorage<T>& storage, cudaStream_t stream) override {
    Params run = params(storage, storage.tiles.get());
    if constexpr (staged_elements > 0) run.staged = staged_.get();
    return factor_->launch(run, stream);
  }
  Status wait() override { return factor_->wait(); }
  Status apply(const QrStorage<T>& storage, bool transpose, T* c_tiles, int32_t column_tiles) override {
    auto& slot = apply_[{transpose, column_tiles}];
    if (!slot)
      slot = std::make_unique<GraphExec<Kinds>>(
          qr_detail::qr_apply_graph(p_, q_, tree_, domains_, team_, transpose, column_tiles), exec_);
    return slot->run(params(storage, c_tiles));
  }
  std::vector<TraceEvent> trace() const override { return factor_->trace(); }
  const qr_dag::Shape& graph_shape() const override { return shape_; }
  const LaunchShape& shape() const override { return factor_->shape(); }

 private:
  Params params(const QrStorage<T>& storage, T* c) const {
    return Params{const_cast<T*>(storage.tiles.get()), const_cast<T*>(storage.t_local.get()),
                  const_cast<T*>(storage.t_merge.get()), c, p_};
  }

  static constexpr std::size_t staged_elements = qr_detail::StagedTileElements<Kinds>::value;
  static DeviceBuffer<T> staged_buffer(int32_t p, int32_t q) {
    if constexpr (staged_elements > 0)
      return DeviceBuffer<T>(checked_elements({p, q, int64_t(staged_elements)}, sizeof(T), "the staged reflectors"),
                             "the staged reflectors");
    return DeviceBuffer<T>();
  }
  int32_t p_, q_;
  DeviceBuffer<T> staged_;
  Tree tree_;
  int32_t domains_;
  Team team_;
  ExecOptions exec_;
  qr_dag::Shape shape_;
  std::unique_ptr<GraphExec<Kinds>> factor_;
  std::map<std::pair<bool, int32_t>, std::unique_ptr<GraphExec<Kinds>>> apply_;
};

// The executor's shape for the warp kinds: options' warps per block, each
// warp the warp kernels' scratch.
template <typename T>
ExecOptions warp_exec_options(const Options& options) {
  ExecOptions e;
  e.warps_per_block = options.warps_per_block;
  e.max_blocks = options.max_blocks;
  e.scratch_bytes_per_warp = qr_scratch_bytes_per_warp<T>();
  e.trace = options.trace;
  e.stall_timeout_seconds = options.watchdog_seconds;
  return e;
}

template <typename T>
std::unique_ptr<Fr4Runner<T>> make_warp_runner(int32_t p, int32_t q, const Options& options) {
  return std::make_unique<Fr4RunnerOf<T, QrKinds<T>, QrRunParams<T>>>(
      p, q, options.tree, options.tree_domains, Team::warp, options.priority_classes, warp_exec_options<T>(options));
}

// The block kinds of tile NB and inner block IB; defined where
// block_qr_kinds.cuh is compiled (fr4_block_runners_*.cu).
template <typename T, int NB, int IB>
std::unique_ptr<Fr4Runner<T>> make_block_runner(int32_t p, int32_t q, const Options& options);

}  // namespace tiledqr::gpu
