// GPU tests of the enkf workload: every GPU method (tiled on FR4, fft,
// dense) against the CPU reference on random small problems. Pass rule:
// ‖P − P_ref‖_F / ‖P_ref‖_F ≤ 1e-12. Seeds are printed (TILEDQR_TEST_SEED
// replays them).
#include <gtest/gtest.h>

#include "cpu_reference.hpp"
#include "device_problem.hpp"
#include "enkf_test_cases.hpp"
#include "fr4/test_seed.hpp"
#include "gpu_methods.hpp"
#include "run_methods.hpp"

using namespace tiledqr;
using namespace tiledqr::enkf;

namespace {

constexpr double tolerance = 1e-12;

struct Case {
  int64_t n, m, l;
  double density;
};

// N not a multiple of the 64-row task, M = 1 and M beyond one 32-row
// m-block, L = 2 and L beyond one 12-member pass, densities 0.001 … 1.
const Case cases[] = {
    {1, 1, 2, 1.0},      {2, 1, 2, 0.5},      {63, 1, 2, 0.001},  {65, 3, 2, 1.0},
    {100, 1, 2, 0.05},   {257, 32, 10, 0.05}, {300, 33, 5, 0.2},  {513, 7, 13, 0.01},
    {777, 70, 3, 0.001}, {1000, 32, 10, 1.0}, {1500, 2, 25, 0.1}, {2049, 40, 2, 0.03},
};

void check_method(Method method, const char* test_name) {
  const uint64_t seed = taskgraph::testing::test_seed(test_name);
  for (const Case& c : cases) {
    for (bool symmetric : {true, false}) {
      const uint64_t case_seed = seed + uint64_t(c.n) * 7919u + uint64_t(c.m);
      const EnkfProblem p = symmetric ? random_problem(c.n, c.m, c.l, c.density, case_seed)
                                      : enkf::testing::general_problem(c.n, c.m, c.l, c.density, case_seed);
      const std::vector<double> reference = enkf_product_cpu(p);
      const DeviceProblem device(p);
      std::unique_ptr<GpuMethod> gpu = make_gpu_method(method, device);
      std::vector<double> previous;
      for (int run = 0; run < 2; ++run) {  // a re-run of the same prepared method gives the same result
        time_gpu_method(*gpu, 0, 1);
        const std::vector<double> result = device.download_out();
        EXPECT_LE(relative_error(result, reference), tolerance)
            << method_name(method) << ": n " << c.n << " m " << c.m << " l " << c.l << " density " << c.density
            << (symmetric ? " symmetric" : " general") << " C, seed " << case_seed << ", run " << run;
        if (run == 1 && method != Method::dense) EXPECT_EQ(result, previous) << method_name(method) << " n " << c.n;
        previous = result;
      }
    }
  }
}

}  // namespace

TEST(EnkfGpu, TiledMatchesReference) { check_method(Method::tiled, "EnkfGpu.TiledMatchesReference"); }
TEST(EnkfGpu, FftMatchesReference) { check_method(Method::fft, "EnkfGpu.FftMatchesReference"); }
TEST(EnkfGpu, DenseMatchesReference) { check_method(Method::dense, "EnkfGpu.DenseMatchesReference"); }

// The auto rule picks a method that runs; at the seed's size the two fast
// methods agree with each other to 1e-12.
TEST(EnkfGpuAuto, AutoRunsAndFastMethodsAgree) {
  const uint64_t seed = taskgraph::testing::test_seed("EnkfGpuAuto.AutoRunsAndFastMethodsAgree");
  const EnkfProblem p = random_problem(25000, 32, 10, 0.05, seed);
  const DeviceProblem device(p);
  const Method chosen = automatic_method(p);
  ASSERT_TRUE(chosen == Method::tiled || chosen == Method::fft);
  const MethodRun tiled = run_method(Method::tiled, p, &device, 1, 1);
  const MethodRun fft = run_method(Method::fft, p, &device, 1, 1);
  EXPECT_LE(relative_error(tiled.result, fft.result), tolerance);
}
