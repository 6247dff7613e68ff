// Fr4Batch<T>'s definitions (fr4_batch.hpp), compiled with
// Fr4Factorization's in one .cu per scalar type (the QR kinds' executor is
// instantiated once): the batch graph on the warp kinds, the layout moves
// of a batch (one kernel each way, every matrix at once) and the download
// of one matrix's tiles from the shared grid.
#pragma once

#include "fr4_batch.hpp"

#include <algorithm>
#include <string>

#include "errors.hpp"
#include "fr4_qr.hpp"
#include "fr4_runner.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/layout_kernels.cuh"
#include "gpu/qr_result.hpp"
#include "gpu/qr_storage.hpp"
#include "qr_graph.hpp"
#include "size_check.hpp"

namespace tiledqr::gpu {

namespace batch_detail {

// A matrix of the batch graph (a non-empty one) as the layout kernels see it.
struct GridMember {
  int64_t m, n;
  int64_t first_column;  // its tile column 0 in the grid
};

// Grid element e (tile order, p tile rows of 32): its matrix, and its row
// and column there.
__device__ __forceinline__ void batch_element(int64_t e, int32_t p, const GridMember* members,
                                              const int32_t* member_of_column, int32_t& member, int64_t& row,
                                              int64_t& col) {
  const int64_t tile = e / tile_elements;
  const int64_t within = e % tile_elements;
  const int64_t column = tile / p;
  member = member_of_column[column];
  row = (tile % p) * warp_tile + within % warp_tile;
  col = (column - members[member].first_column) * warp_tile + within / warp_tile;
}

// Where the matrices lie: a table of addresses and leading dimensions
// (device arrays, one entry a grid member), or a strided stack (base
// non-null: member g at base + g·stride, every one with ld; a stack has
// one shape, so every matrix is a member).
template <typename P>
struct BatchPlaces {
  P* const* table = nullptr;
  const int64_t* ld_table = nullptr;
  P* base = nullptr;
  int64_t ld = 0, stride = 0;
  __device__ P* matrix(int32_t g) const { return base ? base + g * stride : table[g]; }
  __device__ int64_t ld_of(int32_t g) const { return base ? ld : ld_table[g]; }
};

// The grid's tiles ← every matrix; zeros past each matrix's edges.
template <typename T>
__global__ void batch_to_tiles_kernel(BatchPlaces<const T> a, const GridMember* members,
                                      const int32_t* member_of_column, T* tiles, int32_t p, int64_t q) {
  const int64_t total = int64_t(p) * q * tile_elements;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    int32_t b;
    int64_t row, col;
    batch_element(e, p, members, member_of_column, b, row, col);
    tiles[e] = row < members[b].m && col < members[b].n ? a.matrix(b)[row + col * a.ld_of(b)] : T(0);
  }
}

// Every matrix ← its R from the grid's tiles, zeros below the diagonal.
template <typename T>
__global__ void batch_r_kernel(const T* tiles, int32_t p, int64_t q, const GridMember* members,
                               const int32_t* member_of_column, BatchPlaces<T> r) {
  const int64_t total = int64_t(p) * q * tile_elements;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    int32_t b;
    int64_t row, col;
    batch_element(e, p, members, member_of_column, b, row, col);
    if (row < members[b].m && col < members[b].n) r.matrix(b)[row + col * r.ld_of(b)] = row <= col ? tiles[e] : T(0);
  }
}

// A host table's grid entries uploaded to `device` on `stream`, unless they
// are those of the last upload (`last`, kept): a plan called again on the
// same matrices sends nothing.
template <typename P>
void upload_table(const std::vector<P>& entries, std::vector<P>& last, DeviceBuffer<P>& device, cudaStream_t stream,
                  const char* what) {
  if (entries == last) return;
  // From pageable memory: the copy has read the host table when it returns.
  check(cudaMemcpyAsync(device.get(), entries.data(), entries.size() * sizeof(P), cudaMemcpyHostToDevice, stream),
        what);
  last = entries;
}

