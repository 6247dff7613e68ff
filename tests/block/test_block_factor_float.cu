// The block factor kinds (geqrt, tsqrt, ttqrt) in float against LAPACK and
// the host reference kernels; pass rules in block_factor_checks.hpp.
// Without a GPU the program exits 77 (meson's "skipped").

#include "block_factor_checks.hpp"
#include "gpu_test_main.hpp"

namespace tiledqr {
namespace {

using namespace block_tests;

TEST(BlockFactorFloat, Nb64) {
  check_factor_kinds<float, 64, 16>(4000);
  check_factor_kinds<float, 64, 32>(4100);
  check_factor_kinds<float, 64, 64>(4200);
}
TEST(BlockFactorFloat, Nb128) {
  check_factor_kinds<float, 128, 16>(4300);
  check_factor_kinds<float, 128, 32>(4400);
  check_factor_kinds<float, 128, 64>(4500);
}
TEST(BlockFactorFloat, Nb256) {
  check_factor_kinds<float, 256, 16>(4600);
  check_factor_kinds<float, 256, 32>(4700);
  check_factor_kinds<float, 256, 64>(4800);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) { return tiledqr::testing::run_gpu_tests(argc, argv); }
