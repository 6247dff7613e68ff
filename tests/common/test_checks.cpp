// Norms and flop counts behind the reported accuracy and speed.
#include <gtest/gtest.h>

#include <cmath>

#include "checks.hpp"

namespace tiledqr {
namespace {

// Pass rule: ‖A‖_F of entries at 1e+300 and 1e-300 is finite, non-zero and
// within 1e-14 relative of the exact value (a naive sum of squares would
// overflow to Inf or underflow to 0).
TEST(Norms, FrobeniusNormNeitherOverflowsNorUnderflows) {
  for (const double scale : {1e300, 1e-300, 1.0}) {
    const std::vector<double> a = {3 * scale, 4 * scale, 0, 12 * scale};  // 2×2
    const double norm = frobenius_norm(2, 2, a.data(), 2);
    EXPECT_NEAR(norm / (13 * scale), 1.0, 1e-14) << scale;
  }
  const std::vector<float> f = {3e30f, 4e30f};
  EXPECT_NEAR(frobenius_norm(2, 1, f.data(), 2) / 5e30, 1.0, 1e-6);
}

// Pass rule: qr_flops follows 2mn² − 2n³/3 (m ≥ n) and its transpose.
TEST(Norms, QrFlopCount) {
  EXPECT_DOUBLE_EQ(qr_flops(3000, 1000), 2.0 * 3000 * 1000 * 1000 - 2.0 * 1e9 / 3);
  EXPECT_DOUBLE_EQ(qr_flops(1000, 3000), qr_flops(3000, 1000));
  EXPECT_DOUBLE_EQ(unit_roundoff<double>(), std::ldexp(1.0, -53));
  EXPECT_DOUBLE_EQ(unit_roundoff<float>(), std::ldexp(1.0, -24));
}

}  // namespace
}  // namespace tiledqr
