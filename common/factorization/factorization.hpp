// The result of a tiled QR factorisation and what users do with it
// (docs/design.md §6). Every CPU executor fills one by running tasks through
// run_task(); GPU stages download theirs into the same layout.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "dag.hpp"
#include "dense_matrix.hpp"
#include "options.hpp"
#include "rhs_tiles.hpp"
#include "task.hpp"
#include "tile_matrix.hpp"
#include "tsqr.hpp"

namespace tiledqr {

// One executed task, for --trace (times in ns from the start of the run).
struct TaskRecord {
  Task task;
  int32_t worker = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

template <typename T>
struct Factorization {
  Options options;          // tile, inner block, backend and tree used
  TileMatrix<T> tiles;      // R on and above the diagonal, reflectors V elsewhere
  // T factors, one (ib, b) block (ld = ib) per tile that has one, packed
  // (reference backend: τ in the first b entries of a block). Only tiles
  // that are factored get a block, which keeps the memory at ib/b · ½ of
  // the matrix: t_local holds geqrt's T of tile (k, k) (flat tree) or of
  // every tile (i ≥ k) of panel k (trees); t_merge holds the tsqrt/ttqrt T
  // of every tile (i > k). Address them with t_local_tile / t_merge_tile.
  std::vector<T> t_local;
  std::vector<T> t_merge;
  // The tsqr tree keeps no tiles (tiles holds m and n only) and no T blocks
  // above: its row blocks and their factors are here.
  TsqrFactors<T> tsqr;
  // A square matrix that is one tile (LAPACK backend) is factored by the
  // small-matrix kernels (kernels/small/): unblocked reflectors, their τ in
  // the first b entries of t_local's one block. Set by the constructor;
  // factors filled otherwise (a GPU's, a distributed run's) keep T blocks.
  bool one_tile_kernels = false;
  std::vector<TaskRecord> trace;
  double device_seconds = 0;  // set by GPU stages: time on the device only
  // The tiles hold A·2^−scale_exponent: an A with entries near the overflow
  // threshold is scaled down by a power of two (exact) before it is
  // factored, so that no intermediate of the reflectors' application
  // overflows; r() scales R back. 0 for every A below about
  // huge / (64·√(p·b²)), which leaves their results unchanged.
  int scale_exponent = 0;

  // Tiles A in the layout the executors work on; nothing is factored yet.
  // The tsqr tree copies nothing here: each row block is copied by the
  // task that factors it, so A must outlive the factorisation's tasks.
  Factorization(const T* a, int64_t m, int64_t n, int64_t lda, const Options& opts);
  Factorization() = default;
  // Takes another A of the same m × n into the tiles and T blocks this
  // factorisation already holds, as the constructor leaves them (nothing
  // factored, the trace empty): a plan made once and run many times, with
  // no allocation (on some machines the first write to fresh memory costs
  // more than the copy itself). The tsqr tree's row blocks are made anew.
  // InputError for lda < m.
  void load(const T* a, int64_t lda);

  int64_t rows() const { return tiles.m; }
  int64_t cols() const { return tiles.n; }
  int ib() const { return options.effective_inner_block(); }
  bool is_tsqr() const { return options.tree == Tree::tsqr; }

  // The factorisation's tasks for options' tree: build_qr_dag on the tile
  // grid, or the tsqr tree's on its row blocks. (FR1 and FR2 run the flat
  // tree through the task grid instead.)
  Dag factor_dag() const;
  // Runs one task of the factorisation on the tiles or row blocks (CPU backends).
  void run_task(const Task& task);

