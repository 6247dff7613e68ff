// tiledqr_block_kernel_bench — throughput of the block kernels
// (common/kernels/block: tsmqr, ttmqr, ormqr, geqrt, tsqrt) on many independent tasks, one block
// each, enough to fill every SM several times, against peers measured in the
// same run: the FP64 tensor-core (DMMA) and FP32 FMA peaks from throughput
// probes, and cuBLAS ?gemmStridedBatched doing the same products without the
// T factor (W = Vᵀ·A2 and A2 −= V·W, 4·nb³ flops a task) — see
// report/data/block_kernels.csv.
//
// Each task has its own A1 and A2 (or C); the V and T of the tasks come from
// --panels LAPACK factorisations (?tpqrt, ?geqrt) shared round robin, as in a
// tile QR step where one panel's reflectors update a row of tiles. Times:
// CUDA events around --batch launches, median of --repeats samples after
// warm-ups. The register-resident warp tsmqr (32 × 32 tiles) runs beside
// FR3's warp tsmqr in the same way.
//   tiledqr_block_kernel_bench [--out FILE] [--commit HASH] [--waves W] [--panels P]
//                              [--repeats R] [--batch B] [--only 'KERNEL PRECISION NB IB']
// --only runs one case (e.g. 'tsmqr double 128 32'), for a profiler.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <lapacke.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/block/device_primitives.cuh"
#include "kernels/block/geqrt.cuh"
#include "kernels/block/ormqr.cuh"
#include "kernels/block/tsmqr.cuh"
#include "kernels/block/ttmqr.cuh"
#include "kernels/host/tsqrt.hpp"
#include "kernels/warp_registers/tsmqr.cuh"
#include "kernels/warp/tsmqr.cuh"
#include "errors.hpp"
#include "gpu/cuda_check.hpp"
#include "program.hpp"
#include "random_values.hpp"
#include "strict_numbers.hpp"

namespace {

namespace block = tiledqr::kernels::block;
using tiledqr::random_values;

using tiledqr::gpu::check;  // CUDA's errors: GpuError with CUDA's text (exit 4)
void cublas_ok(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw tiledqr::GpuError(std::string(what) + ": cuBLAS status " + std::to_string(int(status)));
}

struct Settings {
  int waves = 8, panels = 8, repeats = 7, batch = 5;
};

// Milliseconds per launch of `launch` (median of the samples, each the mean
// of s.batch launches) and the fastest sample.
struct Timing {
  double median_ms, min_ms;
};
Timing time_launches(const Settings& s, const std::function<void()>& launch) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int w = 0; w < 2; ++w) launch();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> samples;
  for (int r = 0; r < s.repeats; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    for (int b = 0; b < s.batch; ++b) launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    samples.push_back(double(ms) / s.batch);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front()};
}

// DMMA probe: every warp keeps 8 independent m16n8k4 products in flight.
__global__ void dmma_probe_kernel(int iterations, double* sink) {
  double acc[8][4] = {};
  const double a0 = 1.0 + threadIdx.x * 1e-9, a1 = 1.0 - threadIdx.x * 1e-9, b0 = 0.5;
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int u = 0; u < 8; ++u) block::mma_m16n8k4(acc[u], a0, a1, b0);
  double total = 0;
#pragma unroll
  for (int u = 0; u < 8; ++u) total += acc[u][0] + acc[u][1] + acc[u][2] + acc[u][3];
  if (total == 12345.0) sink[threadIdx.x] = total;  // keeps the products alive
}

// FFMA probe: every thread keeps 8 independent FMA chains.
__global__ void ffma_probe_kernel(int iterations, float* sink) {
  float acc[8];
#pragma unroll
  for (int u = 0; u < 8; ++u) acc[u] = float(threadIdx.x + u);
  const float x = 0.999f, y = 1e-3f;
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int u = 0; u < 8; ++u) acc[u] = fmaf(acc[u], x, y);
  float total = 0;
#pragma unroll
  for (int u = 0; u < 8; ++u) total += acc[u];
  if (total == 12345.0f) sink[threadIdx.x] = total;
}

// DMMA sweep: every warp keeps CHAINS independent m16n8kK products in
// flight (K = 4, 8 or 16), so the rate against warps a multiprocessor and
// chains a warp says how much independent work the tensor cores need.
template <int K, int CHAINS>
__global__ void dmma_sweep_kernel(int iterations, double* sink) {
  double acc[CHAINS][4] = {};
  const double x = 1.0 + threadIdx.x * 1e-9, y = 0.5;
  const double a[8] = {x, y, x, y, x, y, x, y}, b[4] = {y, x, y, x};
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int u = 0; u < CHAINS; ++u) {
      if constexpr (K == 4) block::mma_m16n8k4(acc[u], a[0], a[1], b[0]);
      else if constexpr (K == 8) block::mma_m16n8k8(acc[u], a[0], a[1], a[2], a[3], b[0], b[1]);
      else block::mma_m16n8k16(acc[u], a, b);
    }
  double total = 0;
#pragma unroll
  for (int u = 0; u < CHAINS; ++u) total += acc[u][0] + acc[u][1] + acc[u][2] + acc[u][3];
  if (total == 12345.0) sink[threadIdx.x] = total;
}

struct SweepRow {
  int k, chains, warps_per_sm;
  double tflops;
};

