// The factors of the tsqr tree (docs/design.md §8): one-pass TSQR
// (Demmel, Grigori, Hoemmen and Langou, "Communication-optimal parallel and
// sequential QR and LU factorizations", §3). A (m, n) is cut into P
// contiguous row blocks; each block is copied and factored whole by
// LAPACK's blocked QR (A_d = Q_d R_d), and the triangles R_d are merged by
// a tree of fan-in f, a node merging its later children's triangles into
// its first child's one after another (tpqrt with l = n). Q is applied
// through the same tree: Qᵀ C runs every block's Q_dᵀ on C's rows of that
// block, then the merges on the first n rows of each block, in order; Q C
// the reverse. The tasks are those of build_qr_dag / build_apply_dag on a
// column of P row blocks with the tsqr tree (geqrt: factor a block,
// ttqrt: a merge, ormqr and ttmqr their application), so any executor runs
// them; for a given P and f the result is the same bits whatever runs them.
//
//   TsqrFactors<double> f(a, m, n, lda, blocks, ib, fan_in, false);
//   run_in_program_order(f.factor_dag(), [&](const Task& t) { f.run_task(t); });
#pragma once

#include <cstdint>
#include <vector>

#include "dag.hpp"
#include "task.hpp"

namespace tiledqr {

template <typename T>
struct TsqrFactors {
  int64_t m = 0, n = 0;
  int ib = 1;          // inner block of the T factors, 1 ≤ ib ≤ n
  int fan_in = 4;      // children merged by a node of the tree
  bool reference = false;  // the reference kernels (τ in a T factor's first entries)
  std::vector<int64_t> first;  // block d holds rows [first[d], first[d + 1]); P + 1 entries
  // Block d (rows(d), n), ld rows(d): R_d on and above the diagonal and V_d
  // below it after its factorisation; once merged into another block, the
  // merge's V in its upper triangle instead of R_d.
  std::vector<std::vector<T>> blocks;
  std::vector<std::vector<T>> t_block;  // (ib, reflectors(d)), ld ib: T factors of block d's ?geqrt
  std::vector<std::vector<T>> t_merge;  // (ib, n), ld ib: T factors of block d's merge (d ≥ 1)
  // Block d holds A_d·2^−scale[d] (entries near the overflow threshold,
  // scaled by the block that reads them); a merge brings both triangles to
  // the larger exponent first. scale[0] is R's at the end.
  std::vector<int> scale;
  // A and its leading dimension: each block's factorisation copies its rows
  // from there, so A must outlive the factorisation's tasks. input's first
  // row is A's row input_row (a process that holds only some of A's rows,
  // those of the blocks it factors).
  const T* input = nullptr;
  int64_t input_ld = 0;
  int64_t input_row = 0;

  TsqrFactors() = default;
  // P = min(blocks, ⌊m / n⌋) blocks (at least 1), so that every block of
  // several has n rows or more, their sizes as even as m allows. Nothing is
  // copied or factored yet. InputError for blocks < 1, fan_in < 2, ib < 1,
  // or a block of more than 2^31 − 1 rows (LAPACK's 32-bit sizes).
  TsqrFactors(const T* a, int64_t m, int64_t n, int64_t lda, int blocks, int ib, int fan_in, bool reference);

  int32_t count() const { return first.empty() ? 0 : int32_t(first.size()) - 1; }
  int64_t rows(int32_t d) const { return first[size_t(d) + 1] - first[size_t(d)]; }
  int reflectors(int32_t d) const { return int(rows(d) < n ? rows(d) : n); }

  // The factorisation's tasks: geqrt of every block, then the merges.
  Dag factor_dag() const;
  // geqrt(i): copy block i from A (scaling it if needed) and factor it;
  // ttqrt(i, piv): merge block i's triangle into block piv's.
  void run_task(const Task& task);

  // C (m, cols), ldc ≥ m, ← Qᵀ C (transpose) or Q C, through `executor`.
  void apply(bool transpose, T* c, int64_t ldc, int64_t cols, const DagExecutor& executor) const;
  // Q (m, k), ldq ≥ m ← the first k columns of Q (0 ≤ k ≤ m): the identity's
  // rows that the merges touch are set first, each block's other rows by
  // the task that applies that block's Q_d.
  void form_q(int64_t k, T* q, int64_t ldq, const DagExecutor& executor) const;

  // R as block 0 holds it, R·2^−scale[0]: its upper triangle, (min(m, n), n), ld rows(0).
  const T* stored_r() const { return blocks[0].data(); }
  int64_t stored_r_ld() const { return rows(0); }

 private:
  // One task of an apply DAG on C; `fill` (form_q): block i's rows beyond
  // its first reflectors(i) get the identity's entries before its Q_d.
  void run_apply_task(const Task& task, bool transpose, bool fill, T* c, int64_t ldc, int cols) const;
  void run_apply_dag(bool transpose, bool fill, T* c, int64_t ldc, int64_t cols, const DagExecutor& executor) const;
};

// One merge of the tree: the triangle `lower` (n, n) merged into `upper`
// (n, n), both first brought to the larger of their exponents (each holds
// its rows of A·2^−scale); lower's upper triangle then holds the merge's V
// and t (ib, n), ld ib, its T factors. The reference kernels or LAPACK's
// tpqrt with l = n, on compact copies: the same bits for any ld_upper and
// ld_lower. TsqrFactors' ttqrt, and the distributed tree's.
template <typename T>
void tsqr_merge(int64_t n, int ib, bool reference, T* upper, int64_t ld_upper, int& upper_scale, T* lower,
                int64_t ld_lower, int& lower_scale, T* t);

extern template struct TsqrFactors<float>;
extern template struct TsqrFactors<double>;

}  // namespace tiledqr
