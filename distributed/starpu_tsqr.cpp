// StarPU-MPI executor of the tsqr tree (starpu_tsqr.hpp).
#include "starpu_tsqr.hpp"

#include <starpu_mpi.h>

#include <algorithm>
#include <stdexcept>

#include "kernels/lapack/lapack_kernels.hpp"
#include "mpi_transfer.hpp"
#include "size_check.hpp"
#include "starpu_qr.hpp"

namespace tiledqr::distributed {

template <typename T>
DistributedTsqr<T>::DistributedTsqr(int64_t m, int64_t n, const Options& options, int rank, int ranks)
    : m_(m), n_(n), options_(options), rank_(rank), ranks_(ranks),
      tsqr_(nullptr, m, n, m, options.tree_domains, options.effective_inner_block(), options.fan_in, false) {
  const int32_t p = blocks();
  first_block_ = p;
  for (int32_t d = p - 1; d >= 0; --d)
    if (block_rank(d) == rank_) first_block_ = d;
  end_block_ = first_block_;
  while (end_block_ < p && block_rank(end_block_) == rank_) ++end_block_;
  row_begin_ = tsqr_.first[size_t(first_block_)];
  row_end_ = tsqr_.first[size_t(end_block_)];
  // Only this rank's blocks are stored here (the constructor reserved every one).
  for (int32_t d = 0; d < p; ++d)
    if (block_rank(d) != rank_) tsqr_.blocks[size_t(d)] = std::vector<T>();
  local_.assign(checked_elements({row_end_ - row_begin_, n}, sizeof(T), "local rows"), T(0));
  tsqr_.input = local_.data();
  tsqr_.input_ld = std::max<int64_t>(1, row_end_ - row_begin_);
  tsqr_.input_row = row_begin_;
  triangles_.assign(checked_elements({end_block_ - first_block_, n, n + 1}, sizeof(T), "triangles"), T(0));

  dag_ = tsqr_.factor_dag();
  merged_into_.assign(size_t(p), -1);
  for (const Task& t : dag_.tasks)
    if (t.kind == TaskKind::ttqrt) merged_into_[size_t(t.i)] = t.piv;
  triangle_.assign(size_t(p), nullptr);
  merge_t_.assign(size_t(p), nullptr);
  const int ib = tsqr_.ib;
  for (int32_t d = 0; d < p; ++d) {
    const int owner = block_rank(d);
    if (owner == rank_)
      starpu_matrix_data_register(&triangle_[size_t(d)], STARPU_MAIN_RAM, uintptr_t(triangle_home(d)), uint32_t(n),
                                  uint32_t(n), uint32_t(n + 1), sizeof(T));
    else
      starpu_matrix_data_register(&triangle_[size_t(d)], -1, 0, uint32_t(n), uint32_t(n), uint32_t(n + 1), sizeof(T));
    starpu_mpi_data_register(triangle_[size_t(d)], d, owner);
    if (merged_into_[size_t(d)] < 0) continue;
    // First written by the merge, on the rank that merges.
    starpu_matrix_data_register(&merge_t_[size_t(d)], -1, 0, uint32_t(ib), uint32_t(ib), uint32_t(n), sizeof(T));
    starpu_mpi_data_register(merge_t_[size_t(d)], int64_t(p) + d, block_rank(merged_into_[size_t(d)]));
  }
}

template <typename T>
DistributedTsqr<T>::~DistributedTsqr() {
  for (starpu_data_handle_t h : triangle_)
    if (h) starpu_data_unregister(h);
  for (starpu_data_handle_t h : merge_t_)
    if (h) starpu_data_unregister(h);
}

// geqrt(d): factor block d (TsqrFactors' task) and copy its triangle and
// scale exponent into the datum; ttqrt(d, piv): merge d's triangle into
// piv's (tsqr_merge), the scale exponents travelling in the last column.
template <typename T>
void DistributedTsqr<T>::run_codelet(void* buffers[], void* cl_arg) {
  Args args;
  starpu_codelet_unpack_args(cl_arg, &args);
  TsqrFactors<T>& f = args.self->tsqr_;
  const int64_t n = f.n;
  const int32_t d = args.task.i;
  auto matrix = [&](int i) { return reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[i])); };
  auto ld = [&](int i) { return int64_t(STARPU_MATRIX_GET_LD(buffers[i])); };
  if (args.task.kind == TaskKind::geqrt) {
    f.run_task(args.task);
    const T* block = f.blocks[size_t(d)].data();
    const int64_t rows = f.rows(d);
    T* triangle = matrix(0);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        triangle[i + j * ld(0)] = i <= j && i < rows ? block[i + j * rows] : T(0);
    triangle[n * ld(0)] = T(f.scale[size_t(d)]);
    return;
  }
  T* upper = matrix(0);
  T* lower = matrix(1);
  int upper_scale = int(upper[n * ld(0)]), lower_scale = int(lower[n * ld(1)]);
  tsqr_merge(n, f.ib, false, upper, ld(0), upper_scale, lower, ld(1), lower_scale, matrix(2));
  upper[n * ld(0)] = T(upper_scale);
  lower[n * ld(1)] = T(lower_scale);
}