// The sweep at 4, 8, 16 and 32 warps a multiprocessor (blocks of 4 warps).
template <int K, int CHAINS>
void dmma_sweep(const Settings& s, const cudaDeviceProp& prop, double* sink, std::vector<SweepRow>& rows) {
  const int iterations = 2048 / CHAINS;
  for (const int warps : {4, 8, 16, 32}) {
    const int blocks = prop.multiProcessorCount * (warps / 4);
    const Timing t = time_launches(s, [&] { dmma_sweep_kernel<K, CHAINS><<<blocks, 128>>>(iterations, sink); });
    check(cudaGetLastError(), "DMMA sweep");
    const double flops = double(blocks) * 4 * iterations * CHAINS * (16.0 * 8 * K * 2);
    rows.push_back({K, CHAINS, warps, flops / (t.median_ms * 1e-3) / 1e12});
  }
}

void write_dmma_sweep(const Settings& s, const cudaDeviceProp& prop, const std::string& path,
                      const std::string& header) {
  double* sink = nullptr;
  check(cudaMalloc(&sink, 128 * sizeof(double)), "cudaMalloc");
  std::vector<SweepRow> rows;
  dmma_sweep<4, 4>(s, prop, sink, rows);
  dmma_sweep<4, 8>(s, prop, sink, rows);
  dmma_sweep<8, 1>(s, prop, sink, rows);
  dmma_sweep<8, 2>(s, prop, sink, rows);
  dmma_sweep<8, 4>(s, prop, sink, rows);
  dmma_sweep<8, 8>(s, prop, sink, rows);
  dmma_sweep<16, 1>(s, prop, sink, rows);
  dmma_sweep<16, 2>(s, prop, sink, rows);
  dmma_sweep<16, 4>(s, prop, sink, rows);
  dmma_sweep<16, 8>(s, prop, sink, rows);
  cudaFree(sink);
  std::ofstream out(path);
  out << header << "k,chains_per_warp,warps_per_sm,tflops\n";
  for (const SweepRow& r : rows) {
    out << r.k << ',' << r.chains << ',' << r.warps_per_sm << ',' << r.tflops << '\n';
    std::fprintf(stderr, "DMMA m16n8k%d, %d chains a warp, %d warps an SM: %.1f TFLOP/s\n", r.k, r.chains,
                 r.warps_per_sm, r.tflops);
  }
  out.close();
  if (!out) throw tiledqr::InputError("writing " + path + " failed");
}

// TFLOP/s of a probe on (SMs × 4) blocks of 256 threads.
double probe_tflops(const Settings& s, const cudaDeviceProp& prop, bool dmma) {
  const int blocks = prop.multiProcessorCount * 4, threads = 256, iterations = 4096;
  double* sink = nullptr;
  check(cudaMalloc(&sink, threads * sizeof(double)), "cudaMalloc");
  const Timing t = time_launches(s, [&] {
    if (dmma) dmma_probe_kernel<<<blocks, threads>>>(iterations, sink);
    else ffma_probe_kernel<<<blocks, threads>>>(iterations, reinterpret_cast<float*>(sink));
  });
  check(cudaGetLastError(), "probe");
  cudaFree(sink);
  const double flops = dmma ? double(blocks) * (threads / 32) * iterations * 8 * (16.0 * 8 * 4 * 2)
                            : double(blocks) * threads * iterations * 8 * 2.0;
  return flops / (t.median_ms * 1e-3) / 1e12;
}

template <typename T>
struct DeviceVector {
  T* data = nullptr;
  explicit DeviceVector(const std::vector<T>& host) {
    check(cudaMalloc(&data, std::max<std::size_t>(host.size(), 1) * sizeof(T)), "cudaMalloc");
    check(cudaMemcpy(data, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  ~DeviceVector() { cudaFree(data); }
};

lapack_int factor_stacked(int b, int ib, double* r, double* v, double* t) {
  std::vector<double> work(std::size_t(ib) * b);
  return LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, b, b, 0, ib, r, b, v, b, t, ib, work.data());
}
lapack_int factor_stacked(int b, int ib, float* r, float* v, float* t) {
  std::vector<float> work(std::size_t(ib) * b);
  return LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, b, b, 0, ib, r, b, v, b, t, ib, work.data());
}
lapack_int factor_tile(int b, int ib, double* v, double* t) {
  std::vector<double> work(std::size_t(ib) * b);
  return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, b, b, ib, v, b, t, ib, work.data());
}
lapack_int factor_tile(int b, int ib, float* v, float* t) {
  std::vector<float> work(std::size_t(ib) * b);
  return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, b, b, ib, v, b, t, ib, work.data());
}

struct Row {
  std::string kernel, precision;
  int nb, ib, tasks;
  Timing timing;
  double block_us, tflops, peak_tflops, cublas_tflops;
  double check_error = -1;  // ‖ΔA‖_F / ‖A‖_F against LAPACK where checked, else −1
};

// A row of the table: what ran and how fast; flops per task.
template <typename T>
Row make_row(const char* kernel, int nb, int ib, int tasks, const Timing& timing, int blocks_per_sm,
             const cudaDeviceProp& prop, double flops_per_task) {
  Row row;
  row.kernel = kernel;
  row.precision = sizeof(T) == 8 ? "double" : "float";
  row.nb = nb;
  row.ib = ib;
  row.tasks = tasks;
  row.timing = timing;
  const double resident = double(prop.multiProcessorCount) * std::max(blocks_per_sm, 1);
  row.block_us = timing.median_ms * 1e3 * std::min<double>(resident, tasks) / tasks;
  row.tflops = flops_per_task * tasks / (timing.median_ms * 1e-3) / 1e12;
  return row;
}

