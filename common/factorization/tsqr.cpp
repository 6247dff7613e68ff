// TsqrFactors: the one-pass TSQR's tasks and the application of its Q; see tsqr.hpp.
#include "tsqr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cpu_threads.hpp"
#include "errors.hpp"
#include "kernels/host/geqrt.hpp"
#include "kernels/host/ormqr.hpp"
#include "kernels/host/tsmqr.hpp"  // ttmqr
#include "kernels/host/tsqrt.hpp"  // ttqrt
#include "kernels/lapack/lapack_kernels.hpp"
#include "kernels/row_block/row_block_kernels.hpp"
#include "overflow_scaling.hpp"
#include "size_check.hpp"

namespace tiledqr {
namespace {

constexpr int64_t kLapackMax = std::numeric_limits<int32_t>::max();

// The upper triangle of the (k, n) top of a, ld, times 2^−shift.
template <typename T>
void scale_upper(T* a, int64_t ld, int64_t k, int64_t n, int shift) {
  if (shift == 0) return;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= std::min(j, k - 1); ++i) a[i + j * ld] = std::ldexp(a[i + j * ld], -shift);
}

// The upper triangle of the (n, n) top of `from` into `to`'s.
template <typename T>
void copy_upper(const T* from, int64_t ld_from, T* to, int64_t ld_to, int64_t n) {
  for (int64_t j = 0; j < n; ++j) std::copy_n(from + j * ld_from, j + 1, to + j * ld_to);
}

}  // namespace

template <typename T>
TsqrFactors<T>::TsqrFactors(const T* a, int64_t rows_total, int64_t cols, int64_t lda, int block_count,
                            int inner_block, int fan, bool use_reference)
    : m(rows_total), n(cols), ib(inner_block), fan_in(fan), reference(use_reference), input(a), input_ld(lda) {
  if (block_count < 1) throw InputError("tsqr tree: the number of row blocks must be >= 1, got " + std::to_string(block_count));
  if (fan_in < 2) throw InputError("tsqr tree: the fan-in must be >= 2, got " + std::to_string(fan_in));
  if (ib < 1) throw InputError("tsqr tree: the inner block must be >= 1, got " + std::to_string(ib));
  if (n > kLapackMax) throw InputError("tsqr tree: " + std::to_string(n) + " columns exceed LAPACK's 32-bit sizes");
  ib = int(std::min<int64_t>(ib, n));
  const int64_t count = block_count > 1 ? std::max<int64_t>(1, std::min<int64_t>(block_count, m / n)) : 1;
  const int64_t base = m / count, extra = m % count;
  if (base + (extra > 0) > kLapackMax)
    throw InputError("tsqr tree: row blocks of " + std::to_string(base + (extra > 0)) +
                     " rows exceed LAPACK's 32-bit sizes (2147483647); use more blocks");
  first.resize(size_t(count) + 1);
  for (int64_t d = 0; d <= count; ++d) first[size_t(d)] = d * base + std::min(d, extra);
  blocks.resize(size_t(count));
  t_block.resize(size_t(count));
  t_merge.resize(size_t(count));
  scale.assign(size_t(count), 0);
  for (int32_t d = 0; d < count; ++d) {
    // Reserved only: the task that factors the block writes it first, on
    // the worker that then reads it. No huge-page advice: on the 2-core
    // development machine (a virtual machine) two threads faulting in
    // advised blocks at once stalled one of them in compaction for up to
    // 0.2 s per 64 MiB, against a steady 0.04 s with ordinary pages.
    blocks[size_t(d)].reserve(checked_elements({rows(d), n}, sizeof(T), "row block"));
    t_block[size_t(d)].assign(size_t(ib) * size_t(reflectors(d)), T(0));
    if (d > 0) t_merge[size_t(d)].assign(size_t(ib) * size_t(n), T(0));
  }
}

template <typename T>
Dag TsqrFactors<T>::factor_dag() const {
  return build_qr_dag(count(), 1, Tree::tsqr, 1, Tree::flat, fan_in);
}

template <typename T>
void TsqrFactors<T>::run_task(const Task& task) {
  const int32_t d = task.i;
  std::vector<T>& block = blocks[size_t(d)];
  const int64_t r = rows(d);
  if (task.kind == TaskKind::geqrt) {
    // Copy the block's rows, column by column, each checked for its largest
    // entry while it is still in cache.
    block.clear();
    T largest = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T* column = input + (first[size_t(d)] - input_row) + j * input_ld;
      block.insert(block.end(), column, column + r);
      largest = std::max(largest, largest_magnitude(block.data() + j * r, size_t(r)));
    }
    const int s = exponent_below(double(largest), overflow_limit<T>(double(m), double(n)));
    if (s != 0)
      for (T& x : block) x = std::ldexp(x, -s);
    scale[size_t(d)] = s;
    const int k = reflectors(d);
    if (reference) kernels::geqrt(int(r), int(n), block.data(), int(r), t_block[size_t(d)].data());
    else row_block_kernels::geqrt(int(r), int(n), std::min(ib, k), block.data(), int(r), t_block[size_t(d)].data(), ib);
    return;
  }
  if (task.kind != TaskKind::ttqrt) throw std::logic_error("TsqrFactors::run_task: not a tsqr factorisation task");
  // Merge block d's triangle into block piv's: both blocks hold n rows or
  // more (several blocks), so both triangles are (n, n).
  const int32_t top = task.piv;
  tsqr_merge(n, ib, reference, blocks[size_t(top)].data(), rows(top), scale[size_t(top)], block.data(), r,
             scale[size_t(d)], t_merge[size_t(d)].data());
}

