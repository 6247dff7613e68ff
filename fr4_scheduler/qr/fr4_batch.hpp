// A batch of QR factorisations on the task-graph executor: the matrices,
// of any shapes, side by side in one tile grid and their tasks one graph,
// factored by one run of the scheduler (docs/design.md §9). The
// warp kernels' tiles of 32; each matrix its own elimination tree.
//
//   std::vector<tiledqr::gpu::Fr4BatchMatrix> shapes = {{100, 100, Tree::flat}, {4000, 32, Tree::binary}};
//   tiledqr::gpu::Fr4Batch<double> batch(shapes);   // plans: graph uploaded, device memory
//   batch.factor(d_a, lda);                  // d_a[b]: matrix b, col-major on the device
//   batch.write_r(d_a, lda);                 // each A_b ← its R, zeros below the diagonal
//   tiledqr::Factorization<double> f = batch.download(1);  // matrix 1's factors, for the CPU
//
// Errors: CUDA failures and a missing GPU throw tiledqr::GpuError; a run
// the watchdog ends throws tiledqr::StallError; bad arguments throw
// tiledqr::InputError before any device work.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "factorization.hpp"
#include "options.hpp"

namespace tiledqr::gpu {

template <typename T>
struct Fr4BatchState;
namespace batch_detail {
template <typename P>
struct BatchPlaces;
}

// One matrix of a batch: m, n ≥ 0 (an empty matrix takes no tiles and no
// tasks) and its elimination tree (hierarchical: flat domains of 8 tile
// rows, binary across them, as fr4_domains chooses).
struct Fr4BatchMatrix {
  int64_t m = 0, n = 0;
  Tree tree = Tree::flat;
};

// The tree a batch gives a matrix when the caller leaves it open: the GPU
// table's at tile 32 (common/factorization/tile_choice.cpp), the binary
// tree for tall matrices (m ≥ 4n), flat otherwise.
inline Tree fr4_batch_tree(int64_t m, int64_t n) { return m >= 4 * n ? Tree::binary : Tree::flat; }

template <typename T>
class Fr4Batch {
 public:
  // Plans the factorisation of matrices of these shapes: the batch graph
  // (qr_batch_graph) uploaded, the tiles and τ of all allocated. Reads
  // options.tile (0 or 32), warps_per_block, max_blocks, watchdog_seconds
  // and trace. Throws InputError for a negative size, another tile or a
  // batch the executor's ids cannot hold; GpuError without a GPU.
  explicit Fr4Batch(const std::vector<Fr4BatchMatrix>& matrices, const Options& options = Options{});
  ~Fr4Batch();
  Fr4Batch(Fr4Batch&&) noexcept;
  Fr4Batch& operator=(Fr4Batch&&) noexcept;

  int64_t size() const;
  const Fr4BatchMatrix& matrix(int64_t b) const;
  int32_t task_count() const;

  // Factors matrix b, col-major at d_a[b] with leading dimension lda[b] ≥
  // max(1, m_b) on the device (not changed), for every b: the layout
  // conversion and the graph's run, enqueued on `stream`; finish_factor
  // waits under the watchdog and throws on failure. d_a and lda are host
  // arrays of size() entries, read before launch_factor returns (and sent
  // to the device only when they differ from the last call's).
  void launch_factor(const T* const* d_a, const int64_t* lda, cudaStream_t stream);
  void finish_factor();
  void factor(const T* const* d_a, const int64_t* lda);
  // The same for a strided stack of matrices of one shape: matrix b at
  // d_a + b·stride (stride ≥ lda·n). No table is built or sent: the
  // layout kernel computes each address.
  void launch_factor_strided(const T* d_a, int64_t lda, int64_t stride, cudaStream_t stream);

  // d_r[b] (col-major, ldr[b] ≥ max(1, m_b), device) ← the last factor()'s R of
  // matrix b, zeros below the diagonal down to row m_b, for every b, on
  // `stream` (no wait). d_r may be the factored matrices themselves.
  void write_r(T* const* d_r, const int64_t* ldr, cudaStream_t stream);
  void write_r_strided(T* d_r, int64_t ldr, int64_t stride, cudaStream_t stream);

  // Matrix b's factors on the host, in FR4's layout (download_options of
  // a single factorisation: tile 32, τ per tile, its tree), after factor();
  // InputError for an empty matrix, which has none.
  Factorization<T> download(int64_t b) const;
  // Every non-empty matrix's, in order, from one copy of each device array.
  std::vector<Factorization<T>> download_all() const;
  // CUDA-event time of the last factor() on the device (s).
  double device_seconds() const;

 private:
  void launch(const batch_detail::BatchPlaces<const T>& places, cudaStream_t stream);
  void write_r(const batch_detail::BatchPlaces<T>& places, cudaStream_t stream);
  void check_stack(const void* base, int64_t ld, int64_t stride, const char* what) const;
  std::unique_ptr<Fr4BatchState<T>> state_;
};

extern template class Fr4Batch<float>;
extern template class Fr4Batch<double>;

}  // namespace tiledqr::gpu
