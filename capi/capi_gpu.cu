// The GPU flavour of the C interface (include/tiledqr/tiledqr_gpu.h): the
// FR4 QR workload (fr4_qr.hpp, the task graph on the generic scheduler) on
// the caller's stream, R written back into the caller's matrix, least
// squares on the device, and the architecture check before anything runs.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "boundary.hpp"
#include "fr4_batch.hpp"
#include "fr4_qr.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/kernel_image.hpp"
#include "gpu/layout_kernels.cuh"
#include "tiledqr/tiledqr_gpu.h"

// One plan: a single factorisation or a batch, in one precision.
template <typename T>
struct PlanOf {
  int64_t batch = 1, m = 0, n = 0;
  std::unique_ptr<tiledqr::gpu::Fr4Factorization<T>> one;  // batch = 1
  std::unique_ptr<tiledqr::gpu::Fr4Batch<T>> many;         // batch > 1
};
struct tiledqr_gpu_plan {
  // Exactly one is set: the plan remembers its precision.
  std::unique_ptr<PlanOf<double>> d;
  std::unique_ptr<PlanOf<float>> s;
};

struct tiledqr_gpu_factors {
  // Exactly one is set: the handle remembers its precision.
  std::unique_ptr<tiledqr::gpu::Fr4Factorization<double>> d;
  std::unique_ptr<tiledqr::gpu::Fr4Factorization<float>> s;
};