// s.panels reflector tiles V (NB × NB each, into v) and their T factors
// (IB × NB each, into t): LAPACK's factorisations of random tiles, of a
// stacked pair [R; V] (tsqrt's) or of one tile (geqrt's).
template <typename T, int NB, int IB>
void factored_panels(const Settings& s, bool stacked, std::mt19937_64& engine, std::vector<T>& v, std::vector<T>& t) {
  const std::size_t tile = std::size_t(NB) * NB;
  v.assign(tile * s.panels, T(0));
  t.assign(std::size_t(IB) * NB * s.panels, T(0));
  for (int p = 0; p < s.panels; ++p) {
    std::vector<T> r = random_values<T>(tile, engine), vp = random_values<T>(tile, engine);
    T* tp = t.data() + std::size_t(IB) * NB * p;
    const lapack_int info = stacked ? factor_stacked(NB, IB, r.data(), vp.data(), tp) : factor_tile(NB, IB, vp.data(), tp);
    if (info != 0) throw std::runtime_error("LAPACK factorisation failed");
    std::copy(vp.begin(), vp.end(), v.begin() + tile * p);
  }
}

// Many tsmqr (stacked = true), ttmqr (stacked and triangle) or ormqr tasks
// on nb × nb tiles; with `simt`, through the FMA path instead of the one the
// kinds take (the row's kernel is then named "<kind>_simt").
template <typename T, int NB, int IB>
Row measure_update(const Settings& s, const cudaDeviceProp& prop, bool stacked, bool triangle = false,
                   bool simt = false) {
  const int tasks = prop.multiProcessorCount * s.waves;
  const std::size_t tile = std::size_t(NB) * NB;
  std::mt19937_64 engine(20261125u + NB * 131 + IB);
  std::vector<T> v, t;
  factored_panels<T, NB, IB>(s, stacked, engine, v, t);
  const DeviceVector<T> dv(v), dt(t);
  const DeviceVector<T> da1(stacked ? random_values<T>(tile * tasks, engine) : std::vector<T>());
  const DeviceVector<T> da2(random_values<T>(tile * tasks, engine));
  std::vector<block::CompactWy<T>> list;
  for (int i = 0; i < tasks; ++i) {
    const T* vp = dv.data + tile * (i % s.panels);
    const T* tp = dt.data + std::size_t(IB) * NB * (i % s.panels);
    T* a2 = da2.data + tile * i;
    if (!stacked) list.push_back(block::ormqr_operands(NB, NB, NB, vp, NB, tp, IB, a2, NB));
    else if (triangle) list.push_back(block::ttmqr_operands(NB, NB, NB, vp, NB, tp, IB, da1.data + tile * i, NB, a2, NB));
    else list.push_back(block::tsmqr_operands(NB, NB, NB, vp, NB, tp, IB, da1.data + tile * i, NB, a2, NB));
  }
  const block::ReflectorShape shape = !stacked   ? block::ReflectorShape::unit_lower
                                      : triangle ? block::ReflectorShape::upper
                                                 : block::ReflectorShape::full;
  const DeviceVector<block::CompactWy<T>> dlist(list);
  const Timing timing = time_launches(s, [&] {
    check(simt ? block::launch_update_tasks<T, NB, IB, true>(shape, true, dlist.data, tasks, nullptr)
               : block::launch_update_tasks<T, NB, IB>(shape, true, dlist.data, tasks, nullptr),
          "update");
  });
  int blocks_per_sm = 0;
  using Fma = block::UpdateTasksLayout<T, NB, IB, true>;
  using Kinds = block::UpdateTasksLayout<T, NB, IB>;
  check(simt ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, block::update_tasks_kernel<T, NB, IB, true>,
                                                               Fma::threads, Fma::shared_bytes)
             : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, block::update_tasks_kernel<T, NB, IB>,
                                                               Kinds::threads, Kinds::shared_bytes),
        "occupancy");
  // LAPACK's counts: ?tpmqrt 4·nb³ (a triangle V2: half), ?gemqrt 2·n·k·(2m − k).
  const double flops = !stacked ? 2.0 * NB * NB * NB : (triangle ? 2.0 : 4.0) * NB * NB * NB;
  const std::string kind = !stacked ? "ormqr" : triangle ? "ttmqr" : "tsmqr";
  return make_row<T>((simt ? kind + "_simt" : kind).c_str(), NB, IB, tasks, timing, blocks_per_sm, prop, flops);
}

// The tensor-core engine in another shape (SLICES row slices, WARPS warps,
// BLOCKS blocks per SM asked of the compiler and of its shared memory):
// tsmqr tasks, for choosing the shape the kinds use. Before timing, the first tasks' results are
// checked against LAPACK's ?tpmqrt on the same operands; the row carries
// the largest ‖ΔA‖_F / ‖A‖_F.
template <int NB, int IB, int SLICES, int WARPS, int BLOCKS, int PART = block::MmaWarps<NB>::part,
          int UPDATE_K = block::MmaWarps<NB>::update_k>