// The checks of a matrix table: leading dimensions, and non-null
// pointers for the non-empty matrices.
template <typename P>
void check_table(const std::vector<Fr4BatchMatrix>& matrices, const P* const* pointers, const int64_t* ld,
                 const char* name) {
  if (!pointers || !ld)
    throw InputError(std::string("the batch's ") + name + " and leading dimensions must not be NULL");
  for (size_t b = 0; b < matrices.size(); ++b) {
    const Fr4BatchMatrix& s = matrices[b];
    if (ld[b] < std::max<int64_t>(1, s.m))
      throw InputError(std::string("matrix ") + std::to_string(b) + " of the batch: its leading dimension " +
                       std::to_string(ld[b]) + " is below max(1, m) = " + std::to_string(std::max<int64_t>(1, s.m)));
    if (s.m > 0 && s.n > 0 && !pointers[b])
      throw InputError(std::string("matrix ") + std::to_string(b) + " of the batch: " + name + " is NULL");
  }
}

}  // namespace batch_detail

template <typename T>
struct Fr4BatchState {
  std::vector<Fr4BatchMatrix> matrices;
  std::vector<int32_t> graph_member;  // per matrix: its index among the grid's members, −1 if empty
  std::vector<int32_t> domains;       // per grid member: its tree's domains
  QrBatchGrid grid;
  int32_t tasks = 0;
  std::unique_ptr<GraphExec<QrKinds<T>>> exec;  // null when every matrix is empty
  QrStorage<T> storage;
  DeviceBuffer<batch_detail::GridMember> members;
  DeviceBuffer<int32_t> member_of_column;
  // The matrices' addresses and leading dimensions, one table for the
  // input and one for R, filled per call.
  DeviceBuffer<const T*> inputs;
  DeviceBuffer<T*> outputs;
  DeviceBuffer<int64_t> input_ld, output_ld;
  std::vector<const T*> last_inputs;
  std::vector<T*> last_outputs;
  std::vector<int64_t> last_input_ld, last_output_ld;
  EventTimer timer;
  bool pending = false, factored = false;
  double seconds = 0;

  // The non-empty matrices' entries of `table` (size() entries), in grid order.
  template <typename P>
  std::vector<P> grid_entries(const P* table) const {
    std::vector<P> out;
    out.reserve(grid.first_column.size());
    for (size_t b = 0; b < matrices.size(); ++b)
      if (graph_member[b] >= 0) out.push_back(table[b]);
    return out;
  }
};