  // R: the upper-triangular (min(m, n), n) factor. An entry beyond the
  // largest finite T (possible when ‖a_j‖ is) is ±Inf.
  DenseMatrix<T> r() const;
  // R as the tiles hold it, R·2^−scale_exponent: always finite for a finite A.
  DenseMatrix<T> stored_r() const;
  // B (m, nrhs), col-major, ldb ≥ m ← Qᵀ B, as ?ormqr: the tasks of
  // build_apply_dag on B's tiles, run by `executor`.
  void apply_qt(T* b, int64_t ldb, int64_t nrhs, const DagExecutor& executor = run_in_program_order) const;
  // B (m, nrhs) ← Q B.
  void apply_q(T* b, int64_t ldb, int64_t nrhs, const DagExecutor& executor = run_in_program_order) const;
  // Q (m, k), col-major, ldq ≥ m ← the first k columns of Q, 0 ≤ k ≤ m, as
  // ?orgqr: Q applied to the identity's tiles, panel k skipping the tile
  // columns before k (build_apply_dag's form_q).
  void form_q(int64_t k, T* q, int64_t ldq, const DagExecutor& executor = run_in_program_order) const;
  // The first min(m, n) columns of Q, (m, min(m, n)).
  DenseMatrix<T> thin_q() const;
  // Runs one task of an apply DAG (build_apply_dag with `transpose` and
  // `form_q`) on the right-hand side's tiles c, which have this
  // factorisation's tile size (tile trees only).
  void run_apply_task(const Task& task, bool transpose, bool form_q, RhsTiles<T>& c) const;
  // X (n, nrhs) = argmin ‖A X − B‖_F for B (m, nrhs); needs m ≥ n
  // (otherwise throws InputError) and A of full numerical rank: a diagonal
  // entry |r_ii| ≤ max(m, n)·ε·max_j |r_jj| (the threshold of LAPACK's
  // rank-revealing least-squares drivers) throws RankDeficientError with
  // the numerical rank, the count of entries above it.
  DenseMatrix<T> solve(const T* b, int64_t ldb, int64_t nrhs) const;

  // The T block of geqrt on tile (i, k) (i == k for the flat tree).
  T* t_local_tile(int64_t i, int64_t k) { return t_local.data() + local_block(i, k) * t_tile_elements(); }
  const T* t_local_tile(int64_t i, int64_t k) const { return t_local.data() + local_block(i, k) * t_tile_elements(); }
  // The T block of tsqrt/ttqrt merging tile (i, k), i > k.
  T* t_merge_tile(int64_t i, int64_t k) { return t_merge.data() + merge_block(i, k) * t_tile_elements(); }
  const T* t_merge_tile(int64_t i, int64_t k) const { return t_merge.data() + merge_block(i, k) * t_tile_elements(); }
  int64_t t_tile_elements() const { return int64_t(ib()) * tiles.b; }
  // Block indices of the packed T arrays, and their block counts.
  int64_t local_block(int64_t i, int64_t k) const;
  int64_t merge_block(int64_t i, int64_t k) const;
  int64_t local_block_count() const;
  int64_t merge_block_count() const;

 private:
  // The tasks of build_apply_dag on c, run by `executor`.
  void apply_tiles(bool transpose, bool form_q, RhsTiles<T>& c, const DagExecutor& executor) const;
  // B (m, nrhs), ldb ← Qᵀ B or Q B through B's tiles.
  void apply_colmajor(bool transpose, T* b, int64_t ldb, int64_t nrhs, const DagExecutor& executor) const;
};

extern template struct Factorization<float>;
extern template struct Factorization<double>;

// An (n, n) A that is one tile of `options` (tile = n, the LAPACK
// backend), factored where it lies: A (lda = n) ← R with zeros below the
// diagonal, Q (ldq = n) ← the (n, n) orthogonal factor (Q null: R only). The same small-matrix
// kernels on the same data in the same order as Factorization, run_task and
// form_q(n, …) on that one tile, so the same bits, without copying A into a
// tile, Q out of one, or allocating either: what a stack of small matrices
// spends most of its time on otherwise. Returns false, A and Q untouched,
// where the tiled path would scale A below the overflow threshold first
// (or for other options); the caller then takes that path.
template <typename T>
bool qr_one_tile_in_place(int64_t n, T* a, T* q, const Options& options);

}  // namespace tiledqr