template <typename T>
void DistributedTsqr<T>::record_task(void* arg) {
  const starpu_task* task = starpu_task_get_current();
  const starpu_profiling_task_info* info = task ? task->profiling_info : nullptr;
  if (!info) return;
  const Args& args = *static_cast<const Args*>(arg);
  DistributedTsqr& self = *args.self;
  TaskRecord r;
  r.task = args.task;
  r.worker = self.rank_ * int(starpu_worker_get_count()) + info->workerid;
  timespec start = info->start_time, end = info->end_time;
  r.start_ns = int64_t((starpu_timing_timespec_to_us(&start) - self.origin_us_) * 1e3);
  r.end_ns = int64_t((starpu_timing_timespec_to_us(&end) - self.origin_us_) * 1e3);
  const std::lock_guard<std::mutex> lock(self.trace_mutex_);
  self.trace_.push_back(r);
}

template <typename T>
double DistributedTsqr<T>::factor(bool trace) {
  static starpu_codelet codelet = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    c.where = STARPU_CPU;
    c.cpu_funcs[0] = run_codelet;
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;
    c.name = "tiledqr_tsqr_task";
    return c;
  }();
  lapack_kernels::use_single_threaded_blas();
  task_args_.clear();
  for (const Task& t : dag_.tasks) task_args_.push_back({this, t});
  std::vector<starpu_data_handle_t> owned;
  for (int32_t d = 0; d < blocks(); ++d) {
    if (block_rank(d) == rank_) owned.push_back(triangle_[size_t(d)]);
    if (merge_t_[size_t(d)] && block_rank(merged_into_[size_t(d)]) == rank_) owned.push_back(merge_t_[size_t(d)]);
  }
  return timed_insertion(trace, origin_us_, owned, [&] {
    for (Args& args : task_args_) {
      const Task& t = args.task;
      // The leaves' factorisations first, to the end on this rank, before
      // any merge is inserted: a merge across ranks posts its receive when
      // it is inserted, and StarPU-MPI's progress thread then polls for it
      // on a core the factorisations need.
      // (factor_dag lists every geqrt before the first merge.)
      if (t.kind != TaskKind::geqrt && (&args - 1)->task.kind == TaskKind::geqrt) starpu_task_wait_for_all();
      std::vector<starpu_data_descr> descrs;
      int on = block_rank(t.i);
      if (t.kind == TaskKind::geqrt) {
        descrs = {{triangle_[size_t(t.i)], STARPU_W}};
      } else {
        descrs = {{triangle_[size_t(t.piv)], STARPU_RW}, {triangle_[size_t(t.i)], STARPU_RW},
                  {merge_t_[size_t(t.i)], STARPU_W}};
        on = block_rank(t.piv);
      }
      const int status = starpu_mpi_task_insert(
          MPI_COMM_WORLD, &codelet, STARPU_DATA_MODE_ARRAY, descrs.data(), int(descrs.size()), STARPU_VALUE, &args,
          sizeof(args), STARPU_EXECUTE_ON_NODE, on, STARPU_CALLBACK_WITH_ARG_NFREE,
          trace ? &DistributedTsqr::record_task : nullptr, &args, 0);
      if (status != 0) throw std::runtime_error("starpu_mpi_task_insert failed (tsqr tree)");
    }
  });
}

