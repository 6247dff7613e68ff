// The tsqr tree over MPI ranks (docs/design.md §8): TsqrFactors' row
// blocks dealt out in contiguous runs (block d on rank ⌊d·ranks/P⌋), so a
// rank holds one contiguous run of A's rows and factors each of its blocks
// whole on its StarPU workers; the triangles are merged by the tree of
// fan-in f, a merge on the rank of the block merged into. Each block's
// triangle is a StarPU-MPI datum of its rank, so StarPU-MPI infers the only
// messages: a merge across ranks receives the lower block's triangle and,
// having written it (the merge's V), sends it back. The tasks and kernels
// are TsqrFactors' own in its order, so R is the same bits as one process's
// tsqr tree with the same blocks and fan-in (fr1_serial --tree tsqr
// --domains P --fan-in f). StarPU-MPI must be initialised first.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "block_cyclic.hpp"
#include "factorization.hpp"
#include "tsqr.hpp"

namespace tiledqr::distributed {

template <typename T>
class DistributedTsqr {
 public:
  // A (m, n) in options.tree_domains row blocks (fan-in options.fan_in)
  // over `ranks` ranks; this process is `rank` and stores its rows of A
  // only, zero until set. InputError as TsqrFactors' (blocks, fan-in, sizes).
  DistributedTsqr(int64_t m, int64_t n, const Options& options, int rank, int ranks);
  ~DistributedTsqr();
  DistributedTsqr(const DistributedTsqr&) = delete;
  DistributedTsqr& operator=(const DistributedTsqr&) = delete;

  int32_t blocks() const { return tsqr_.count(); }
  int block_rank(int32_t d) const { return int(int64_t(d) * ranks_ / blocks()); }
  // This rank's rows of A, [row_begin(), row_end()).
  bool holds_row(int64_t r) const { return r >= row_begin_ && r < row_end_; }
  // A(r, c) = x where this rank holds row r; ignored elsewhere.
  void set(int64_t r, int64_t c, T x) {
    if (holds_row(r)) local_[size_t(r - row_begin_) + size_t(c) * size_t(row_end_ - row_begin_)] = x;
  }

  // Inserts every task and waits for all ranks; returns the wall seconds.
  // With `trace`, records each task this rank ran (worker = rank·workers +
  // StarPU worker id, ns since the start).
  double factor(bool trace);
  // The triangles' messages the tree implies (two a merge across ranks).
  MessageCount model_messages() const;
  // Collective, after factor(): brings every block, T factor and triangle
  // to rank 0 and returns the factorisation there (as one process's tsqr
  // tree holds it: R, and Q through its tree), an empty one elsewhere.
  Factorization<T> gather();

  const std::vector<TaskRecord>& trace() const { return trace_; }

 private:
  // What a codelet needs: this object (the same process) and its task.
  struct Args {
    DistributedTsqr* self;
    Task task;
  };
  static void run_codelet(void* buffers[], void* cl_arg);
  static void record_task(void* arg);
  T* triangle_home(int32_t d) { return triangles_.data() + size_t(d - first_block_) * triangle_elements(); }
  size_t triangle_elements() const { return size_t(n_) * size_t(n_ + 1); }

  int64_t m_, n_;
  Options options_;
  int rank_, ranks_;
  TsqrFactors<T> tsqr_;
  Dag dag_;
  int32_t first_block_ = 0, end_block_ = 0;  // this rank's blocks
  int64_t row_begin_ = 0, row_end_ = 0;
  std::vector<T> local_;      // this rank's rows of A, ld row_end − row_begin
  std::vector<T> triangles_;  // its blocks' triangles, (n, n + 1) each: the upper triangle, the scale exponent
  std::vector<starpu_data_handle_t> triangle_;  // by block
  std::vector<starpu_data_handle_t> merge_t_;   // by block (d ≥ 1): T of d's merge, on the merging rank
  std::vector<int32_t> merged_into_;            // by block: the block d merges into (−1 for block 0)
  std::vector<Args> task_args_;                 // by DAG task, for the trace callbacks
  std::vector<TaskRecord> trace_;
  std::mutex trace_mutex_;
  double origin_us_ = 0;
};

extern template class DistributedTsqr<float>;
extern template class DistributedTsqr<double>;

}  // namespace tiledqr::distributed