Row measure_mma_variant(const Settings& s, const cudaDeviceProp& prop) {
  using Layout = block::MmaStageLayout<NB, IB, SLICES, WARPS, BLOCKS>;
  const int tasks = prop.multiProcessorCount * s.waves;
  const std::size_t tile = std::size_t(NB) * NB;
  std::mt19937_64 engine(20261125u + NB * 131 + IB);
  std::vector<double> v, t;
  factored_panels<double, NB, IB>(s, true, engine, v, t);
  const std::vector<double> a1_in = random_values<double>(tile * tasks, engine);
  const std::vector<double> a2_in = random_values<double>(tile * tasks, engine);
  const DeviceVector<double> dv(v), dt(t), da1(a1_in), da2(a2_in);
  std::vector<block::CompactWy<double>> list;
  for (int i = 0; i < tasks; ++i)
    list.push_back(block::tsmqr_operands(NB, NB, NB, dv.data + tile * (i % s.panels), NB,
                                         dt.data + std::size_t(IB) * NB * (i % s.panels), IB, da1.data + tile * i, NB,
                                         da2.data + tile * i, NB));
  const DeviceVector<block::CompactWy<double>> dlist(list);
  const auto launch = [&] {
    check(block::launch_shaped_update_tasks<NB, IB, SLICES, WARPS, BLOCKS, PART, UPDATE_K>(
              block::ReflectorShape::full, true, dlist.data, tasks, nullptr),
          "variant");
  };
  launch();
  check(cudaDeviceSynchronize(), "variant");
  std::vector<double> a1_out(tile * tasks), a2_out(tile * tasks);
  check(cudaMemcpy(a1_out.data(), da1.data, a1_out.size() * sizeof(double), cudaMemcpyDeviceToHost), "download");
  check(cudaMemcpy(a2_out.data(), da2.data, a2_out.size() * sizeof(double), cudaMemcpyDeviceToHost), "download");
  double worst = 0;
  for (int i = 0; i < std::min(tasks, 4); ++i) {
    std::vector<double> a1(a1_in.begin() + tile * i, a1_in.begin() + tile * (i + 1));
    std::vector<double> a2(a2_in.begin() + tile * i, a2_in.begin() + tile * (i + 1));
    std::vector<double> work(std::size_t(IB) * NB);
    const double* vp = v.data() + tile * (i % s.panels);
    const double* tp = t.data() + std::size_t(IB) * NB * (i % s.panels);
    if (LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', 'T', NB, NB, NB, 0, IB, vp, NB, tp, IB, a1.data(), NB,
                             a2.data(), NB, work.data()) != 0)
      throw std::runtime_error("LAPACK dtpmqrt failed");
    double diff = 0, size = 0;
    for (std::size_t e = 0; e < tile; ++e) {
      diff += std::pow(a1_out[tile * i + e] - a1[e], 2) + std::pow(a2_out[tile * i + e] - a2[e], 2);
      size += std::pow(a1[e], 2) + std::pow(a2[e], 2);
    }
    worst = std::max(worst, std::isfinite(diff) ? std::sqrt(diff / size) : INFINITY);
  }
  const Timing timing = time_launches(s, launch);
  int blocks_per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm,
                                                        block::shaped_update_tasks_kernel<NB, IB, SLICES, WARPS, BLOCKS, PART, UPDATE_K>,
                                                        Layout::threads, Layout::shared_bytes),
          "occupancy");
  // pN: the inner block applied N columns at a time (named only where N < IB);
  // kN: C −= V_b W by m16n8kN (named only where it is not the default).
  const std::string part = PART < IB ? "p" + std::to_string(PART) : "";
  const std::string k = UPDATE_K != block::MmaWarps<NB>::update_k ? "k" + std::to_string(UPDATE_K) : "";
  const std::string name = "tsmqr_s" + std::to_string(SLICES) + "w" + std::to_string(WARPS) + "b" +
                           std::to_string(BLOCKS) + part + k + "_fit" + std::to_string(blocks_per_sm);
  Row row = make_row<double>("", NB, IB, tasks, timing, blocks_per_sm, prop, 4.0 * NB * NB * NB);
  row.kernel = name;
  row.check_error = worst;
  return row;
}