template <typename T>
MessageCount DistributedTsqr<T>::model_messages() const {
  MessageCount count;
  count.bytes_sent.assign(size_t(ranks_) * size_t(ranks_), 0);
  const int64_t bytes = int64_t(triangle_elements() * sizeof(T));
  for (int32_t d = 0; d < blocks(); ++d) {
    if (merged_into_[size_t(d)] < 0) continue;
    const int from = block_rank(d), to = block_rank(merged_into_[size_t(d)]);
    if (from == to) continue;
    count.messages += 2;  // the triangle there, and back to its owner once written
    count.bytes_sent[size_t(from) * size_t(ranks_) + size_t(to)] += bytes;
    count.bytes_sent[size_t(to) * size_t(ranks_) + size_t(from)] += bytes;
  }
  return count;
}

template <typename T>
Factorization<T> DistributedTsqr<T>::gather() {
  starpu_task_wait_for_all();
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  Factorization<T> f;
  if (rank_ == 0) {
    f.options = options_;
    f.tiles.m = m_;
    f.tiles.n = n_;
    f.tiles.b = options_.tile;
    f.tsqr = TsqrFactors<T>(nullptr, m_, n_, m_, options_.tree_domains, options_.effective_inner_block(),
                            options_.fan_in, false);
  }
  const size_t tri = triangle_elements();
  std::vector<T> triangle(rank_ == 0 ? tri : 0);
  for (int32_t d = 0; d < blocks(); ++d) {
    const int owner = block_rank(d);
    const int merger = merged_into_[size_t(d)] < 0 ? -1 : block_rank(merged_into_[size_t(d)]);
    const size_t block_elements = size_t(tsqr_.rows(d)) * size_t(n_);
    if (rank_ == owner) {
      starpu_data_acquire(triangle_[size_t(d)], STARPU_R);
      const T* mine = triangle_home(d);
      if (rank_ == 0) {
        f.tsqr.blocks[size_t(d)] = tsqr_.blocks[size_t(d)];
        f.tsqr.t_block[size_t(d)] = tsqr_.t_block[size_t(d)];
        std::copy_n(mine, tri, triangle.data());
      } else {
        send_all(tsqr_.blocks[size_t(d)].data(), block_elements, 0, 3 * d, comm);
        send_all(tsqr_.t_block[size_t(d)].data(), tsqr_.t_block[size_t(d)].size(), 0, 3 * d + 1, comm);
        send_all(mine, tri, 0, 3 * d + 2, comm);
      }
      starpu_data_release(triangle_[size_t(d)]);
    } else if (rank_ == 0) {
      f.tsqr.blocks[size_t(d)].resize(block_elements);
      receive_all(f.tsqr.blocks[size_t(d)].data(), block_elements, owner, 3 * d, comm);
      receive_all(f.tsqr.t_block[size_t(d)].data(), f.tsqr.t_block[size_t(d)].size(), owner, 3 * d + 1, comm);
      receive_all(triangle.data(), tri, owner, 3 * d + 2, comm);
    }
    if (merger >= 0 && rank_ == merger) {
      starpu_data_handle_t h = merge_t_[size_t(d)];
      starpu_data_acquire(h, STARPU_R);
      const T* t = reinterpret_cast<const T*>(starpu_matrix_get_local_ptr(h));
      const size_t elements = size_t(tsqr_.ib) * size_t(n_);
      if (rank_ == 0) std::copy_n(t, elements, f.tsqr.t_merge[size_t(d)].data());
      else send_all(t, elements, 0, 3 * blocks() + d, comm);
      starpu_data_release(h);
    } else if (merger >= 0 && rank_ == 0) {
      receive_all(f.tsqr.t_merge[size_t(d)].data(), f.tsqr.t_merge[size_t(d)].size(), merger, 3 * blocks() + d, comm);
    }
    if (rank_ != 0) continue;
    // The block's triangle as the tree left it: R (block 0) or the V of
    // its merge, over the block's own upper triangle.
    T* block = f.tsqr.blocks[size_t(d)].data();
    const int64_t rows = f.tsqr.rows(d);
    for (int64_t j = 0; j < n_; ++j)
      for (int64_t i = 0; i <= std::min(j, rows - 1); ++i) block[i + j * rows] = triangle[size_t(i + j * n_)];
    f.tsqr.scale[size_t(d)] = int(triangle[size_t(n_ * n_)]);
  }
  MPI_Comm_free(&comm);
  if (rank_ == 0) f.scale_exponent = f.tsqr.scale[0];
  return f;
}

template class DistributedTsqr<float>;
template class DistributedTsqr<double>;

}  // namespace tiledqr::distributed