template <typename T>
void tsqr_merge(int64_t n, int ib, bool reference, T* upper, int64_t ld_upper, int& upper_scale, T* lower,
                int64_t ld_lower, int& lower_scale, T* t) {
  const int s = std::max(upper_scale, lower_scale);
  scale_upper(upper, ld_upper, n, n, s - upper_scale);
  scale_upper(lower, ld_lower, n, n, s - lower_scale);
  upper_scale = lower_scale = s;
  // The kernels run on compact (n, n) copies, zero below the diagonal:
  // OpenBLAS's tpqrt rounds differently for another leading dimension, and
  // the bits must not depend on the blocks' row counts (nor on whether a
  // process holds the whole block or, as the distributed tree, its triangle).
  std::vector<T> a(size_t(n) * size_t(n), T(0)), b(size_t(n) * size_t(n), T(0));
  copy_upper(upper, ld_upper, a.data(), n, n);
  copy_upper(lower, ld_lower, b.data(), n, n);
  const int w = int(n);
  if (reference) kernels::ttqrt(w, w, a.data(), w, b.data(), w, t);
  else lapack_kernels::tpqrt(w, w, w, ib, a.data(), w, b.data(), w, t, ib);
  copy_upper(a.data(), n, upper, ld_upper, n);
  copy_upper(b.data(), n, lower, ld_lower, n);
}

template <typename T>
void TsqrFactors<T>::run_apply_task(const Task& task, bool transpose, bool fill, T* c, int64_t ldc, int cols) const {
  const int32_t d = task.i;
  const T* block = blocks[size_t(d)].data();
  const int r = int(rows(d)), w = int(n), ld = int(ldc);
  T* c_block = c + first[size_t(d)];
  if (task.kind == TaskKind::ormqr) {
    const int k = reflectors(d);
    if (fill) {
      // The identity's columns on this block's rows below its first k.
      for (int j = 0; j < cols; ++j) {
        T* column = c_block + int64_t(j) * ldc;
        std::fill(column + k, column + r, T(0));
        const int64_t diagonal = j - first[size_t(d)];
        if (diagonal >= k && diagonal < r) column[diagonal] = T(1);
      }
    }
    if (reference) kernels::ormqr(transpose, r, cols, k, block, r, t_block[size_t(d)].data(), c_block, ld);
    else row_block_kernels::gemqrt(transpose, r, cols, k, std::min(ib, k), block, r, t_block[size_t(d)].data(), ib, c_block, ld);
    return;
  }
  if (task.kind != TaskKind::ttmqr) throw std::logic_error("TsqrFactors: not a tsqr apply task");
  T* c_top = c + first[size_t(task.piv)];
  if (reference) kernels::ttmqr(transpose, w, cols, w, block, r, t_merge[size_t(d)].data(), c_top, ld, c_block, ld);
  else lapack_kernels::tpmqrt(transpose, w, cols, w, w, ib, block, r, t_merge[size_t(d)].data(), ib, c_top, ld, c_block, ld);
}

template <typename T>
void TsqrFactors<T>::run_apply_dag(bool transpose, bool fill, T* c, int64_t ldc, int64_t cols,
                                   const DagExecutor& executor) const {
  if (cols == 0 || m == 0) return;
  if (ldc > kLapackMax || cols > kLapackMax)
    throw InputError("tsqr tree: a leading dimension or column count beyond 2^31 - 1 (LAPACK's 32-bit sizes)");
  const Dag dag = build_apply_dag(count(), 1, 1, Tree::tsqr, 1, Tree::flat, transpose, fill, fan_in);
  // LAPACK's ?gemqrt on a whole block rounds differently on OpenBLAS's
  // threads than on one: single-threaded under every executor (the FR1
  // and FR2 ones hold it so already), so the bits do not depend on which.
  const SingleThreadedBlas single_threaded_blas;
  executor(dag, [&](const Task& t) { run_apply_task(t, transpose, fill, c, ldc, int(cols)); });
}

template <typename T>
void TsqrFactors<T>::apply(bool transpose, T* c, int64_t ldc, int64_t cols, const DagExecutor& executor) const {
  run_apply_dag(transpose, false, c, ldc, cols, executor);
}

template <typename T>
void TsqrFactors<T>::form_q(int64_t k, T* q, int64_t ldq, const DagExecutor& executor) const {
  if (k == 0) return;
  // The rows the merges read and write: each block's first reflectors(d).
  for (int32_t d = 0; d < count(); ++d)
    for (int64_t j = 0; j < k; ++j) {
      T* column = q + first[size_t(d)] + j * ldq;
      std::fill_n(column, reflectors(d), T(0));
      const int64_t diagonal = j - first[size_t(d)];
      if (diagonal >= 0 && diagonal < reflectors(d)) column[diagonal] = T(1);
    }
  run_apply_dag(false, true, q, ldq, k, executor);
}

template void tsqr_merge<float>(int64_t, int, bool, float*, int64_t, int&, float*, int64_t, int&, float*);
template void tsqr_merge<double>(int64_t, int, bool, double*, int64_t, int&, double*, int64_t, int&, double*);
template struct TsqrFactors<float>;
template struct TsqrFactors<double>;

}  // namespace tiledqr
