// The block factor kinds (geqrt, tsqrt, ttqrt) in double against LAPACK and
// the host reference kernels; pass rules in block_factor_checks.hpp.
// Without a GPU the program exits 77 (meson's "skipped").

#include "block_factor_checks.hpp"
#include "gpu_test_main.hpp"

namespace tiledqr {
namespace {

using namespace block_tests;

TEST(BlockFactorDouble, Nb64) {
  check_factor_kinds<double, 64, 16>(3000);
  check_factor_kinds<double, 64, 32>(3100);
  check_factor_kinds<double, 64, 64>(3200);
}
TEST(BlockFactorDouble, Nb128) {
  check_factor_kinds<double, 128, 16>(3300);
  check_factor_kinds<double, 128, 32>(3400);
  check_factor_kinds<double, 128, 64>(3500);
}
TEST(BlockFactorDouble, Nb256) {
  check_factor_kinds<double, 256, 16>(3600);
  check_factor_kinds<double, 256, 32>(3700);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) { return tiledqr::testing::run_gpu_tests(argc, argv); }
