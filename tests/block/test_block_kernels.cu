// The block update kernels (common/kernels/block: tsmqr, ormqr) against
// LAPACK's ?tpmqrt/?gemqrt and the host reference kernels
// (common/kernels/tsmqr.hpp, ormqr.hpp), on factors made by LAPACK's
// ?tpqrt/?geqrt, for every supported (NB, IB), both transposes, full and
// ragged tiles, double (tensor cores) and float (FMA).
//
// Pass rules:
//   ‖X_gpu − X_lapack‖_F ≤ 10·k·ε·‖X_in‖_F for the updated tiles X
//     ([A1; A2] for tsmqr, C for ormqr), and the same against the host
//     kernels (one reflector at a time, τ taken from T's diagonal);
//   the parts LAPACK leaves unspecified (T below each block's diagonal, the
//     R above geqrt's V) hold NaN in the GPU's copy: reading them fails;
//   entries outside the m × n tiles (padding rows up to the leading
//     dimension) are left bit for bit as they were; even leading dimensions
//     (Qᵀ runs) take the 16-byte access paths, odd ones (Q runs) the 8-byte;
//   two runs give bit-identical results.
// Without a GPU the program exits 77 (meson's "skipped").

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/block/ormqr.cuh"
#include "kernels/block/tsmqr.cuh"
#include "kernels/host/ormqr.hpp"
#include "kernels/host/tsmqr.hpp"
#include "random_values.hpp"
#include "gpu_test_main.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

namespace block = kernels::block;

void cuda_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// A device copy of a host vector, copied back by download().
template <typename T>
struct DeviceArray {
  T* data = nullptr;
  std::size_t count = 0;
  explicit DeviceArray(const std::vector<T>& host) : count(host.size()) {
    cuda_ok(cudaMalloc(&data, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc");
    cuda_ok(cudaMemcpy(data, host.data(), count * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(data); }
  std::vector<T> download() const {
    std::vector<T> host(count);
    cuda_ok(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }
};

// LAPACK's routines by precision (the _work forms: no NaN scan of inputs).
lapack_int tpqrt(int m, int n, int ib, double* a, int lda, double* b, int ldb, double* t, int ldt) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, 0, ib, a, lda, b, ldb, t, ldt, work.data());
}
lapack_int tpqrt(int m, int n, int ib, float* a, int lda, float* b, int ldb, float* t, int ldt) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, 0, ib, a, lda, b, ldb, t, ldt, work.data());
}
lapack_int tpmqrt(char trans, int m, int n, int k, int ib, const double* v, int ldv, const double* t,
                  int ldt, double* a, int lda, double* b, int ldb) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, 0, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, work.data());
}
lapack_int tpmqrt(char trans, int m, int n, int k, int ib, const float* v, int ldv, const float* t,
                  int ldt, float* a, int lda, float* b, int ldb) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, 0, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, work.data());
}
lapack_int geqrt(int m, int n, int ib, double* a, int lda, double* t, int ldt) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, work.data());
}
lapack_int geqrt(int m, int n, int ib, float* a, int lda, float* t, int ldt) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, work.data());
}
lapack_int gemqrt(char trans, int m, int n, int k, int ib, const double* v, int ldv, const double* t,
                  int ldt, double* c, int ldc) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc,
                              work.data());
}
lapack_int gemqrt(char trans, int m, int n, int k, int ib, const float* v, int ldv, const float* t,
                  int ldt, float* c, int ldc) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc,
                              work.data());
}

// ‖x − y‖_F over the (rows, cols) part of two col-major arrays of leading
// dimension ld, and ‖x‖_F.
template <typename T>
double difference(int rows, int cols, int ld, const std::vector<T>& x, const std::vector<T>& y) {
  double sum = 0;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) {
      const double d = double(x[std::size_t(c) * ld + r]) - double(y[std::size_t(c) * ld + r]);
      sum += d * d;
    }
  return std::sqrt(sum);
}