namespace tiledqr::capi {
namespace {

// TILEDQR_SUCCESS, or the status and message of check_kernel_image().
int device_status() {
  const gpu::KernelImageCheck check = gpu::check_kernel_image();
  if (check.ok) return TILEDQR_SUCCESS;
  return fail(check.no_device ? TILEDQR_ERR_NO_GPU : TILEDQR_ERR_GPU_ARCH, check.message);
}

// The options of a GPU factorisation of (m, n), checked before any CUDA
// call: tile 0 (chosen for the shape) or one the kernels run, with its
// inner block (gpu::fr4_tiles), and the tree (AUTO: the GPU's choice).
Options gpu_options(const tiledqr_options* in, int64_t m, int64_t n, bool single_precision) {
  const tiledqr_options o = in ? *in : tiledqr_options{};
  Options out;
  out.tile = o.tile;
  out.inner_block = o.inner_block;
  gpu::fr4_tiles(m, n, single_precision, out);  // InputError for a tile without kernels
  out.tree = tree_option(o.tree, gpu::fr4_tree_choice(m, n, single_precision));
  out.tree_domains = 0;  // the hierarchical tree's: chosen for the shape (gpu::fr4_domains)
  if (out.tree == Tree::tsqr)
    throw InputError("options.tree TILEDQR_TREE_TSQR runs on the CPU only (tiledqr_?geqrf); the GPU functions "
                     "take AUTO, FLAT, BINARY, GREEDY or HIERARCHICAL");
  return out;
}

void set(tiledqr_gpu_factors& h, std::unique_ptr<gpu::Fr4Factorization<double>> qr) { h.d = std::move(qr); }
void set(tiledqr_gpu_factors& h, std::unique_ptr<gpu::Fr4Factorization<float>> qr) { h.s = std::move(qr); }

// A_i ← R_i for the stack at d_a with a plan already made (its arguments
// checked against the plan), on `stream`, waited for there.
template <typename T>
void run_plan(PlanOf<T>& plan, T* d_a, int64_t ldda, int64_t stride, cudaStream_t stream) {
  if (plan.one) {
    plan.one->launch_factor(d_a, ldda, stream);
    plan.one->finish_factor();
    gpu::extract_r_kernel<T><<<gpu::grid_for(plan.m * plan.n), 256, 0, stream>>>(
        plan.one->device_tiles(), plan.one->tile_rows(), plan.one->tile_size(), plan.m, plan.n, d_a, ldda);
    gpu::check_launch("writing R");
  } else {
    plan.many->launch_factor_strided(d_a, ldda, stride, stream);
    plan.many->finish_factor();
    plan.many->write_r_strided(d_a, ldda, stride, stream);
  }
  gpu::check(cudaStreamSynchronize(stream), "writing R");
}

// Factors dA (m, n), ldda, on `stream` and leaves R in it, zeros below the
// diagonal down to row m; throws on any failure. The arguments are checked.
template <typename T>
std::unique_ptr<gpu::Fr4Factorization<T>> factor_on_device(int64_t m, int64_t n, T* d_a, int64_t ldda,
                                                   const Options& options, cudaStream_t stream) {
  PlanOf<T> plan;  // a plan of one run (tiledqr_gpu_?geqrf_plan's)
  plan.m = m;
  plan.n = n;
  plan.one = std::make_unique<gpu::Fr4Factorization<T>>(m, n, options);
  run_plan(plan, d_a, ldda, ldda * n, stream);
  return std::move(plan.one);
}

template <typename T>
int gpu_geqrf(int64_t m, int64_t n, T* d_a, int64_t ldda, tiledqr_gpu_factors** out, const tiledqr_options* opts,
              cudaStream_t stream) {
  if (out) *out = nullptr;
  return guarded([&] {
    // The arguments first: a bad one gives TILEDQR_ERR_INVALID_ARGUMENT
    // before any CUDA call, with or without a GPU.
    check_shape(m, n, d_a, ldda, "dA");
    const Options options = gpu_options(opts, m, n, sizeof(T) == sizeof(float));
    if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
    std::unique_ptr<gpu::Fr4Factorization<T>> qr = factor_on_device(m, n, d_a, ldda, options, stream);
    if (out) {
      auto handle = std::make_unique<tiledqr_gpu_factors>();
      set(*handle, std::move(qr));
      *out = handle.release();
    }
    return int(TILEDQR_SUCCESS);
  });
}

template <typename T>
int gpu_geqrf_host(int64_t m, int64_t n, T* a, int64_t lda, tiledqr_factors** out, const tiledqr_options* opts) {
  if (out) *out = nullptr;
  return guarded([&] {
    check_shape(m, n, a, lda, "A");  // the arguments before any CUDA call
    const Options options = gpu_options(opts, m, n, sizeof(T) == sizeof(float));
    check_finite(a, m, n, lda, "A");
    if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
    const gpu::DeviceBuffer<T> d_a = gpu::upload_matrix(a, m, n, lda);
    std::unique_ptr<gpu::Fr4Factorization<T>> qr = factor_on_device(m, n, d_a.get(), m, options, cudaStream_t(0));
    // Download the factors before R, so a failure leaves A unchanged.
    std::unique_ptr<Factorization<T>> host;
    if (out) host = std::make_unique<Factorization<T>>(qr->download());
    gpu::check(cudaMemcpy2D(a, size_t(lda) * sizeof(T), d_a.get(), size_t(m) * sizeof(T), size_t(m) * sizeof(T),
                            size_t(n), cudaMemcpyDeviceToHost),
               "copying R to the host");
    if (out) *out = make_factors(std::move(host));
    return int(TILEDQR_SUCCESS);
  });
}

// X = argmin ‖A X − B‖_F on the device, A (m, n) with m ≥ n in d_a, B (m,
// nrhs) in d_b, both checked: A ← R (factored on `stream`), then the rank
// check on R's diagonal and, for a matrix of full rank, B's first n rows ← X
// (Qᵀ B and the triangular solve, DeviceFactorization::solve, on the
// default stream). Throws on a CUDA failure.
template <typename T>
int solve_on_device(int64_t m, int64_t n, int64_t nrhs, T* d_a, int64_t ldda, T* d_b, int64_t lddb,
                    const Options& options, cudaStream_t stream) {
  const std::unique_ptr<gpu::Fr4Factorization<T>> qr = factor_on_device(m, n, d_a, ldda, options, stream);
  std::vector<T> diagonal(static_cast<size_t>(n));
  gpu::check(cudaMemcpy2D(diagonal.data(), sizeof(T), d_a, size_t(ldda + 1) * sizeof(T), sizeof(T), size_t(n),
                          cudaMemcpyDeviceToHost),
             "reading R's diagonal");
  if (const int status = rank_status(diagonal.data(), 1, m, n); status != TILEDQR_SUCCESS) return status;
  // X may overwrite B: solve reads all of B into tiles before it writes X,
  // in order on one stream.
  if (nrhs > 0) qr->solve(d_b, lddb, nrhs, d_b, lddb);
  return int(TILEDQR_SUCCESS);
}

template <typename T>
int gpu_gels(int64_t m, int64_t n, int64_t nrhs, T* d_a, int64_t ldda, T* d_b, int64_t lddb,
             const tiledqr_options* opts, cudaStream_t stream) {
  return guarded([&] {
    check_shape(m, n, d_a, ldda, "dA");  // the arguments before any CUDA call
    check_least_squares(m, n, nrhs, d_b, lddb, "dB");
    const Options options = gpu_options(opts, m, n, sizeof(T) == sizeof(float));
    if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
    return solve_on_device(m, n, nrhs, d_a, ldda, d_b, lddb, options, stream);
  });
}

// tiledqr_?gels for host arrays, on the GPU: A ← R once factored (also when
// rank-deficient), B's first n rows ← X on success; B as it was otherwise.
template <typename T>
int gpu_gels_host(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb,
                  const tiledqr_options* opts) {
  return guarded([&] {
    check_shape(m, n, a, lda, "A");  // the arguments before any CUDA call
    check_least_squares(m, n, nrhs, b, ldb, "B");
    const Options options = gpu_options(opts, m, n, sizeof(T) == sizeof(float));
    check_finite(a, m, n, lda, "A");
    check_finite(b, m, nrhs, ldb, "B");
    if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
    const gpu::DeviceBuffer<T> d_a = gpu::upload_matrix(a, m, n, lda);
    const gpu::DeviceBuffer<T> d_b = gpu::upload_matrix(b, m, nrhs, ldb);
    const int status = solve_on_device(m, n, nrhs, d_a.get(), m, d_b.get(), m, options, cudaStream_t(0));
    gpu::check(cudaMemcpy2D(a, size_t(lda) * sizeof(T), d_a.get(), size_t(m) * sizeof(T), size_t(m) * sizeof(T),
                            size_t(n), cudaMemcpyDeviceToHost),
               "copying R to the host");
    if (status == TILEDQR_SUCCESS && nrhs > 0)
      gpu::check(cudaMemcpy2D(b, size_t(ldb) * sizeof(T), d_b.get(), size_t(m) * sizeof(T), size_t(n) * sizeof(T),
                              size_t(nrhs), cudaMemcpyDeviceToHost),
                 "copying X to the host");
    return status;
  });
}

// The tree of a GPU batch's matrices (m, n), from the options, checked:
// tiles of 32 (options.tile 0 or 32, no inner block), options.tree for
// every matrix (AUTO: fr4_batch_tree). Needs no device.
Tree batch_tree(const tiledqr_options* in, int64_t m, int64_t n) {
  const tiledqr_options o = in ? *in : tiledqr_options{};
  if (o.tile != 0 && o.tile != 32)
    throw InputError("options.tile: a batch on the GPU runs tiles of 32 (or 0: chosen); got " + std::to_string(o.tile));
  if (o.inner_block != 0 && o.inner_block != 32)
    throw InputError("options.inner_block: tiles of 32 have none (0); got " + std::to_string(o.inner_block));
  const Tree tree = tree_option(o.tree, gpu::fr4_batch_tree(m, n));
  if (tree == Tree::tsqr)
    throw InputError("options.tree TILEDQR_TREE_TSQR runs on the CPU only; a GPU batch takes AUTO, FLAT, BINARY or "
                     "GREEDY");
  return tree;
}

template <typename T>
gpu::Fr4Batch<T> plan_batch(int64_t batch, int64_t m, int64_t n, Tree tree) {
  Options options;
  options.tile = 32;
  return gpu::Fr4Batch<T>(std::vector<gpu::Fr4BatchMatrix>(size_t(batch), gpu::Fr4BatchMatrix{m, n, tree}), options);
}

template <typename T>
int gpu_geqrf_batch(int64_t batch, int64_t m, int64_t n, T* d_a, int64_t ldda, int64_t stride, const tiledqr_options* opts,
                    cudaStream_t stream) {
  return guarded([&] {
    check_batch(batch, m, n, d_a, ldda, stride, "dA");  // the arguments before any CUDA call
    const Tree tree = batch_tree(opts, m, n);
    if (batch == 0 || m == 0 || n == 0) return int(TILEDQR_SUCCESS);
    if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
    PlanOf<T> plan;  // a plan of one run (tiledqr_gpu_?geqrf_plan's)
    plan.batch = batch;
    plan.m = m;
    plan.n = n;
    plan.many = std::make_unique<gpu::Fr4Batch<T>>(plan_batch<T>(batch, m, n, tree));
    run_plan(plan, d_a, ldda, batch > 1 ? stride : ldda * n, stream);
    return int(TILEDQR_SUCCESS);
  });
}

template <typename T>
int gpu_geqrf_vbatch(int64_t batch, const int64_t* m, const int64_t* n, T* const* d_a, const int64_t* ldda,
                     const tiledqr_options* opts, cudaStream_t stream) {
  return guarded([&] {
    // The arguments before any CUDA call.
    if (batch < 0) throw InputError("batch must be >= 0, got " + std::to_string(batch));
    if (batch > 0 && (!m || !n || !d_a || !ldda)) throw InputError("m, n, dA and ldda must not be NULL");
    std::vector<gpu::Fr4BatchMatrix> shapes;
    bool work = false;
    for (int64_t i = 0; i < batch; ++i) {
      check_matrix(m[i], n[i], d_a[i], ldda[i], "dA[" + std::to_string(i) + "]");
      shapes.push_back({m[i], n[i], batch_tree(opts, m[i], n[i])});
      work = work || (m[i] > 0 && n[i] > 0);
    }
    if (!work) {
      batch_tree(opts, 1, 1);  // the options' values, checked even when nothing is factored
      return int(TILEDQR_SUCCESS);
    }
    if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
    Options options;
    options.tile = 32;
    gpu::Fr4Batch<T> plan(shapes, options);
    plan.launch_factor(d_a, ldda, stream);
    plan.finish_factor();
    plan.write_r(d_a, ldda, stream);
    gpu::check(cudaStreamSynchronize(stream), "writing R");
    return int(TILEDQR_SUCCESS);
  });
}

// tiledqr_?geqrf_batch of tiledqr.h (the CPU's), by precision.
inline int cpu_geqrf_batch(int64_t batch, int64_t m, int64_t n, double* a, int64_t lda, int64_t stride,
                           tiledqr_factors** out, const tiledqr_options* opts) {
  return tiledqr_dgeqrf_batch(batch, m, n, a, lda, stride, out, opts);
}
inline int cpu_geqrf_batch(int64_t batch, int64_t m, int64_t n, float* a, int64_t lda, int64_t stride,
                           tiledqr_factors** out, const tiledqr_options* opts) {
  return tiledqr_sgeqrf_batch(batch, m, n, a, lda, stride, out, opts);
}

// The host stack's span, from A_0's first entry to A_{batch−1}'s last.
inline int64_t stack_span(int64_t batch, int64_t m, int64_t n, int64_t lda, int64_t stride) {
  return (batch - 1) * stride + (n - 1) * lda + m;
}

template <typename T>
int gpu_geqrf_batch_host(int64_t batch, int64_t m, int64_t n, T* a, int64_t lda, int64_t stride,
                         tiledqr_factors** out, const tiledqr_options* opts) {
  if (out)
    for (int64_t i = 0; i < batch; ++i) out[i] = nullptr;
  return guarded([&] {
    check_batch(batch, m, n, a, lda, stride, "A");  // the arguments before any CUDA call
    const Tree tree = batch_tree(opts, m, n);
    for (int64_t i = 0; i < batch; ++i) check_finite(a + i * stride, m, n, lda, ("A[" + std::to_string(i) + "]").c_str());
    if (batch == 0 || m == 0 || n == 0) {
      // Nothing for the GPU: the CPU's empty factors, as tiledqr_?geqrf_batch gives them.
      tiledqr_options cpu = opts ? *opts : tiledqr_options{};
      cpu.tile = 0;
      cpu.tree = TILEDQR_TREE_AUTO;
      return cpu_geqrf_batch(batch, m, n, a, lda, stride, out, &cpu);
    }
    if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
    gpu::Fr4Batch<T> plan = plan_batch<T>(batch, m, n, tree);
    // One copy each way of the stack's whole span (its gaps are sent and not
    // changed: R is written into the matrices' entries only).
    const int64_t span = stack_span(batch, m, n, lda, stride);
    const gpu::DeviceBuffer<T> d_a(size_t(span), "the batch");
    gpu::check(cudaMemcpy(d_a.get(), a, size_t(span) * sizeof(T), cudaMemcpyHostToDevice), "copying the batch");
    plan.launch_factor_strided(d_a.get(), lda, batch > 1 ? stride : lda * n, cudaStream_t(0));
    plan.finish_factor();
    // The factors first, so a failure leaves A unchanged.
    std::vector<std::unique_ptr<Factorization<T>>> host;
    if (out)
      for (Factorization<T>& f : plan.download_all()) host.push_back(std::make_unique<Factorization<T>>(std::move(f)));
    plan.write_r_strided(d_a.get(), lda, batch > 1 ? stride : lda * n, cudaStream_t(0));
    // Back column by column (the caller's memory between the matrices is
    // not written): one copy when the matrices follow each other
    // (stride_a = lda·n), their columns then one sequence.
    const int64_t step = batch > 1 ? stride : lda * n;
    const bool packed = step == lda * n;
    for (int64_t i = 0; i < (packed ? 1 : batch); ++i)
      gpu::check(cudaMemcpy2D(a + i * step, size_t(lda) * sizeof(T), d_a.get() + i * step, size_t(lda) * sizeof(T),
                              size_t(m) * sizeof(T), size_t(packed ? batch * n : n), cudaMemcpyDeviceToHost),
                 "copying R to the host");
    if (out)
      for (int64_t i = 0; i < batch; ++i) out[i] = make_factors(std::move(host[size_t(i)]));
    return int(TILEDQR_SUCCESS);
  });
}

template <typename T>
std::unique_ptr<PlanOf<T>>& plan_slot(tiledqr_gpu_plan& p);
template <>
std::unique_ptr<PlanOf<double>>& plan_slot<double>(tiledqr_gpu_plan& p) { return p.d; }
template <>
std::unique_ptr<PlanOf<float>>& plan_slot<float>(tiledqr_gpu_plan& p) { return p.s; }

template <typename T>
int make_plan(tiledqr_gpu_plan** out, int64_t batch, int64_t m, int64_t n, const tiledqr_options* opts) {
  if (out) *out = nullptr;
  return guarded([&] {
    if (!out) throw InputError("plan is NULL");
    if (batch < 1) throw InputError("batch must be >= 1, got " + std::to_string(batch));
    if (m < 1 || n < 1)
      throw InputError("the matrix must be at least 1x1, got " + std::to_string(m) + "x" + std::to_string(n));
    auto plan = std::make_unique<PlanOf<T>>();
    plan->batch = batch;
    plan->m = m;
    plan->n = n;
    // The options first: a bad one gives TILEDQR_ERR_INVALID_ARGUMENT
    // before any CUDA call, with or without a GPU.
    if (batch == 1) {
      const Options options = gpu_options(opts, m, n, sizeof(T) == sizeof(float));
      if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
      plan->one = std::make_unique<gpu::Fr4Factorization<T>>(m, n, options);
    } else {
      const Tree tree = batch_tree(opts, m, n);
      if (const int status = device_status(); status != TILEDQR_SUCCESS) return status;
      plan->many = std::make_unique<gpu::Fr4Batch<T>>(plan_batch<T>(batch, m, n, tree));
    }
    auto handle = std::make_unique<tiledqr_gpu_plan>();
    plan_slot<T>(*handle) = std::move(plan);
    *out = handle.release();
    return int(TILEDQR_SUCCESS);
  });
}

template <typename T>
int execute_plan(tiledqr_gpu_plan* handle, T* d_a, int64_t ldda, int64_t stride, cudaStream_t stream) {
  return guarded([&] {
    if (!handle) throw InputError("plan is NULL");
    PlanOf<T>* plan = plan_slot<T>(*handle).get();
    if (!plan)
      throw InputError(std::string("the plan was made for ") + (sizeof(T) == sizeof(double) ? "float" : "double") +
                       " matrices (tiledqr_gpu_" + (sizeof(T) == sizeof(double) ? "s" : "d") + "geqrf_plan)");
    check_batch(plan->batch, plan->m, plan->n, d_a, ldda, plan->batch > 1 ? stride : ldda * plan->n, "dA");
    run_plan(*plan, d_a, ldda, plan->batch > 1 ? stride : ldda * plan->n, stream);
    return int(TILEDQR_SUCCESS);
  });
}

}  // namespace
}  // namespace tiledqr::capi

