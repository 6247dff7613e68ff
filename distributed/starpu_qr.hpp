// The distributed executor: the common DAG's tasks inserted into StarPU-MPI
// in program order (sequential task flow), each tile a StarPU data handle
// registered on its 2-D block-cyclic owner, so StarPU infers the
// dependencies and the transfers. Codelets run the tile kernels through the
// host binding (common/kernels/host_binding.hpp, LAPACK backend).
// StarPU-MPI must be initialised before a DistributedQr is made.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "block_cyclic.hpp"
#include "checks.hpp"
#include "factorization.hpp"

namespace tiledqr::distributed {

template <typename T>
class DistributedQr {
 public:
  // A (m, n) tiled by options.tile over `grid`; this process is `rank`.
  // Only the tiles this rank owns are stored here, zero until filled.
  DistributedQr(int64_t m, int64_t n, const Options& options, const ProcessGrid& grid, int rank);
  ~DistributedQr();
  DistributedQr(const DistributedQr&) = delete;
  DistributedQr& operator=(const DistributedQr&) = delete;

  int32_t tile_rows() const { return p_; }
  int32_t tile_cols() const { return q_; }
  int tile() const { return options_.tile; }
  bool owns(int32_t i, int32_t j) const { return grid_.owner(i, j) == rank_; }
  // Tile (i, j) of this rank, (b, b) col-major, ld = b; i, j owned.
  T* local_tile(int32_t i, int32_t j);

  // Whether this rank owns tiles of column c of A.
  bool holds_column(int64_t c) const { return int(c / options_.tile % grid_.cols) == rank_ % grid_.cols; }
  // A(r, c) = x where this rank owns the tile; ignored elsewhere.
  void set(int64_t r, int64_t c, T x) {
    const int64_t b = options_.tile;
    if (owns(int32_t(r / b), int32_t(c / b))) local_tile(int32_t(r / b), int32_t(c / b))[r % b + (c % b) * b] = x;
  }

  // Inserts every task and waits for all ranks; returns the wall seconds.
  // With `trace`, records each task this rank ran (worker = rank·workers +
  // StarPU worker id, times from StarPU's profiling, ns since the start).
  double factor(bool trace);

  // The plan (tasks, ranks, data) and the tile messages it implies.
  const std::vector<PlannedTask>& plan() const { return plan_; }
  MessageCount model_messages() const;

  // Collective: brings the factored tiles (upper ones only, unless `all`)
  // and, with `all`, the T factors to rank 0; returns the Factorization
  // there (R, and Q with `all`), an empty one elsewhere.
  Factorization<T> gather(bool all);

  const std::vector<TaskRecord>& trace() const { return trace_; }

  // This rank's tiles as they are now: before factor(), its part of A.
  const std::vector<T>& local_tiles() const { return local_; }

  // Collective, after factor(): ‖A − QR‖_F/(‖A‖_F·n·ε) and ‖I − QᵀQ‖_F/(n·ε)
  // computed where the tiles are, nothing gathered: tile tasks on the
  // owners apply Q to [R; 0] and to [I; 0] (the reflectors of each
  // factorisation task in reverse order), then form I − ZᵀZ tile by tile;
  // each rank sums the squares of its own tiles (`input`: its local_tiles()
  // of A) and MPI combines them.
  Residuals check(const std::vector<T>& input);

 private:
  starpu_data_handle_t& handle(const DataRef& d);
  void register_handle(const DataRef& d);

  int64_t m_, n_;
  Options options_;
  ProcessGrid grid_;
  int rank_;
  int32_t p_, q_;
  std::vector<int64_t> local_index_;  // tile (i, j) → its slot in local_, or -1
  std::vector<T> local_;              // owned tiles, (b, b) each
  std::vector<PlannedTask> plan_;
  std::vector<int32_t> priority_;      // critical-path priority by DAG index
  std::vector<starpu_data_handle_t> handles_;  // 4 kinds × p·q, null until used
  std::vector<TaskRecord> trace_;
};

// Collective: waits until every datum this rank owns (`owned`, its handles)
// holds its final value, then for every rank's tasks and messages, then a
// barrier. The owned data come first because StarPU-MPI 1.3's barrier
// counts only the receives whose message has begun to arrive: a datum that
// its last task wrote on another rank is sent back to its owner, and an
// owner that entered the barrier before that message's envelope came held
// its MPI progress thread in MPI_Barrier, never took the message, and left
// the sender waiting for ever.
void wait_for_every_rank(const std::vector<starpu_data_handle_t>& owned);

// Every rank: StarPU's profiling on (with `trace`), a barrier, `insert_tasks`
// (this rank's part of a plan), then wait_for_every_rank(owned). Returns the
// wall seconds from the first barrier; origin_us is StarPU's clock then, the
// origin of the trace's times.
double timed_insertion(bool trace, double& origin_us, const std::vector<starpu_data_handle_t>& owned,
                       const std::function<void()>& insert_tasks);

extern template class DistributedQr<float>;
extern template class DistributedQr<double>;

}  // namespace tiledqr::distributed
