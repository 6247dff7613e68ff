// The block update kernels (common/kernels/block: tsmqr, ttmqr, ormqr)
// against LAPACK's ?tpmqrt/?gemqrt and the host reference kernels
// (common/kernels/host), on factors made by LAPACK's ?tpqrt/?geqrt, for
// every supported (NB, IB), both transposes, full and ragged tiles, double
// (tensor cores) and float (tensor cores, operands widened; and the FMA path).
//
// Pass rules:
//   ‖X_gpu − X_lapack‖_F ≤ 10·k·ε·‖X_in‖_F for the updated tiles X
//     ([A1; A2] for tsmqr/ttmqr, C for ormqr), and the same against the host
//     kernels (one reflector at a time, τ taken from T's diagonal);
//   the parts LAPACK leaves unspecified (T below each block's diagonal, the
//     R above geqrt's V, the strict lower part of ttqrt's V2) hold NaN in the
//     GPU's copy: reading them fails;
//   entries outside the m × n tiles (padding rows up to the leading
//     dimension) are left bit for bit as they were; even leading dimensions
//     (Qᵀ runs) take the 16-byte access paths, odd ones (Q runs) the 8-byte;
//   two runs give bit-identical results.
// Without a GPU the program exits 77 (meson's "skipped").

#include "block_test_support.hpp"
#include "gpu_test_main.hpp"
#include "kernels/block/ormqr.cuh"
#include "kernels/block/tsmqr.cuh"
#include "kernels/block/ttmqr.cuh"
#include "kernels/host/ormqr.hpp"
#include "kernels/host/tsmqr.hpp"

