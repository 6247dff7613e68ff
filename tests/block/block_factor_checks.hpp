// The checks of the block factor kinds (common/kernels/block: geqrt, tsqrt,
// ttqrt) against LAPACK's ?geqrt/?tpqrt and the host reference kernels
// (common/kernels/host), for one scalar type; test_block_factor_*.cu run them
// for each (NB, IB) on full and ragged tiles.
//
// Pass rules, with k reflectors and ε the unit roundoff:
//   backward error: Q·[R̂; 0] rebuilt by LAPACK's ?gemqrt/?tpmqrt from the
//     GPU's own V and T equals the input to ‖·‖_F ≤ 20·k·ε·‖input‖_F;
//   the same factorisation as LAPACK's: R̂, V and T each within
//     1000·k·ε of LAPACK's (relative, Frobenius; random inputs are well
//     conditioned, so the two backward-stable factorisations stay close),
//     and R̂ the same against the host reference kernel;
//   T is written in full: zeros below each block's diagonal;
//   what a kind must not touch is bit for bit as it was: padding rows up to
//     the leading dimension, R's strict lower part (tsqrt, ttqrt), R2's
//     strict lower part (ttqrt, NaN there: reading it fails);
//   two runs give bit-identical results.
#pragma once

#include "block_test_support.hpp"
#include "kernels/block/geqrt.cuh"
#include "kernels/block/tsqrt.cuh"
#include "kernels/block/ttqrt.cuh"
#include "kernels/host/geqrt.hpp"
#include "kernels/host/tsqrt.hpp"

namespace tiledqr::block_tests {

using block::PanelKind;

inline const char* kind_name(PanelKind kind) {
  return kind == PanelKind::geqrt ? "geqrt" : kind == PanelKind::tsqrt ? "tsqrt" : "ttqrt";
}

// True when every entry (r, c) with touched(r, c) false is bit for bit the same.
template <typename T, typename Touched>
bool untouched_same(int cols, int ld, const std::vector<T>& before, const std::vector<T>& after, Touched touched) {
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < ld; ++r) {
      const std::size_t at = std::size_t(c) * ld + r;
      if (!touched(r, c) && std::memcmp(&before[at], &after[at], sizeof(T)) != 0) return false;
    }
  return true;
}

