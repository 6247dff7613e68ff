// The register-resident block geqrt (common/kernels/block_registers/geqrt.cuh)
// against LAPACK's ?geqrt, in both precisions, for every tile, inner block
// and warp count FR4 runs, on full and ragged matrices and on
// columns that take the careful reflector (zero, tiny, already triangular).
// Without a GPU the program exits 77 (meson's "skipped").
//
// Pass rules, with k = min(m, n) reflectors and ε the unit roundoff:
//   R, V and T each within 1000·k·ε of LAPACK's (relative, Frobenius);
//   A − Q R ≤ 20·k·ε·‖A‖ with Q from the GPU's V and T, applied by LAPACK;
//   the tile is zero outside A's rows and columns, T zero below each
//   diagonal and in the columns past k;
//   A (and the NaN padding rows of its leading dimension) unchanged;
//   two runs give bit-identical tiles and T, and the named barriers the
//   block barriers' bits.

#include "block_test_support.hpp"
#include "gpu_test_main.hpp"
#include "kernels/block_registers/geqrt.cuh"

namespace tiledqr {
namespace {

using namespace block_tests;
namespace br = kernels::block_registers;

// How the input's columns are made.
enum class Input {
  random,      // uniform in [-1, 1)
  zero_tails,  // random, with columns 0 and 5 zero below their diagonal (τ = 0)
  tiny,        // random, with column 1 scaled to a few smallest normals (squares underflow: the careful reflector)
  triangular,  // random upper triangle, zeros below (every τ = 0)
};

const char* input_name(Input input) {
  switch (input) {
    case Input::random: return "random";
    case Input::zero_tails: return "zero tails";
    case Input::tiny: return "tiny column";
    case Input::triangular: return "triangular";
  }
  return "?";
}

template <typename T, int NB, int IB, int W, br::Barriers B>
void check_geqrt(int m, int n, Input input, uint64_t salt) {
  SCOPED_TRACE("NB=" + std::to_string(NB) + " IB=" + std::to_string(IB) + " W=" + std::to_string(W) +
               (B == br::Barriers::named ? " named barriers" : " block barriers") +
               " m=" + std::to_string(m) + " n=" + std::to_string(n) + " " + input_name(input) + " seed salt " +
               std::to_string(salt));
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::mt19937_64 engine = testing::make_engine(salt);
  const int k = std::min(m, n), lda = m + 3;
  std::vector<T> a = random_values<T>(std::size_t(lda) * n, engine);
  for (int c = 0; c < n; ++c) {
    for (int r = m; r < lda; ++r) a[std::size_t(c) * lda + r] = nan;  // never read
    for (int r = c + 1; r < m; ++r) {
      T& x = a[std::size_t(c) * lda + r];
      if (input == Input::triangular || (input == Input::zero_tails && (c == 0 || c == 5))) x = T(0);
    }
    if (input == Input::tiny && c == 1)
      for (int r = 0; r < m; ++r) a[std::size_t(c) * lda + r] *= std::numeric_limits<T>::min() * T(4);
  }

  // LAPACK on A itself (ib ≤ k as ?geqrt asks).
  const int ib = std::min(IB, k);
  std::vector<T> a_lapack = a, t_lapack(std::size_t(IB) * k, T(0));
  ASSERT_EQ(geqrt(m, n, ib, a_lapack.data(), lda, t_lapack.data(), IB), 0);

  std::vector<T> tile_runs[2], t_runs[2];
  const std::vector<T> tile_in(std::size_t(NB) * NB, nan), t_in(std::size_t(IB) * NB, nan);
  for (int run = 0; run < 2; ++run) {
    DeviceArray<T> da(a), dtile(tile_in), dt(t_in);
    cuda_ok(br::launch_geqrt<T, NB, IB, W, B>(m, n, da.data, lda, dtile.data, dt.data, nullptr), "geqrt launch");
    cuda_ok(cudaDeviceSynchronize(), "geqrt");
    tile_runs[run] = dtile.download();
    t_runs[run] = dt.download();
    const std::vector<T> a_after = da.download();
    EXPECT_EQ(0, std::memcmp(a_after.data(), a.data(), a.size() * sizeof(T))) << "A changed";
  }
  const std::vector<T>& tile = tile_runs[0];
  const std::vector<T>& t = t_runs[0];
  if constexpr (B == br::Barriers::named) {  // the same arithmetic as the block barriers' run
    DeviceArray<T> da(a), dtile(tile_in), dt(t_in);
    cuda_ok(br::launch_geqrt<T, NB, IB, W, br::Barriers::block>(m, n, da.data, lda, dtile.data, dt.data, nullptr),
            "geqrt launch");
    cuda_ok(cudaDeviceSynchronize(), "geqrt");
    EXPECT_EQ(0, std::memcmp(dtile.download().data(), tile.data(), tile.size() * sizeof(T))) << "block barriers, tile";
    EXPECT_EQ(0, std::memcmp(dt.download().data(), t.data(), t.size() * sizeof(T))) << "block barriers, T";
  }

  // The tile's (m, n) part at ld NB, and A's at lda, compared entry by entry.
  const auto tile_part = [&](int rows, int cols, auto keep) {
    std::vector<T> out(std::size_t(lda) * n, T(0));
    for (int c = 0; c < cols; ++c)
      for (int r = 0; r < rows; ++r)
        if (keep(r, c)) out[std::size_t(c) * lda + r] = tile[std::size_t(c) * NB + r];
    return out;
  };
  const auto upper = [&](int r, int c) { return r <= c && r < m && c < n; };
  const auto lower = [&](int r, int c) { return r > c && r < m && c < k; };
  const double tol = 1000.0 * std::max(k, 1) * epsilon<T>();
  const std::vector<T> r_gpu = tile_part(m, n, upper), v_gpu = tile_part(m, k, lower);
  EXPECT_LE(difference_where(m, n, lda, r_gpu, a_lapack, upper), tol * norm_where(m, n, lda, a_lapack, upper))
      << "R against LAPACK";
  EXPECT_LE(difference_where(m, k, lda, v_gpu, a_lapack, lower),
            tol * std::max(1.0, norm_where(m, k, lda, a_lapack, lower)))
      << "V against LAPACK";
  const auto t_upper = [&](int r, int c) { return r <= c % IB && c < k; };
  EXPECT_LE(difference_where(IB, k, IB, t, t_lapack, t_upper),
            tol * std::max(1.0, norm_where(IB, k, IB, t_lapack, t_upper)))
      << "T against LAPACK";

  bool zeros = true;
  for (int c = 0; c < NB; ++c)
    for (int r = 0; r < NB; ++r)
      if ((r >= m || c >= n) && tile[std::size_t(c) * NB + r] != T(0)) zeros = false;
  EXPECT_TRUE(zeros) << "the tile outside A's rows and columns";
  bool t_zeros = true;
  for (int c = 0; c < NB; ++c)
    for (int r = 0; r < IB; ++r)
      if (!t_upper(r, c) && t[std::size_t(c) * IB + r] != T(0)) t_zeros = false;
  EXPECT_TRUE(t_zeros) << "T below the diagonals and past k";

  // A − Q R with the GPU's own V and T.
  std::vector<T> rebuilt = r_gpu, v_full = tile_part(m, k, lower);
  ASSERT_EQ(gemqrt('N', m, n, k, ib, v_full.data(), lda, t.data(), IB, rebuilt.data(), lda), 0);
  const auto inside = [&](int r, int c) { return r < m && c < n; };
  EXPECT_LE(difference_where(m, n, lda, rebuilt, a, inside),
            20.0 * std::max(k, 1) * epsilon<T>() * norm_where(m, n, lda, a, inside))
      << "A - QR";

  EXPECT_EQ(0, std::memcmp(tile_runs[0].data(), tile_runs[1].data(), tile.size() * sizeof(T))) << "two runs, tile";
  EXPECT_EQ(0, std::memcmp(t_runs[0].data(), t_runs[1].data(), t.size() * sizeof(T))) << "two runs, T";
}

template <typename T, int NB, int IB, int W, br::Barriers B = br::Barriers::block>
void check_shapes(uint64_t salt) {
  const std::vector<std::pair<int, int>> shapes = {{NB, NB},         {NB - 13, NB}, {NB, NB - 21}, {NB / 2 + 3, 7},
                                                   {7, NB / 2 + 3}, {NB, 1},      {1, NB},      {1, 1}};
  for (const auto& s : shapes) check_geqrt<T, NB, IB, W, B>(s.first, s.second, Input::random, salt++);
  for (const Input input : {Input::zero_tails, Input::tiny, Input::triangular}) {
    check_geqrt<T, NB, IB, W, B>(NB, NB, input, salt++);
    check_geqrt<T, NB, IB, W, B>(NB - 9, NB / 2 + 1, input, salt++);
  }
}

// The instances FR4's one-tile path runs (fr4_scheduler/qr/fr4_one_tile.cu):
// inner blocks of 16 and 32 on W warps.
template <typename T, int NB, int W>
void check_fr4_instances(uint64_t salt) {
  check_shapes<T, NB, 16, W>(salt);
  check_shapes<T, NB, 32, W>(salt + 100);
}

TEST(BlockRegistersGeqrt, Double128) { check_fr4_instances<double, 128, 8>(7000); }
TEST(BlockRegistersGeqrt, Double64) { check_fr4_instances<double, 64, 8>(7300); }
TEST(BlockRegistersGeqrt, Float128) { check_fr4_instances<float, 128, 16>(7600); }
TEST(BlockRegistersGeqrt, Float64) { check_fr4_instances<float, 64, 8>(7900); }

// The named-barrier variant (not run by FR4) and the other warp count of
// tile 128: the same checks, and the named variant's bits against the block
// barriers'.
TEST(BlockRegistersGeqrt, Variants) {
  check_shapes<double, 128, 32, 8, br::Barriers::named>(8200);
  check_shapes<float, 64, 16, 8, br::Barriers::named>(8300);
  check_shapes<double, 128, 32, 16>(8400);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) { return tiledqr::testing::run_gpu_tests(argc, argv); }