template <typename T>
double norm(int rows, int cols, int ld, const std::vector<T>& x) {
  return difference(rows, cols, ld, x, std::vector<T>(x.size(), T(0)));
}

// True when every entry outside (rows, cols) is bit for bit the same.
template <typename T>
bool padding_unchanged(int rows, int ld, const std::vector<T>& before, const std::vector<T>& after) {
  for (std::size_t i = 0; i < before.size(); ++i)
    if (int(i % ld) >= rows && std::memcmp(&before[i], &after[i], sizeof(T)) != 0) return false;
  return true;
}

template <typename T>
double epsilon() {
  return std::numeric_limits<T>::epsilon() / 2;
}

// Each T_b's strict lower part (and rows past the last block's width) → NaN.
template <typename T>
void poison_t(int ib, int k, int ldt, std::vector<T>& t) {
  for (int j = 0; j < k; ++j) {
    const int jj = j % ib;
    const int kb = std::min(ib, k - (j - jj));
    for (int i = 0; i < ib; ++i)
      if (i > jj || i >= kb) t[std::size_t(j) * ldt + i] = std::numeric_limits<T>::quiet_NaN();
  }
}

// The smallest even number ≥ x.
int even_above(int x) { return x + (x & 1); }

struct Shape {
  int m, n, k;
};

// tsmqr on (m, n, k) with inner block IB and tile bound NB; `transpose` Qᵀ.
template <typename T, int NB, int IB>
void check_tsmqr(Shape s, bool transpose, uint64_t salt) {
  SCOPED_TRACE("tsmqr NB=" + std::to_string(NB) + " IB=" + std::to_string(IB) + " m=" +
               std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
               (transpose ? " Qᵀ" : " Q"));
  std::mt19937_64 engine = testing::make_engine(salt);
  // Even leading dimensions for Qᵀ (the 16-byte paths), odd ones for Q.
  const int odd = transpose ? 0 : 1;
  const int ldv = s.m + 3, ldt = IB + 1, lda1 = even_above(s.k) + odd, lda2 = even_above(s.m + 3) + odd;
  const int ldr = s.k + 1;
  // Factor [R (k, k); B (m, k)] with LAPACK for a realistic V and T.
  std::vector<T> r = random_values<T>(std::size_t(ldr) * s.k, engine);
  std::vector<T> v = random_values<T>(std::size_t(ldv) * s.k, engine);
  std::vector<T> t(std::size_t(ldt) * s.k, T(0));
  const int ib = std::min(IB, s.k);  // LAPACK wants ib ≤ k; T's layout is the same
  ASSERT_EQ(tpqrt(s.m, s.k, ib, r.data(), ldr, v.data(), ldv, t.data(), ldt), 0);
  const std::vector<T> a1_in = random_values<T>(std::size_t(lda1) * s.n, engine);
  const std::vector<T> a2_in = random_values<T>(std::size_t(lda2) * s.n, engine);

  std::vector<T> a1_lapack = a1_in, a2_lapack = a2_in;
  ASSERT_EQ(tpmqrt(transpose ? 'T' : 'N', s.m, s.n, s.k, ib, v.data(), ldv, t.data(), ldt,
                   a1_lapack.data(), lda1, a2_lapack.data(), lda2),
            0);
  std::vector<T> tau(s.k);
  for (int j = 0; j < s.k; ++j) tau[j] = t[std::size_t(j) * ldt + j % IB];
  std::vector<T> a1_host = a1_in, a2_host = a2_in;
  kernels::tsmqr(transpose, s.m, s.n, s.k, v.data(), ldv, tau.data(), a1_host.data(), lda1,
                 a2_host.data(), lda2);

  std::vector<T> t_poisoned = t;
  poison_t(IB, s.k, ldt, t_poisoned);
  const DeviceArray<T> dv(v), dt(t_poisoned);
  std::vector<T> a1_runs[2], a2_runs[2];
  for (int run = 0; run < 2; ++run) {
    DeviceArray<T> da1(a1_in), da2(a2_in);
    const block::TsmqrTask<T> task{s.m, s.n, s.k, dv.data, ldv, dt.data, ldt, da1.data, lda1, da2.data, lda2};
    const DeviceArray<block::TsmqrTask<T>> dtask(std::vector<block::TsmqrTask<T>>{task});
    cuda_ok(block::launch_tsmqr_tasks<T, NB, IB>(transpose, dtask.data, 1, nullptr), "tsmqr launch");
    cuda_ok(cudaDeviceSynchronize(), "tsmqr run");
    a1_runs[run] = da1.download();
    a2_runs[run] = da2.download();
  }
  const double bound = 10.0 * s.k * epsilon<T>() * std::hypot(norm(s.k, s.n, lda1, a1_in), norm(s.m, s.n, lda2, a2_in));
  const double to_lapack = std::hypot(difference(s.k, s.n, lda1, a1_runs[0], a1_lapack),
                                      difference(s.m, s.n, lda2, a2_runs[0], a2_lapack));
  const double to_host = std::hypot(difference(s.k, s.n, lda1, a1_runs[0], a1_host),
                                    difference(s.m, s.n, lda2, a2_runs[0], a2_host));
  EXPECT_TRUE(testing::all_finite(a1_runs[0]) && testing::all_finite(a2_runs[0]));
  EXPECT_LE(to_lapack, bound);
  EXPECT_LE(to_host, bound);
  EXPECT_TRUE(padding_unchanged(s.k, lda1, a1_in, a1_runs[0]));
  EXPECT_TRUE(padding_unchanged(s.m, lda2, a2_in, a2_runs[0]));
  EXPECT_EQ(0, std::memcmp(a1_runs[0].data(), a1_runs[1].data(), a1_in.size() * sizeof(T)));
  EXPECT_EQ(0, std::memcmp(a2_runs[0].data(), a2_runs[1].data(), a2_in.size() * sizeof(T)));
}