namespace tiledqr {
namespace {

using namespace block_tests;

// tsmqr (triangle false) or ttmqr (true) on (m, n, k) with inner block IB
// and tile bound NB; `transpose` Qᵀ. ttmqr's V2 is upper triangular: its
// reflectors reach the first m' = min(m, k) rows of A2, as LAPACK's ?tpmqrt
// with l = m' on those rows.
template <typename T>
using UpdateLauncher = cudaError_t (*)(block::ReflectorShape, bool, const block::CompactWy<T>*, int, cudaStream_t);

template <typename T, int NB, int IB, bool triangle>
void check_pair_update(Shape s, bool transpose, uint64_t salt,
                       UpdateLauncher<T> launch = block::launch_update_tasks<T, NB, IB>) {
  const char* kind = triangle ? "ttmqr" : "tsmqr";
  SCOPED_TRACE(std::string(kind) + " NB=" + std::to_string(NB) + " IB=" + std::to_string(IB) + " m=" +
               std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
               (transpose ? " Qᵀ" : " Q"));
  std::mt19937_64 engine = testing::make_engine(salt);
  // Even leading dimensions for Qᵀ (the 16-byte paths), odd ones for Q.
  const int odd = transpose ? 0 : 1;
  const int ldv = s.m + 3, ldt = IB + 1, lda1 = even_above(s.k) + odd, lda2 = even_above(s.m + 3) + odd;
  const int ldr = s.k + 1;
  const int reach = triangle ? std::min(s.m, s.k) : s.m;  // rows of A2 the reflectors reach
  const int l = triangle ? reach : 0;
  // Factor [R (k, k); B (reach, k)] with LAPACK for a realistic V and T.
  std::vector<T> r = random_values<T>(std::size_t(ldr) * s.k, engine);
  std::vector<T> v = random_values<T>(std::size_t(ldv) * s.k, engine);
  std::vector<T> t(std::size_t(ldt) * s.k, T(0));
  const int ib = std::min(IB, s.k);  // LAPACK wants ib ≤ k; T's layout is the same
  ASSERT_EQ(tpqrt(reach, s.k, ib, r.data(), ldr, v.data(), ldv, t.data(), ldt, l), 0);
  const std::vector<T> a1_in = random_values<T>(std::size_t(lda1) * s.n, engine);
  const std::vector<T> a2_in = random_values<T>(std::size_t(lda2) * s.n, engine);

  std::vector<T> a1_lapack = a1_in, a2_lapack = a2_in;
  ASSERT_EQ(tpmqrt(transpose ? 'T' : 'N', reach, s.n, s.k, ib, v.data(), ldv, t.data(), ldt,
                   a1_lapack.data(), lda1, a2_lapack.data(), lda2, l),
            0);
  std::vector<T> tau(s.k);
  for (int j = 0; j < s.k; ++j) tau[j] = t[std::size_t(j) * ldt + j % IB];
  std::vector<T> a1_host = a1_in, a2_host = a2_in;
  if (triangle)
    kernels::ttmqr(transpose, s.m, s.n, s.k, v.data(), ldv, tau.data(), a1_host.data(), lda1,
                   a2_host.data(), lda2);
  else
    kernels::tsmqr(transpose, s.m, s.n, s.k, v.data(), ldv, tau.data(), a1_host.data(), lda1,
                   a2_host.data(), lda2);

  std::vector<T> v_poisoned = v, t_poisoned = t;
  if (triangle)  // V2's strict lower part belongs to another factor
    for (int j = 0; j < s.k; ++j)
      for (int i = j + 1; i < s.m; ++i) v_poisoned[std::size_t(j) * ldv + i] = std::numeric_limits<T>::quiet_NaN();
  poison_t(IB, s.k, ldt, t_poisoned);
  const DeviceArray<T> dv(v_poisoned), dt(t_poisoned);
  std::vector<T> a1_runs[2], a2_runs[2];
  for (int run = 0; run < 2; ++run) {
    DeviceArray<T> da1(a1_in), da2(a2_in);
    const block::CompactWy<T> task =
        triangle ? block::ttmqr_operands(s.m, s.n, s.k, dv.data, ldv, dt.data, ldt, da1.data, lda1, da2.data, lda2)
                 : block::tsmqr_operands(s.m, s.n, s.k, dv.data, ldv, dt.data, ldt, da1.data, lda1, da2.data, lda2);
    const DeviceArray<block::CompactWy<T>> dtask(std::vector<block::CompactWy<T>>{task});
    const block::ReflectorShape shape = triangle ? block::ReflectorShape::upper : block::ReflectorShape::full;
    cuda_ok(launch(shape, transpose, dtask.data, 1, nullptr), "launch");
    cuda_ok(cudaDeviceSynchronize(), kind);
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
  EXPECT_TRUE(padding_unchanged(reach, lda2, a2_in, a2_runs[0]));  // ttmqr: rows past the reach too
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
    const DeviceArray<block::CompactWy<T>> dtask(std::vector<block::CompactWy<T>>{
        block::ormqr_operands(s.m, s.n, s.k, dv.data, ldv, dt.data, ldt, dc.data, ldc)});
    cuda_ok(block::launch_update_tasks<T, NB, IB>(block::ReflectorShape::unit_lower, transpose, dtask.data, 1,
                                                  nullptr),
            "ormqr launch");
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


template <typename T, int NB, int IB>
void check_all_tsmqr(uint64_t salt) {
  for (const Shape& s : shapes<NB>())
    for (const bool transpose : {true, false}) check_pair_update<T, NB, IB, false>(s, transpose, salt++);
}

template <typename T, int NB, int IB>
void check_all_ttmqr(uint64_t salt) {
  for (const Shape& s : shapes<NB>())
    for (const bool transpose : {true, false}) check_pair_update<T, NB, IB, true>(s, transpose, salt++);
}

template <typename T, int NB, int IB>
void check_all_ormqr(uint64_t salt) {
  for (Shape s : shapes<NB>()) {
    s.k = std::min(s.k, s.m);
    for (const bool transpose : {true, false}) check_ormqr<T, NB, IB>(s, transpose, salt++);
  }
}

// The engine in the other shapes the benchmark weighs (row slices, warps,
// blocks a multiprocessor): tsmqr and ttmqr, both transposes, every shape.
template <int NB, int IB, int SLICES, int WARPS, int BLOCKS, int PART = block::MmaWarps<NB>::part,
          int UPDATE_K = block::MmaWarps<NB>::update_k>
void check_engine_shape(uint64_t salt) {
  SCOPED_TRACE("engine shape: " + std::to_string(SLICES) + " slices, " + std::to_string(WARPS) + " warps, " +
               std::to_string(BLOCKS) + " blocks, parts of " + std::to_string(PART) + " columns, update by k = " +
               std::to_string(UPDATE_K));
  const UpdateLauncher<double> launch =
      block::launch_shaped_update_tasks<NB, IB, SLICES, WARPS, BLOCKS, PART, UPDATE_K>;
  for (const Shape& s : shapes<NB>())
    for (const bool transpose : {true, false}) {
      check_pair_update<double, NB, IB, false>(s, transpose, salt++, launch);
      check_pair_update<double, NB, IB, true>(s, transpose, salt++, launch);
    }
}

TEST(BlockTsmqr, EngineShapes) {
  check_engine_shape<128, 32, 1, 8, 1>(3000);
  check_engine_shape<128, 32, 4, 8, 2>(3100);
  check_engine_shape<128, 32, 2, 16, 1>(3200);
  check_engine_shape<128, 16, 2, 8, 2>(3300);
  check_engine_shape<64, 16, 1, 4, 2>(3400);
  check_engine_shape<256, 32, 4, 16, 1>(3500);
  check_engine_shape<256, 16, 4, 8, 2>(3600);
  check_engine_shape<256, 32, 4, 8, 1>(3610);
  // Inner blocks applied in parts of 16 columns (whole ones are the default).
  check_engine_shape<256, 32, 2, 8, 1, 16>(3650);
  check_engine_shape<128, 64, 1, 8, 1, 16>(3660);
  check_engine_shape<128, 32, 1, 8, 1, 16>(3670);
  // C −= V_b W by m16n8k16 (m16n8k8 is the default).
  check_engine_shape<256, 32, 2, 8, 1, 32, 16>(3700);
  check_engine_shape<128, 32, 1, 8, 1, 32, 16>(3710);
}

// The FMA path float used to take, kept as the benchmark's alternative:
// tsmqr and ttmqr, both transposes, every shape.
template <int NB, int IB>
void check_fma_path(uint64_t salt) {
  SCOPED_TRACE("FMA path");
  const UpdateLauncher<float> launch = block::launch_update_tasks<float, NB, IB, true>;
  for (const Shape& s : shapes<NB>())
    for (const bool transpose : {true, false}) {
      check_pair_update<float, NB, IB, false>(s, transpose, salt++, launch);
      check_pair_update<float, NB, IB, true>(s, transpose, salt++, launch);
    }
}

TEST(BlockTsmqr, FloatFmaPath) {
  check_fma_path<64, 32>(3700);
  check_fma_path<128, 32>(3800);
  check_fma_path<256, 32>(3900);
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
TEST(BlockTsmqr, DoubleNb256) {
  check_all_tsmqr<double, 256, 16>(650);
  check_all_tsmqr<double, 256, 32>(660);
}
TEST(BlockTsmqr, FloatNb64) {
  check_all_tsmqr<float, 64, 16>(700);
  check_all_tsmqr<float, 64, 32>(800);
}
TEST(BlockTsmqr, FloatNb128) {
  check_all_tsmqr<float, 128, 32>(900);
  check_all_tsmqr<float, 128, 64>(1000);
}
TEST(BlockTsmqr, FloatNb256) {
  check_all_tsmqr<float, 256, 32>(1050);
  check_all_tsmqr<float, 256, 64>(1060);
}
TEST(BlockTtmqr, Double) {
  check_all_ttmqr<double, 64, 16>(1700);
  check_all_ttmqr<double, 64, 64>(1800);
  check_all_ttmqr<double, 128, 32>(1900);
  check_all_ttmqr<double, 256, 32>(1950);
}
TEST(BlockTtmqr, Float) {
  check_all_ttmqr<float, 64, 32>(2000);
  check_all_ttmqr<float, 128, 32>(2100);
  check_all_ttmqr<float, 256, 16>(2150);
}
TEST(BlockOrmqr, DoubleNb64) {
  check_all_ormqr<double, 64, 16>(1100);
  check_all_ormqr<double, 64, 32>(1200);
}
TEST(BlockOrmqr, DoubleNb128) {
  check_all_ormqr<double, 128, 32>(1300);
  check_all_ormqr<double, 128, 64>(1400);
}
TEST(BlockOrmqr, DoubleNb256) { check_all_ormqr<double, 256, 32>(1450); }
TEST(BlockOrmqr, Float) {
  check_all_ormqr<float, 64, 32>(1500);
  check_all_ormqr<float, 128, 32>(1600);
  check_all_ormqr<float, 256, 32>(1650);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) { return tiledqr::testing::run_gpu_tests(argc, argv); }