// Many independent geqrt or tsqrt tasks on nb × nb tiles, each on its own
// tiles. Every launch factors the same random tiles: a device-to-device copy
// restores them first, and the copy's own median time (measured alone) is
// taken off. flops: geqrt 4/3·nb³, tsqrt 2·nb³ (LAPACK's counts).
template <typename T, int NB, int IB>
Row measure_factor(const Settings& s, const cudaDeviceProp& prop, block::PanelKind kind) {
  const int tasks = prop.multiProcessorCount * s.waves;
  const std::size_t tile = std::size_t(NB) * NB;
  std::mt19937_64 engine(20261127u + NB * 17 + IB);
  std::vector<T> top = random_values<T>(tile * tasks, engine);
  for (int i = 0; i < tasks; ++i)
    for (int c = 0; c < NB; ++c) top[tile * i + std::size_t(c) * NB + c] += T(4);  // a triangle like R's
  const std::vector<T> body_in = random_values<T>(tile * tasks, engine);
  const DeviceVector<T> dtop(top), dbody(body_in), dt(std::vector<T>(std::size_t(IB) * NB * tasks));
  const DeviceVector<T> dtop_in(top), dbody_in(body_in);
  const std::size_t bytes = tile * tasks * sizeof(T);
  const auto restore = [&] {
    check(cudaMemcpyAsync(dtop.data, dtop_in.data, bytes, cudaMemcpyDeviceToDevice), "restore");
    check(cudaMemcpyAsync(dbody.data, dbody_in.data, bytes, cudaMemcpyDeviceToDevice), "restore");
  };
  std::vector<block::FactorTask<T>> list;
  for (int i = 0; i < tasks; ++i)
    list.push_back({NB, NB, dtop.data + tile * i, NB, dbody.data + tile * i, NB, dt.data + std::size_t(IB) * NB * i,
                    IB});
  const DeviceVector<block::FactorTask<T>> dlist(list);
  const Timing copies = time_launches(s, restore);
  Timing timing = time_launches(s, [&] {
    restore();
    check(block::launch_factor_tasks<T, NB, IB>(kind, dlist.data, tasks, nullptr), "factor");
  });
  timing.median_ms -= copies.median_ms;
  timing.min_ms -= copies.median_ms;
  int blocks_per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, block::factor_tasks_kernel<T, NB, IB>,
                                                        block::PanelLayout<T, NB, IB>::threads,
                                                        block::PanelLayout<T, NB, IB>::shared_bytes),
          "occupancy");
  const double per_task = kind == block::PanelKind::geqrt ? 4.0 / 3.0 * NB * NB * NB : 2.0 * NB * NB * NB;
  return make_row<T>(kind == block::PanelKind::geqrt ? "geqrt" : "tsqrt", NB, IB, tasks, timing, blocks_per_sm, prop,
                     per_task);
}

// Warp tsmqr on 32 × 32 tiles, one warp a task, 4 warps a block: the
// register-resident kernel (common/kernels/warp_registers) or FR3's warp
// kernel (common/kernels/warp/tsmqr.cuh). Task i: V2 and τ of panel
// i % panels, its own A1 and A2.
constexpr int warp_tasks_per_block = 4;
template <typename T, bool registers>
__global__ void warp_tsmqr_kernel(const T* v, const T* tau, T* a1, T* a2, int panels) {
  extern __shared__ __align__(16) unsigned char warp_raw[];
  constexpr int per_warp = registers ? tiledqr::kernels::warp_registers::shared_elements
                                     : tiledqr::gpu::warp_shared_elements;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const long long task = static_cast<long long>(blockIdx.x) * warp_tasks_per_block + warp;
  const int p = static_cast<int>(task % panels);
  T* shared = reinterpret_cast<T*>(warp_raw) + warp * per_warp;
  const T* vp = v + std::size_t(p) * 1024;
  T* a1t = a1 + std::size_t(task) * 1024;
  T* a2t = a2 + std::size_t(task) * 1024;
  if constexpr (registers)
    tiledqr::kernels::warp_registers::tsmqr(true, vp, tau + p * 32, a1t, a2t, shared, lane);
  else
    tiledqr::gpu::warp_tsmqr(true, vp, tau + p * 32, a1t, a2t, shared, lane);
}

template <typename T, bool registers>
Row measure_warp_tsmqr(const Settings& s, const cudaDeviceProp& prop) {
  constexpr int b = 32;
  const int blocks = prop.multiProcessorCount * 16 * s.waves, tasks = blocks * warp_tasks_per_block;
  const std::size_t tile = std::size_t(b) * b;
  std::mt19937_64 engine(20261125u + (registers ? 1 : 2));
  std::vector<T> v(tile * s.panels), tau(std::size_t(b) * s.panels);
  for (int p = 0; p < s.panels; ++p) {
    std::vector<T> r = random_values<T>(tile, engine), vp = random_values<T>(tile, engine);
    tiledqr::kernels::tsqrt(b, b, r.data(), b, vp.data(), b, tau.data() + std::size_t(b) * p);
    std::copy(vp.begin(), vp.end(), v.begin() + tile * p);
  }
  const DeviceVector<T> dv(v), dtau(tau);
  const DeviceVector<T> da1(random_values<T>(tile * tasks, engine)), da2(random_values<T>(tile * tasks, engine));
  constexpr int per_warp = registers ? tiledqr::kernels::warp_registers::shared_elements
                                     : tiledqr::gpu::warp_shared_elements;
  const std::size_t shared = std::size_t(per_warp) * warp_tasks_per_block * sizeof(T);
  check(cudaFuncSetAttribute(warp_tsmqr_kernel<T, registers>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(shared)), "cudaFuncSetAttribute");
  const Timing timing = time_launches(s, [&] {
    warp_tsmqr_kernel<T, registers><<<blocks, 32 * warp_tasks_per_block, shared>>>(dv.data, dtau.data, da1.data,
                                                                                 da2.data, s.panels);
    check(cudaGetLastError(), "warp tsmqr");
  });
  int blocks_per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, warp_tsmqr_kernel<T, registers>,
                                                        32 * warp_tasks_per_block, shared), "occupancy");
  // A warp holds a task's slot: blocks_per_sm · warp_tasks_per_block per SM.
  return make_row<T>(registers ? "warp_registers_tsmqr" : "warp_tsmqr_fr3", b, 1, tasks, timing,
                     blocks_per_sm * warp_tasks_per_block, prop, 4.0 * b * b * b);
}