// ormqr on (m, n, k), k ≤ m.
template <typename T, int NB, int IB>
void check_ormqr(Shape s, bool transpose, uint64_t salt) {
  SCOPED_TRACE("ormqr NB=" + std::to_string(NB) + " IB=" + std::to_string(IB) + " m=" +
               std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
               (transpose ? " Qᵀ" : " Q"));
  std::mt19937_64 engine = testing::make_engine(salt);
  const int ldv = s.m + 2, ldt = IB + 3, ldc = even_above(s.m) + (transpose ? 0 : 1);
  std::vector<T> v = random_values<T>(std::size_t(ldv) * s.k, engine);
  std::vector<T> t(std::size_t(ldt) * s.k, T(0));
  const int ib = std::min(IB, s.k);  // LAPACK wants ib ≤ k; T's layout is the same
  ASSERT_EQ(geqrt(s.m, s.k, ib, v.data(), ldv, t.data(), ldt), 0);
  const std::vector<T> c_in = random_values<T>(std::size_t(ldc) * s.n, engine);
  std::vector<T> c_lapack = c_in;
  ASSERT_EQ(gemqrt(transpose ? 'T' : 'N', s.m, s.n, s.k, ib, v.data(), ldv, t.data(), ldt,
                   c_lapack.data(), ldc),
            0);
  std::vector<T> tau(s.k);
  for (int j = 0; j < s.k; ++j) tau[j] = t[std::size_t(j) * ldt + j % IB];
  std::vector<T> c_host = c_in;
  kernels::ormqr(transpose, s.m, s.n, s.k, v.data(), ldv, tau.data(), c_host.data(), ldc);

  // The R above V's unit diagonal and the diagonal itself must not be read.
  std::vector<T> v_poisoned = v, t_poisoned = t;
  for (int j = 0; j < s.k; ++j)
    for (int i = 0; i <= j && i < s.m; ++i) v_poisoned[std::size_t(j) * ldv + i] = std::numeric_limits<T>::quiet_NaN();
  poison_t(IB, s.k, ldt, t_poisoned);
  const DeviceArray<T> dv(v_poisoned), dt(t_poisoned);
  std::vector<T> c_runs[2];
  for (int run = 0; run < 2; ++run) {
    DeviceArray<T> dc(c_in);
    const block::OrmqrTask<T> task{s.m, s.n, s.k, dv.data, ldv, dt.data, ldt, dc.data, ldc};
    const DeviceArray<block::OrmqrTask<T>> dtask(std::vector<block::OrmqrTask<T>>{task});
    cuda_ok(block::launch_ormqr_tasks<T, NB, IB>(transpose, dtask.data, 1, nullptr), "ormqr launch");
    cuda_ok(cudaDeviceSynchronize(), "ormqr run");
    c_runs[run] = dc.download();
  }
  const double bound = 10.0 * s.k * epsilon<T>() * norm(s.m, s.n, ldc, c_in);
  EXPECT_TRUE(testing::all_finite(c_runs[0]));
  EXPECT_LE(difference(s.m, s.n, ldc, c_runs[0], c_lapack), bound);
  EXPECT_LE(difference(s.m, s.n, ldc, c_runs[0], c_host), bound);
  EXPECT_TRUE(padding_unchanged(s.m, ldc, c_in, c_runs[0]));
  EXPECT_EQ(0, std::memcmp(c_runs[0].data(), c_runs[1].data(), c_in.size() * sizeof(T)));
}