template <typename T>
Fr4Batch<T>::Fr4Batch(const std::vector<Fr4BatchMatrix>& matrices, const Options& options) {
  if (options.tile != 0 && options.tile != 32)
    throw InputError("a batch runs the warp kernels' tiles of 32 (or 0: chosen); got tile " +
                     std::to_string(options.tile));
  std::vector<QrBatchMember> members;
  std::vector<int32_t> graph_member(matrices.size(), -1), domains;
  for (size_t b = 0; b < matrices.size(); ++b) {
    const Fr4BatchMatrix& s = matrices[b];
    if (s.m < 0 || s.n < 0)
      throw InputError("matrix " + std::to_string(b) + " of the batch: negative size " + std::to_string(s.m) + "x" +
                       std::to_string(s.n));
    if (s.m == 0 || s.n == 0) continue;
    Options tree_options = options;
    tree_options.tree = s.tree;
    tree_options.inner_tree = Tree::flat;
    const int32_t d = fr4_domains(s.m, 32, tree_options);
    graph_member[b] = int32_t(members.size());
    members.push_back(QrBatchMember{tile_count(s.m, 32), tile_count(s.n, 32), s.tree, d});
    domains.push_back(d);
  }
  if (!gpu::device_available()) throw GpuError("no CUDA-capable GPU is available (the task-graph QR runs on the GPU)");
  state_ = std::make_unique<Fr4BatchState<T>>();
  Fr4BatchState<T>& s = *state_;
  s.matrices = matrices;
  s.graph_member = std::move(graph_member);
  s.domains = std::move(domains);
  if (members.empty()) return;  // nothing to factor
  s.grid = qr_batch_grid(members);
  if (s.grid.p > INT32_MAX) throw InputError("the batch's tallest matrix has more tile rows than the executor holds");
  ExecOptions exec = warp_exec_options<T>(options);
  exec.trace = false;
  taskgraph::LayoutStream graph = qr_batch_graph(members, Team::warp);
  s.tasks = graph.num_tasks;
  s.exec = std::make_unique<GraphExec<QrKinds<T>>>(graph, exec);
  s.storage = QrStorage<T>(int32_t(s.grid.p), int32_t(s.grid.q), 32, 0);
  std::vector<batch_detail::GridMember> shapes;
  for (size_t b = 0; b < matrices.size(); ++b)
    if (s.graph_member[b] >= 0)
      shapes.push_back({matrices[b].m, matrices[b].n, s.grid.first_column[size_t(s.graph_member[b])]});
  std::vector<int32_t> column_member(size_t(s.grid.q));
  for (int64_t c = 0; c < s.grid.q; ++c) column_member[size_t(c)] = s.grid.member_of_column(c);
  const size_t count = shapes.size();
  s.members = DeviceBuffer<batch_detail::GridMember>(count, "the batch's shapes");
  s.member_of_column = DeviceBuffer<int32_t>(column_member.size(), "the batch's tile columns");
  s.inputs = DeviceBuffer<const T*>(count, "the batch's matrix table");
  s.outputs = DeviceBuffer<T*>(count, "the batch's matrix table");
  s.input_ld = DeviceBuffer<int64_t>(count, "the batch's matrix table");
  s.output_ld = DeviceBuffer<int64_t>(count, "the batch's matrix table");
  check(cudaMemcpy(s.members.get(), shapes.data(), count * sizeof(shapes[0]), cudaMemcpyHostToDevice),
        "uploading the batch's shapes");
  check(cudaMemcpy(s.member_of_column.get(), column_member.data(), column_member.size() * sizeof(int32_t),
                   cudaMemcpyHostToDevice),
        "uploading the batch's tile columns");
}

template <typename T>
Fr4Batch<T>::~Fr4Batch() = default;
template <typename T>
Fr4Batch<T>::Fr4Batch(Fr4Batch&&) noexcept = default;
template <typename T>
Fr4Batch<T>& Fr4Batch<T>::operator=(Fr4Batch&&) noexcept = default;

template <typename T>
int64_t Fr4Batch<T>::size() const { return int64_t(state_->matrices.size()); }
template <typename T>
const Fr4BatchMatrix& Fr4Batch<T>::matrix(int64_t b) const {
  if (b < 0 || b >= size()) throw InputError("the batch has no matrix " + std::to_string(b));
  return state_->matrices[size_t(b)];
}
template <typename T>
int32_t Fr4Batch<T>::task_count() const { return state_->tasks; }
template <typename T>
double Fr4Batch<T>::device_seconds() const { return state_->seconds; }

template <typename T>
void Fr4Batch<T>::launch_factor(const T* const* d_a, const int64_t* lda, cudaStream_t stream) {
  Fr4BatchState<T>& s = *state_;
  if (s.pending) throw InputError("launch_factor: the previous launch was not finished");
  batch_detail::check_table(s.matrices, d_a, lda, "the matrix");
  batch_detail::BatchPlaces<const T> places;
  if (s.exec) {
    batch_detail::upload_table(s.grid_entries(d_a), s.last_inputs, s.inputs, stream, "uploading the batch's matrix table");
    batch_detail::upload_table(s.grid_entries(lda), s.last_input_ld, s.input_ld, stream,
                               "uploading the batch's matrix table");
    places.table = s.inputs.get();
    places.ld_table = s.input_ld.get();
  }
  launch(places, stream);
}

template <typename T>
void Fr4Batch<T>::launch_factor_strided(const T* d_a, int64_t lda, int64_t stride, cudaStream_t stream) {
  Fr4BatchState<T>& s = *state_;
  if (s.pending) throw InputError("launch_factor: the previous launch was not finished");
  check_stack(d_a, lda, stride, "launch_factor_strided");
  batch_detail::BatchPlaces<const T> places;
  places.base = d_a;
  places.ld = lda;
  places.stride = stride;
  launch(places, stream);
}