// cuBLAS doing a task's two products for every task (strided batched,
// nb × nb × nb each): W = Vᵀ·A2 and A2 −= V·W.
template <typename T>
double cublas_batched_tflops(const Settings& s, const cudaDeviceProp& prop, cublasHandle_t handle, int nb) {
  const int tasks = prop.multiProcessorCount * s.waves;
  const std::size_t tile = std::size_t(nb) * nb;
  std::mt19937_64 engine(7);
  const DeviceVector<T> v(random_values<T>(tile, engine)), a2(random_values<T>(tile * tasks, engine));
  const DeviceVector<T> w{std::vector<T>(tile * tasks)};
  const T one = 1, zero = 0, minus_one = -1;
  const Timing timing = time_launches(s, [&] {
    if constexpr (sizeof(T) == 8) {
      cublas_ok(cublasDgemmStridedBatched(handle, CUBLAS_OP_T, CUBLAS_OP_N, nb, nb, nb, &one, v.data, nb, 0,
                                          a2.data, nb, tile, &zero, w.data, nb, tile, tasks), "dgemm");
      cublas_ok(cublasDgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, nb, nb, nb, &minus_one, v.data, nb, 0,
                                          w.data, nb, tile, &one, a2.data, nb, tile, tasks), "dgemm");
    } else {
      cublas_ok(cublasSgemmStridedBatched(handle, CUBLAS_OP_T, CUBLAS_OP_N, nb, nb, nb, &one, v.data, nb, 0,
                                          a2.data, nb, tile, &zero, w.data, nb, tile, tasks), "sgemm");
      cublas_ok(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, nb, nb, nb, &minus_one, v.data, nb, 0,
                                          w.data, nb, tile, &one, a2.data, nb, tile, tasks), "sgemm");
    }
  });
  return 4.0 * nb * nb * nb * tasks / (timing.median_ms * 1e-3) / 1e12;
}

// cuBLAS DGEMM on one large square (its best case): TFLOP/s.
double cublas_square_tflops(const Settings& s, cublasHandle_t handle, int n) {
  std::mt19937_64 engine(11);
  const std::size_t count = std::size_t(n) * n;
  const DeviceVector<double> a(random_values<double>(count, engine)), b(random_values<double>(count, engine));
  const DeviceVector<double> c{std::vector<double>(count)};
  const double one = 1, zero = 0;
  const Timing timing = time_launches(s, [&] {
    cublas_ok(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data, n, b.data, n, &zero, c.data, n),
              "dgemm");
  });
  return 2.0 * n * n * double(n) / (timing.median_ms * 1e-3) / 1e12;
}

struct Config {
  std::string out_path = "block_kernels.csv", commit = "unknown", only, sweep_path;
  Settings s;
};