// Full tiles and ragged ones (m, n below NB; k not a multiple of IB).
template <int NB>
std::vector<Shape> shapes() {
  return {{NB, NB, NB}, {NB - 13, NB, NB}, {NB, NB - 21, NB - 5}, {NB / 2 + 3, 7, NB / 2 - 1}, {1, 1, 1}};
}

template <typename T, int NB, int IB>
void check_all_tsmqr(uint64_t salt) {
  for (const Shape& s : shapes<NB>())
    for (const bool transpose : {true, false}) check_tsmqr<T, NB, IB>(s, transpose, salt++);
}

template <typename T, int NB, int IB>
void check_all_ormqr(uint64_t salt) {
  for (Shape s : shapes<NB>()) {
    s.k = std::min(s.k, s.m);
    for (const bool transpose : {true, false}) check_ormqr<T, NB, IB>(s, transpose, salt++);
  }
}

TEST(BlockTsmqr, DoubleNb64) {
  check_all_tsmqr<double, 64, 16>(100);
  check_all_tsmqr<double, 64, 32>(200);
  check_all_tsmqr<double, 64, 64>(300);
}
TEST(BlockTsmqr, DoubleNb128) {
  check_all_tsmqr<double, 128, 16>(400);
  check_all_tsmqr<double, 128, 32>(500);
  check_all_tsmqr<double, 128, 64>(600);
}
TEST(BlockTsmqr, FloatNb64) {
  check_all_tsmqr<float, 64, 16>(700);
  check_all_tsmqr<float, 64, 32>(800);
}
TEST(BlockTsmqr, FloatNb128) {
  check_all_tsmqr<float, 128, 32>(900);
  check_all_tsmqr<float, 128, 64>(1000);
}
TEST(BlockOrmqr, DoubleNb64) {
  check_all_ormqr<double, 64, 16>(1100);
  check_all_ormqr<double, 64, 32>(1200);
}
TEST(BlockOrmqr, DoubleNb128) {
  check_all_ormqr<double, 128, 32>(1300);
  check_all_ormqr<double, 128, 64>(1400);
}
TEST(BlockOrmqr, Float) {
  check_all_ormqr<float, 64, 32>(1500);
  check_all_ormqr<float, 128, 32>(1600);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) { return tiledqr::testing::run_gpu_tests(argc, argv); }