template <typename T>
void Fr4Batch<T>::launch(const batch_detail::BatchPlaces<const T>& places, cudaStream_t stream) {
  Fr4BatchState<T>& s = *state_;
  s.timer.start(stream);
  if (s.exec) {
    batch_detail::batch_to_tiles_kernel<T><<<grid_for(int64_t(s.storage.tiles.size()), 8192), 256, 0, stream>>>(
        places, s.members.get(), s.member_of_column.get(), s.storage.tiles.get(), int32_t(s.grid.p), s.grid.q);
    check_launch("batch_to_tiles_kernel");
    QrRunParams<T> run{s.storage.tiles.get(), s.storage.t_local.get(), s.storage.t_merge.get(),
                       s.storage.tiles.get(), int32_t(s.grid.p)};
    qr_detail::throw_on_failure(s.exec->launch(run, stream), "the batch's task-graph QR");
  }
  s.timer.stop(stream);
  s.pending = true;
}

// The checks of a strided stack: one shape, a non-null base when it is not
// empty, ld ≥ max(1, m), stride ≥ ld·n.
template <typename T>
void Fr4Batch<T>::check_stack(const void* base, int64_t ld, int64_t stride, const char* what) const {
  const Fr4BatchState<T>& s = *state_;
  if (s.matrices.empty()) return;
  const Fr4BatchMatrix& first = s.matrices.front();
  for (const Fr4BatchMatrix& shape : s.matrices)
    if (shape.m != first.m || shape.n != first.n)
      throw InputError(std::string(what) + ": the batch's matrices differ in shape");
  if (ld < std::max<int64_t>(1, first.m))
    throw InputError(std::string(what) + ": the leading dimension must be >= max(1, m)");
  if (stride < ld * first.n) throw InputError(std::string(what) + ": the stride must be >= ld * n");
  if (first.m > 0 && first.n > 0 && !base) throw InputError(std::string(what) + ": the stack is NULL");
}

template <typename T>
void Fr4Batch<T>::finish_factor() {
  Fr4BatchState<T>& s = *state_;
  if (!s.pending) throw InputError("finish_factor without launch_factor");
  s.pending = false;
  if (s.exec) qr_detail::throw_on_failure(s.exec->wait(), "the batch's task-graph QR");
  s.seconds = s.timer.seconds();
  s.factored = true;
}

template <typename T>
void Fr4Batch<T>::factor(const T* const* d_a, const int64_t* lda) {
  launch_factor(d_a, lda, 0);
  finish_factor();
}

template <typename T>
void Fr4Batch<T>::write_r(T* const* d_r, const int64_t* ldr, cudaStream_t stream) {
  Fr4BatchState<T>& s = *state_;
  if (!s.factored) throw InputError("write_r: factor() the batch first");
  batch_detail::check_table(s.matrices, d_r, ldr, "R's matrix");
  if (!s.exec) return;
  batch_detail::upload_table(s.grid_entries(d_r), s.last_outputs, s.outputs, stream, "uploading the batch's table of R");
  batch_detail::upload_table(s.grid_entries(ldr), s.last_output_ld, s.output_ld, stream,
                             "uploading the batch's table of R");
  batch_detail::BatchPlaces<T> places;
  places.table = s.outputs.get();
  places.ld_table = s.output_ld.get();
  write_r(places, stream);
}

template <typename T>
void Fr4Batch<T>::write_r_strided(T* d_r, int64_t ldr, int64_t stride, cudaStream_t stream) {
  const Fr4BatchState<T>& s = *state_;
  if (!s.factored) throw InputError("write_r: factor() the batch first");
  check_stack(d_r, ldr, stride, "write_r_strided");
  batch_detail::BatchPlaces<T> places;
  places.base = d_r;
  places.ld = ldr;
  places.stride = stride;
  write_r(places, stream);
}

template <typename T>
void Fr4Batch<T>::write_r(const batch_detail::BatchPlaces<T>& places, cudaStream_t stream) {
  const Fr4BatchState<T>& s = *state_;
  if (!s.exec) return;
  batch_detail::batch_r_kernel<T><<<grid_for(int64_t(s.storage.tiles.size()), 8192), 256, 0, stream>>>(
      s.storage.tiles.get(), int32_t(s.grid.p), s.grid.q, s.members.get(), s.member_of_column.get(), places);
  check_launch("batch_r_kernel");
}