using namespace tiledqr::capi;

extern "C" {

int tiledqr_gpu_check_device(void) {
  return guarded([] { return device_status(); });
}

int tiledqr_gpu_dgeqrf(int64_t m, int64_t n, double* dA, int64_t ldda, tiledqr_gpu_factors** factors,
                       const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_geqrf(m, n, dA, ldda, factors, opts, stream);
}
int tiledqr_gpu_sgeqrf(int64_t m, int64_t n, float* dA, int64_t ldda, tiledqr_gpu_factors** factors,
                       const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_geqrf(m, n, dA, ldda, factors, opts, stream);
}

int tiledqr_gpu_factors_download(const tiledqr_gpu_factors* factors, tiledqr_factors** host) {
  if (host) *host = nullptr;
  return guarded([&] {
    if (!factors) throw tiledqr::InputError("factors is NULL");
    if (!host) throw tiledqr::InputError("host is NULL");
    if (factors->d) *host = make_factors(std::make_unique<tiledqr::Factorization<double>>(factors->d->download()));
    else *host = make_factors(std::make_unique<tiledqr::Factorization<float>>(factors->s->download()));
    return int(TILEDQR_SUCCESS);
  });
}

int tiledqr_gpu_dgeqrf_host(int64_t m, int64_t n, double* A, int64_t lda, tiledqr_factors** factors,
                            const tiledqr_options* opts) {
  return gpu_geqrf_host(m, n, A, lda, factors, opts);
}
int tiledqr_gpu_sgeqrf_host(int64_t m, int64_t n, float* A, int64_t lda, tiledqr_factors** factors,
                            const tiledqr_options* opts) {
  return gpu_geqrf_host(m, n, A, lda, factors, opts);
}

int tiledqr_gpu_dgels(int64_t m, int64_t n, int64_t nrhs, double* dA, int64_t ldda, double* dB, int64_t lddb,
                      const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_gels(m, n, nrhs, dA, ldda, dB, lddb, opts, stream);
}
int tiledqr_gpu_sgels(int64_t m, int64_t n, int64_t nrhs, float* dA, int64_t ldda, float* dB, int64_t lddb,
                      const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_gels(m, n, nrhs, dA, ldda, dB, lddb, opts, stream);
}

int tiledqr_gpu_dgels_host(int64_t m, int64_t n, int64_t nrhs, double* A, int64_t lda, double* B, int64_t ldb,
                           const tiledqr_options* opts) {
  return gpu_gels_host(m, n, nrhs, A, lda, B, ldb, opts);
}
int tiledqr_gpu_sgels_host(int64_t m, int64_t n, int64_t nrhs, float* A, int64_t lda, float* B, int64_t ldb,
                           const tiledqr_options* opts) {
  return gpu_gels_host(m, n, nrhs, A, lda, B, ldb, opts);
}

int tiledqr_gpu_dgeqrf_batch(int64_t batch, int64_t m, int64_t n, double* dA, int64_t ldda, int64_t stride_a,
                             const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_geqrf_batch(batch, m, n, dA, ldda, stride_a, opts, stream);
}
int tiledqr_gpu_sgeqrf_batch(int64_t batch, int64_t m, int64_t n, float* dA, int64_t ldda, int64_t stride_a,
                             const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_geqrf_batch(batch, m, n, dA, ldda, stride_a, opts, stream);
}

int tiledqr_gpu_dgeqrf_vbatch(int64_t batch, const int64_t* m, const int64_t* n, double* const* dA,
                              const int64_t* ldda, const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_geqrf_vbatch(batch, m, n, dA, ldda, opts, stream);
}
int tiledqr_gpu_sgeqrf_vbatch(int64_t batch, const int64_t* m, const int64_t* n, float* const* dA,
                              const int64_t* ldda, const tiledqr_options* opts, cudaStream_t stream) {
  return gpu_geqrf_vbatch(batch, m, n, dA, ldda, opts, stream);
}

int tiledqr_gpu_dgeqrf_batch_host(int64_t batch, int64_t m, int64_t n, double* A, int64_t lda, int64_t stride_a,
                                  tiledqr_factors** factors, const tiledqr_options* opts) {
  return gpu_geqrf_batch_host(batch, m, n, A, lda, stride_a, factors, opts);
}
int tiledqr_gpu_sgeqrf_batch_host(int64_t batch, int64_t m, int64_t n, float* A, int64_t lda, int64_t stride_a,
                                  tiledqr_factors** factors, const tiledqr_options* opts) {
  return gpu_geqrf_batch_host(batch, m, n, A, lda, stride_a, factors, opts);
}

int tiledqr_gpu_dgeqrf_plan(tiledqr_gpu_plan** plan, int64_t batch, int64_t m, int64_t n,
                            const tiledqr_options* opts) {
  return make_plan<double>(plan, batch, m, n, opts);
}
int tiledqr_gpu_sgeqrf_plan(tiledqr_gpu_plan** plan, int64_t batch, int64_t m, int64_t n,
                            const tiledqr_options* opts) {
  return make_plan<float>(plan, batch, m, n, opts);
}
int tiledqr_gpu_dgeqrf_execute(tiledqr_gpu_plan* plan, double* dA, int64_t ldda, int64_t stride_a,
                               cudaStream_t stream) {
  return execute_plan(plan, dA, ldda, stride_a, stream);
}
int tiledqr_gpu_sgeqrf_execute(tiledqr_gpu_plan* plan, float* dA, int64_t ldda, int64_t stride_a,
                               cudaStream_t stream) {
  return execute_plan(plan, dA, ldda, stride_a, stream);
}
void tiledqr_gpu_plan_destroy(tiledqr_gpu_plan* plan) { delete plan; }

void tiledqr_gpu_factors_free(tiledqr_gpu_factors* factors) { delete factors; }

}  // extern "C"