int run(const Config& config) {
  const std::string& out_path = config.out_path;
  const std::string& commit = config.commit;
  const Settings& s = config.s;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) throw tiledqr::GpuError("no CUDA-capable GPU");
  {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    cublasHandle_t handle;
    cublas_ok(cublasCreate(&handle), "cublasCreate");
    char host[256] = "unknown";
    gethostname(host, sizeof host);
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));

    const double dmma = probe_tflops(s, prop, true), ffma = probe_tflops(s, prop, false);
    const double square = cublas_square_tflops(s, handle, 8192);
    std::fprintf(stderr, "DMMA probe %.1f TFLOP/s, FFMA probe %.1f TFLOP/s, cuBLAS DGEMM 8192³ %.1f TFLOP/s\n",
                 dmma, ffma, square);
    if (!config.sweep_path.empty())
      write_dmma_sweep(s, prop, config.sweep_path,
                       "# tiledqr_block_kernel_bench --dmma-sweep: m16n8kK .f64 products, CHAINS independent ones a "
                       "warp, blocks of 4 warps; GPU " + std::string(prop.name) + ", date " + date + ", commit " +
                           commit + "\n");
    const double batched_d32 = cublas_batched_tflops<double>(s, prop, handle, 32);
    const double batched_s32 = cublas_batched_tflops<float>(s, prop, handle, 32);
    const double batched_d64 = cublas_batched_tflops<double>(s, prop, handle, 64);
    const double batched_d128 = cublas_batched_tflops<double>(s, prop, handle, 128);
    const double batched_s64 = cublas_batched_tflops<float>(s, prop, handle, 64);
    const double batched_s128 = cublas_batched_tflops<float>(s, prop, handle, 128);
    const double batched_d256 = cublas_batched_tflops<double>(s, prop, handle, 256);
    const double batched_s256 = cublas_batched_tflops<float>(s, prop, handle, 256);

    // Each case: its label (kernel precision nb ib, for --only) and its measurement.
    const std::vector<std::pair<std::string, std::function<Row()>>> cases = {
        {"tsmqr double 128 32", [&] { return measure_update<double, 128, 32>(s, prop, true); }},
        {"tsmqr double 128 16", [&] { return measure_update<double, 128, 16>(s, prop, true); }},
        {"tsmqr double 128 64", [&] { return measure_update<double, 128, 64>(s, prop, true); }},
        {"tsmqr double 64 16", [&] { return measure_update<double, 64, 16>(s, prop, true); }},
        {"tsmqr double 64 32", [&] { return measure_update<double, 64, 32>(s, prop, true); }},
        {"ormqr double 128 32", [&] { return measure_update<double, 128, 32>(s, prop, false); }},
        {"ormqr double 64 32", [&] { return measure_update<double, 64, 32>(s, prop, false); }},
        {"tsmqr_s1w8b1 double 128 32", [&] { return measure_mma_variant<128, 32, 1, 8, 1>(s, prop); }},
        {"tsmqr_s2w8b2 double 128 32", [&] { return measure_mma_variant<128, 32, 2, 8, 2>(s, prop); }},
        {"tsmqr_s2w8b2 double 128 16", [&] { return measure_mma_variant<128, 16, 2, 8, 2>(s, prop); }},
        {"tsmqr_s4w8b2 double 128 32", [&] { return measure_mma_variant<128, 32, 4, 8, 2>(s, prop); }},
        {"tsmqr_s2w16b1 double 128 32", [&] { return measure_mma_variant<128, 32, 2, 16, 1>(s, prop); }},
        {"tsmqr_s1w4b2 double 64 32", [&] { return measure_mma_variant<64, 32, 1, 4, 2>(s, prop); }},
        {"tsmqr_s1w4b2 double 64 16", [&] { return measure_mma_variant<64, 16, 1, 4, 2>(s, prop); }},
        {"tsmqr_s2w8b1 double 256 32", [&] { return measure_mma_variant<256, 32, 2, 8, 1, 32>(s, prop); }},
        {"tsmqr_s2w8b1p16 double 256 32", [&] { return measure_mma_variant<256, 32, 2, 8, 1, 16>(s, prop); }},
        {"tsmqr_s1w8b1p16 double 128 32", [&] { return measure_mma_variant<128, 32, 1, 8, 1, 16>(s, prop); }},
        {"tsmqr_s4w16b1 double 256 32", [&] { return measure_mma_variant<256, 32, 4, 16, 1>(s, prop); }},
        {"tsmqr_s4w8b1 double 256 32", [&] { return measure_mma_variant<256, 32, 4, 8, 1>(s, prop); }},
        {"tsmqr_s4w8b1 double 256 16", [&] { return measure_mma_variant<256, 16, 4, 8, 1>(s, prop); }},
        {"tsmqr_s4w8b2 double 256 16", [&] { return measure_mma_variant<256, 16, 4, 8, 2>(s, prop); }},
        {"tsmqr_s2w8b1k16 double 256 32", [&] { return measure_mma_variant<256, 32, 2, 8, 1, 32, 16>(s, prop); }},
        {"tsmqr_s2w8b1k16 double 256 16", [&] { return measure_mma_variant<256, 16, 2, 8, 1, 16, 16>(s, prop); }},
        {"tsmqr_s1w8b1k16 double 128 32", [&] { return measure_mma_variant<128, 32, 1, 8, 1, 32, 16>(s, prop); }},
        {"tsmqr_s1w4b1k16 double 64 32", [&] { return measure_mma_variant<64, 32, 1, 4, 1, 32, 16>(s, prop); }},
        {"tsmqr double 256 32", [&] { return measure_update<double, 256, 32>(s, prop, true); }},
        {"tsmqr double 256 16", [&] { return measure_update<double, 256, 16>(s, prop, true); }},
        {"ttmqr double 128 32", [&] { return measure_update<double, 128, 32>(s, prop, true, true); }},
        {"geqrt double 128 32", [&] { return measure_factor<double, 128, 32>(s, prop, block::PanelKind::geqrt); }},
        {"tsqrt double 128 32", [&] { return measure_factor<double, 128, 32>(s, prop, block::PanelKind::tsqrt); }},
        {"tsqrt double 64 32", [&] { return measure_factor<double, 64, 32>(s, prop, block::PanelKind::tsqrt); }},
        {"tsqrt double 256 32", [&] { return measure_factor<double, 256, 32>(s, prop, block::PanelKind::tsqrt); }},
        {"geqrt double 256 32", [&] { return measure_factor<double, 256, 32>(s, prop, block::PanelKind::geqrt); }},
        {"tsqrt double 128 16", [&] { return measure_factor<double, 128, 16>(s, prop, block::PanelKind::tsqrt); }},
        {"geqrt double 64 32", [&] { return measure_factor<double, 64, 32>(s, prop, block::PanelKind::geqrt); }},
        {"tsmqr float 128 32", [&] { return measure_update<float, 128, 32>(s, prop, true); }},
        {"tsmqr float 64 32", [&] { return measure_update<float, 64, 32>(s, prop, true); }},
        {"tsmqr float 256 32", [&] { return measure_update<float, 256, 32>(s, prop, true); }},
        {"tsmqr float 256 16", [&] { return measure_update<float, 256, 16>(s, prop, true); }},
        {"tsmqr_simt float 128 32", [&] { return measure_update<float, 128, 32>(s, prop, true, false, true); }},
        {"tsmqr_simt float 64 32", [&] { return measure_update<float, 64, 32>(s, prop, true, false, true); }},
        {"tsmqr_simt float 256 32", [&] { return measure_update<float, 256, 32>(s, prop, true, false, true); }},
        {"geqrt float 128 32", [&] { return measure_factor<float, 128, 32>(s, prop, block::PanelKind::geqrt); }},
        {"tsqrt float 128 32", [&] { return measure_factor<float, 128, 32>(s, prop, block::PanelKind::tsqrt); }},
        {"warp_registers_tsmqr double 32 1", [&] { return measure_warp_tsmqr<double, true>(s, prop); }},
        {"warp_tsmqr_fr3 double 32 1", [&] { return measure_warp_tsmqr<double, false>(s, prop); }},
        {"warp_registers_tsmqr float 32 1", [&] { return measure_warp_tsmqr<float, true>(s, prop); }},
        {"warp_tsmqr_fr3 float 32 1", [&] { return measure_warp_tsmqr<float, false>(s, prop); }},
    };
    std::ofstream out(out_path);
    out << "# tiledqr_block_kernel_bench: many independent block tasks (one thread block each, own A1/A2 or C; V, T "
           "from "
        << s.panels << " LAPACK factorisations shared round robin), Qᵀ applied; CUDA events around " << s.batch
        << " launches, median of " << s.repeats << "\n"
        << "# machine " << host << ", GPU " << prop.name << " (" << prop.multiProcessorCount << " SMs), date " << date
        << ", commit " << commit << "\n"
        << "# peers in the same run: DMMA probe " << dmma << " TFLOP/s (m16n8k4), FFMA probe " << ffma
        << " TFLOP/s, cuBLAS DGEMM 8192^3 " << square
        << " TFLOP/s; cublas_batched = ?gemmStridedBatched doing W = V^T A2 and A2 -= V W for every task\n"
        << "# flops: tsmqr 4 nb^3, ttmqr 2 nb^3, ormqr 2 nb^3, geqrt 4/3 nb^3, tsqrt 2 nb^3 (LAPACK counts); block_us = time one block (warp for the warp "
           "kernels) holds its slot; warp_* rows: 32x32 tiles, one warp a task, scalar FMA (peak column still the "
           "DMMA/FFMA probe)\n"
        << "kernel,precision,nb,ib,tasks,median_ms,min_ms,us_per_task,block_us,tflops,peak_tflops,pct_of_peak,"
           "cublas_batched_tflops,vs_cublas_batched,check_error"
        << std::endl;
    if (!out) throw tiledqr::InputError("cannot write " + out_path);
    std::string failed;  // the cases whose check against LAPACK failed
    for (const auto& [label, run_case] : cases) {
      if (!config.only.empty() && label != config.only) continue;
      Row r = run_case();
      if (r.check_error > 1e-12 || r.check_error != r.check_error) failed += (failed.empty() ? "" : ", ") + label;
      const bool dbl = r.precision == "double";
      r.peak_tflops = dbl ? dmma : ffma;
      r.cublas_tflops = r.nb == 32    ? (dbl ? batched_d32 : batched_s32)
                        : r.nb == 64  ? (dbl ? batched_d64 : batched_s64)
                        : r.nb == 128 ? (dbl ? batched_d128 : batched_s128)
                                      : (dbl ? batched_d256 : batched_s256);
      out << r.kernel << ',' << r.precision << ',' << r.nb << ',' << r.ib << ',' << r.tasks << ','
          << r.timing.median_ms << ',' << r.timing.min_ms << ',' << r.timing.median_ms * 1e3 / r.tasks << ','
          << r.block_us << ',' << r.tflops << ',' << r.peak_tflops << ',' << 100 * r.tflops / r.peak_tflops << ','
          << r.cublas_tflops << ',' << r.tflops / r.cublas_tflops << ',' << r.check_error << std::endl;
      std::fprintf(stderr, "%s %s nb=%d ib=%d: %.3f ms, %.2f TFLOP/s = %.1f%% of peak, %.2fx cuBLAS batched%s\n",
                   r.kernel.c_str(), r.precision.c_str(), r.nb, r.ib, r.timing.median_ms, r.tflops,
                   100 * r.tflops / r.peak_tflops, r.tflops / r.cublas_tflops,
                   r.check_error < 0 ? "" : (" (error " + std::to_string(r.check_error) + ")").c_str());
    }
    cublasDestroy(handle);
    out.close();
    if (!out) throw tiledqr::InputError("writing " + out_path + " failed");
    if (!failed.empty()) throw tiledqr::GpuError("results differ from LAPACK's (error above 1e-12): " + failed);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  const std::string program = "tiledqr_block_kernel_bench";
  CLI::App app{"Throughput of the block kernels on many independent tasks, against the DMMA/FFMA peaks "
               "and cuBLAS measured in the same run",
               program};
  app.add_option("--out", config.out_path, "CSV file to write (default block_kernels.csv)");
  app.add_option("--commit", config.commit, "commit to record in the CSV (default unknown)");
  app.add_option("--only", config.only, "run one case, e.g. 'tsmqr double 128 32' (for a profiler)");
  app.add_option("--dmma-sweep", config.sweep_path,
                 "also write the DMMA rate against warps and independent products to this CSV");
  Settings& s = config.s;
  for (auto [name, value, help] :
       {std::tuple{"--waves", &s.waves, "tasks per SM (the warp kernels: 16 times as many)"},
        {"--panels", &s.panels, "LAPACK factorisations whose V and T the tasks share"},
        {"--repeats", &s.repeats, "timed samples (median)"},
        {"--batch", &s.batch, "launches per sample"}})
    app.add_option(name, *value, std::string(help) + " (default " + std::to_string(*value) + ")")
        ->transform(tiledqr::decimal_integer(false))
        ->check(CLI::Range(1, 1 << 20));
  if (const int code = tiledqr::parse_command_line(app, argc, argv, program); code >= 0) return code;
  return tiledqr::run_reporting_errors(program, [&] { return run(config); });
}