// Matrix b's factors from the grid's tiles and τ; `copy(to, from, count)`
// brings `count` elements of an array of the grid (tiles, t_local or
// t_merge: 0, 1, 2) from element `from` to host memory `to`.
template <typename T, typename Copy>
Factorization<T> member_factors(const Fr4BatchState<T>& s, int64_t b, Copy copy) {
  const Fr4BatchMatrix& shape = s.matrices[size_t(b)];
  const int32_t member = s.graph_member[size_t(b)];
  if (member < 0)
    throw InputError("matrix " + std::to_string(b) + " of the batch is empty (" + std::to_string(shape.m) + "x" +
                     std::to_string(shape.n) + "): it has no factors");
  Factorization<T> f;
  f.options.tile = 32;
  f.options.inner_block = 0;
  f.options.backend = Backend::reference;
  f.options.tree = shape.tree;
  f.options.inner_tree = Tree::flat;
  f.options.tree_domains = s.domains[size_t(member)];
  f.options.threads = 1;
  f.tiles = TileMatrix<T>(shape.m, shape.n, 32);
  // Its tile columns in the grid, each the first p_b tiles of a grid column.
  const int64_t p = tile_count(shape.m, 32), q = tile_count(shape.n, 32);
  const int64_t first = s.grid.first_column[size_t(member)];
  std::vector<T> t_local(size_t(p * q * warp_tile)), t_merge(t_local.size());
  for (int64_t j = 0; j < q; ++j) {
    const int64_t from = (first + j) * s.grid.p;
    copy(f.tiles.data.data() + j * p * tile_elements, 0, from * tile_elements, p * tile_elements);
    copy(t_local.data() + j * p * warp_tile, 1, from * warp_tile, p * warp_tile);
    copy(t_merge.data() + j * p * warp_tile, 2, from * warp_tile, p * warp_tile);
  }
  place_factor_blocks(f, int32_t(p), int32_t(q), warp_tile, t_local, t_merge);
  f.device_seconds = s.seconds;
  return f;
}

template <typename T>
Factorization<T> Fr4Batch<T>::download(int64_t b) const {
  const Fr4BatchState<T>& s = *state_;
  matrix(b);  // the index checked
  if (!s.factored) throw InputError("download: factor() the batch first");
  const T* arrays[3] = {s.storage.tiles.get(), s.storage.t_local.get(), s.storage.t_merge.get()};
  return member_factors<T>(s, b, [&](T* to, int array, int64_t from, int64_t count) {
    check(cudaMemcpy(to, arrays[array] + from, size_t(count) * sizeof(T), cudaMemcpyDeviceToHost),
          "downloading a matrix's factors");
  });
}

template <typename T>
std::vector<Factorization<T>> Fr4Batch<T>::download_all() const {
  const Fr4BatchState<T>& s = *state_;
  if (!s.factored) throw InputError("download: factor() the batch first");
  std::vector<Factorization<T>> out;
  if (!s.exec) return out;
  // One copy of each array, then every matrix's part of it.
  std::vector<T> host[3] = {std::vector<T>(s.storage.tiles.size()), std::vector<T>(s.storage.t_local.size()),
                            std::vector<T>(s.storage.t_merge.size())};
  const T* arrays[3] = {s.storage.tiles.get(), s.storage.t_local.get(), s.storage.t_merge.get()};
  for (int a = 0; a < 3; ++a)
    check(cudaMemcpy(host[a].data(), arrays[a], host[a].size() * sizeof(T), cudaMemcpyDeviceToHost),
          "downloading the batch's factors");
  out.reserve(s.matrices.size());
  for (int64_t b = 0; b < size(); ++b)
    if (s.graph_member[size_t(b)] >= 0)
      out.push_back(member_factors<T>(s, b, [&](T* to, int array, int64_t from, int64_t count) {
        std::copy_n(host[array].begin() + std::ptrdiff_t(from), count, to);
      }));
  return out;
}

}  // namespace tiledqr::gpu