// One factor kind on an (m, n) tile (tsqrt/ttqrt: an (n, n) triangle R on
// top of the (m, n) body) with inner block IB and tile bound NB.
template <typename T, int NB, int IB, PanelKind kind>
void check_factor(int m, int n, uint64_t salt) {
  SCOPED_TRACE(std::string(kind_name(kind)) + " NB=" + std::to_string(NB) + " IB=" + std::to_string(IB) +
               " m=" + std::to_string(m) + " n=" + std::to_string(n));
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::mt19937_64 engine = testing::make_engine(salt);
  const bool geqrt_kind = kind == PanelKind::geqrt, triangle = kind == PanelKind::ttqrt;
  const int k = geqrt_kind ? std::min(m, n) : n;  // reflectors
  const int ld_body = m + 3, ld_top = n + 2, ldt = IB + 1;
  // The body rows a reflector may touch in column c.
  const auto in_body = [&](int r, int c) { return r < m && (!triangle || r <= c); };
  std::vector<T> body = random_values<T>(std::size_t(ld_body) * n, engine);
  if (triangle)  // R2's strict lower part is another factor's V: NaN, never read
    for (int c = 0; c < n; ++c)
      for (int r = c + 1; r < m; ++r) body[std::size_t(c) * ld_body + r] = nan;
  std::vector<T> top;
  if (!geqrt_kind) {
    top = random_values<T>(std::size_t(ld_top) * n, engine);
    for (int c = 0; c < n; ++c) {
      top[std::size_t(c) * ld_top + c] += T(c % 2 == 0 ? 3 : -3);  // a triangle like R's
      for (int r = c + 1; r < n; ++r) top[std::size_t(c) * ld_top + r] = nan;  // not R: never read
    }
  }
  const std::vector<T> body_in = body, top_in = top;
  const std::vector<T> t_in(std::size_t(ldt) * k, nan);

  // LAPACK: ?geqrt, or ?tpqrt with l = 0 (tsqrt) or on the triangle's rows
  // with l = those rows (ttqrt).
  const int ib = std::min(IB, k);
  const int lapack_rows = triangle ? std::min(m, n) : m;
  std::vector<T> body_lapack = body_in, top_lapack = top_in, t_lapack(std::size_t(ldt) * k, T(0));
  if (geqrt_kind)
    ASSERT_EQ(geqrt(m, n, ib, body_lapack.data(), ld_body, t_lapack.data(), ldt), 0);
  else
    ASSERT_EQ(tpqrt(lapack_rows, n, ib, top_lapack.data(), ld_top, body_lapack.data(), ld_body, t_lapack.data(),
                    ldt, triangle ? lapack_rows : 0),
              0);
  // The host reference kernel: R̂ again, one reflector at a time.
  std::vector<T> body_host = body_in, top_host = top_in, tau_host(static_cast<std::size_t>(k));
  if (geqrt_kind) kernels::geqrt(m, n, body_host.data(), ld_body, tau_host.data());
  else if (triangle) kernels::ttqrt(m, n, top_host.data(), ld_top, body_host.data(), ld_body, tau_host.data());
  else kernels::tsqrt(m, n, top_host.data(), ld_top, body_host.data(), ld_body, tau_host.data());

  std::vector<T> body_runs[2], top_runs[2], t_runs[2];
  for (int run = 0; run < 2; ++run) {
    const std::vector<T> top_or_placeholder = geqrt_kind ? std::vector<T>(1, T(0)) : top_in;
    DeviceArray<T> dbody(body_in);
    DeviceArray<T> dtop(top_or_placeholder);
    DeviceArray<T> dt(t_in);
    const block::FactorTask<T> task{m, n, geqrt_kind ? nullptr : dtop.data, ld_top, dbody.data, ld_body, dt.data, ldt};
    const DeviceArray<block::FactorTask<T>> dtask(std::vector<block::FactorTask<T>>{task});
    cuda_ok(block::launch_factor_tasks<T, NB, IB>(kind, dtask.data, 1, nullptr), "factor launch");
    cuda_ok(cudaDeviceSynchronize(), kind_name(kind));
    body_runs[run] = dbody.download();
    if (!geqrt_kind) top_runs[run] = dtop.download();
    t_runs[run] = dt.download();
  }
  const std::vector<T>& body_gpu = body_runs[0];
  const std::vector<T>& top_gpu = top_runs[0];
  const std::vector<T>& t_gpu = t_runs[0];

  // R̂ where it lives (geqrt: the body's upper part; else the triangle on top),
  // and V (geqrt: below the diagonal; else the body's reached entries).
  const auto upper = [](int r, int c) { return r <= c; };
  const auto v_part = [&](int r, int c) { return geqrt_kind ? r > c : in_body(r, c); };
  const std::vector<T>& r_gpu = geqrt_kind ? body_gpu : top_gpu;
  const std::vector<T>& r_lapack = geqrt_kind ? body_lapack : top_lapack;
  const std::vector<T>& r_host = geqrt_kind ? body_host : top_host;
  const int r_rows = geqrt_kind ? std::min(m, n) : n, ld_r = geqrt_kind ? ld_body : ld_top;
  const double tol = 1000.0 * k * epsilon<T>();
  const double r_norm = norm_where(r_rows, n, ld_r, r_lapack, upper);
  EXPECT_LE(difference_where(r_rows, n, ld_r, r_gpu, r_lapack, upper), tol * r_norm) << "R against LAPACK";
  EXPECT_LE(difference_where(r_rows, n, ld_r, r_gpu, r_host, upper), tol * r_norm) << "R against the host kernel";
  EXPECT_LE(difference_where(m, k, ld_body, body_gpu, body_lapack, v_part),
            tol * std::max(1.0, norm_where(m, k, ld_body, body_lapack, v_part)))
      << "V against LAPACK";
  // T: each block's upper triangle against LAPACK's, zeros below it.
  const auto t_upper = [&](int r, int c) { return r < ib && r <= c % IB && c < k; };
  EXPECT_LE(difference_where(IB, k, ldt, t_gpu, t_lapack, t_upper), tol * norm_where(IB, k, ldt, t_lapack, t_upper))
      << "T against LAPACK";
  bool zeros_below = true;
  for (int c = 0; c < k; ++c)
    for (int r = 0; r < IB; ++r)
      if (!t_upper(r, c) && t_gpu[std::size_t(c) * ldt + r] != T(0)) zeros_below = false;
  EXPECT_TRUE(zeros_below) << "T below each block's diagonal";

  // Backward error: Q (the GPU's V and T, applied by LAPACK) times [R̂; 0].
  if (geqrt_kind) {
    std::vector<T> rebuilt(std::size_t(ld_body) * n, T(0));
    for (int c = 0; c < n; ++c)
      for (int r = 0; r <= c && r < m; ++r) rebuilt[std::size_t(c) * ld_body + r] = body_gpu[std::size_t(c) * ld_body + r];
    ASSERT_EQ(gemqrt('N', m, n, k, ib, body_gpu.data(), ld_body, t_gpu.data(), ldt, rebuilt.data(), ld_body), 0);
    const auto all = [&](int r, int c) { return r < m && c < n; };
    EXPECT_LE(difference_where(m, n, ld_body, rebuilt, body_in, all), 20.0 * k * epsilon<T>() * norm_where(m, n, ld_body, body_in, all))
        << "A - QR";
  } else {
    std::vector<T> rebuilt_top(std::size_t(ld_top) * n, T(0)), rebuilt_body(std::size_t(ld_body) * n, T(0));
    for (int c = 0; c < n; ++c)
      for (int r = 0; r <= c; ++r) rebuilt_top[std::size_t(c) * ld_top + r] = top_gpu[std::size_t(c) * ld_top + r];
    std::vector<T> v_gpu = body_gpu;  // LAPACK reads V's trapezoid only
    ASSERT_EQ(tpmqrt('N', lapack_rows, n, k, ib, v_gpu.data(), ld_body, t_gpu.data(), ldt, rebuilt_top.data(),
                     ld_top, rebuilt_body.data(), ld_body, triangle ? lapack_rows : 0),
              0);
    const double input = std::hypot(norm_where(n, n, ld_top, top_in, upper), norm_where(m, n, ld_body, body_in, in_body));
    const double error = std::hypot(difference_where(n, n, ld_top, rebuilt_top, top_in, upper),
                                    difference_where(m, n, ld_body, rebuilt_body, body_in, in_body));
    EXPECT_LE(error, 20.0 * k * epsilon<T>() * input) << "[R; A] - Q [R̂; 0]";
    EXPECT_TRUE(untouched_same(n, ld_top, top_in, top_gpu, [&](int r, int c) { return r <= c && r < n; }))
        << "R's strict lower part and padding";
  }
  EXPECT_TRUE(untouched_same(n, ld_body, body_in, body_gpu, in_body)) << "the body outside its part";
  for (int c = 0; c < k; ++c) EXPECT_TRUE(std::isnan(double(t_gpu[std::size_t(c) * ldt + IB]))) << "T's padding row";
  EXPECT_EQ(0, std::memcmp(body_runs[0].data(), body_runs[1].data(), body_in.size() * sizeof(T)));
  EXPECT_EQ(0, std::memcmp(t_runs[0].data(), t_runs[1].data(), t_in.size() * sizeof(T)));
  if (!geqrt_kind) EXPECT_EQ(0, std::memcmp(top_runs[0].data(), top_runs[1].data(), top_in.size() * sizeof(T)));
}

// Factor tile shapes: full, ragged tall and wide, a column, a single entry.
template <int NB>
std::vector<std::pair<int, int>> factor_shapes() {
  return {{NB, NB}, {NB - 13, NB}, {NB, NB - 21}, {NB / 2 + 3, 7}, {7, NB / 2 + 3}, {NB, 1}, {1, 1}};
}

template <typename T, int NB, int IB>
void check_factor_kinds(uint64_t salt) {
  for (const auto& s : factor_shapes<NB>()) {
    check_factor<T, NB, IB, PanelKind::geqrt>(s.first, s.second, salt++);
    check_factor<T, NB, IB, PanelKind::tsqrt>(s.first, s.second, salt++);
    check_factor<T, NB, IB, PanelKind::ttqrt>(s.first, s.second, salt++);
  }
}

}  // namespace tiledqr::block_tests
