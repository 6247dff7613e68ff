// The GPU C interface's argument checks (include/tiledqr/tiledqr_gpu.h),
// with or without a GPU: every bad argument gives TILEDQR_ERR_INVALID_ARGUMENT
// and a message naming it before any CUDA call, so on a machine without a
// GPU the status is still INVALID_ARGUMENT, not NO_GPU. The device pointers
// passed are never dereferenced (each call fails on an argument first). Runs
// in every build with CUDA, GPU or not (suite capi).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tiledqr/tiledqr_gpu.h"

namespace {

// Pass rule: `status` is TILEDQR_ERR_INVALID_ARGUMENT and tiledqr_last_error()
// contains `words`.
void expect_invalid(int status, const std::string& words) {
  EXPECT_EQ(status, TILEDQR_ERR_INVALID_ARGUMENT) << tiledqr_strerror(status) << ": " << tiledqr_last_error();
  EXPECT_NE(std::string(tiledqr_last_error()).find(words), std::string::npos)
      << "expected \"" << words << "\" in \"" << tiledqr_last_error() << "\"";
}

tiledqr_options with_tile(int tile) {
  tiledqr_options o{};
  o.tile = tile;
  return o;
}

tiledqr_options with_tree(int tree) {
  tiledqr_options o{};
  o.tree = tree;
  return o;
}

TEST(CapiGpuArguments, DeviceMatrix) {
  std::vector<double> storage(64, 1.0);  // stands for device memory: never read
  double* d_a = storage.data();
  const tiledqr_options tile48 = with_tile(48), tree9 = with_tree(9);
  tiledqr_gpu_factors* f = reinterpret_cast<tiledqr_gpu_factors*>(&storage);  // must be reset to NULL
  expect_invalid(tiledqr_gpu_dgeqrf(4, 4, d_a, 4, &f, &tile48, nullptr), "tiles of 32, 64, 128 or 256");
  EXPECT_EQ(f, nullptr) << "a failed call leaves *factors NULL";
  expect_invalid(tiledqr_gpu_dgeqrf(4, 4, d_a, 4, &f, &tree9, nullptr), "options.tree");
  const tiledqr_options tsqr = with_tree(TILEDQR_TREE_TSQR);
  expect_invalid(tiledqr_gpu_dgeqrf(4, 4, d_a, 4, &f, &tsqr, nullptr), "runs on the CPU only");
  expect_invalid(tiledqr_gpu_dgeqrf(4, 4, d_a, 3, &f, nullptr, nullptr), "ldda (3) must be >= m (4)");
  expect_invalid(tiledqr_gpu_dgeqrf(0, 4, d_a, 4, &f, nullptr, nullptr), "at least 1x1");
  expect_invalid(tiledqr_gpu_dgeqrf(4, -1, d_a, 4, &f, nullptr, nullptr), "at least 1x1");
  expect_invalid(tiledqr_gpu_dgeqrf(4, 4, nullptr, 4, &f, nullptr, nullptr), "dA is NULL");
  EXPECT_EQ(f, nullptr);
  std::vector<float> single(64, 1.0f);
  expect_invalid(tiledqr_gpu_sgeqrf(4, 4, single.data(), 2, nullptr, nullptr, nullptr), "ldda");
  expect_invalid(tiledqr_gpu_sgeqrf(4, 4, single.data(), 4, nullptr, &tile48, nullptr), "tiles of 32, 64, 128 or 256");
  tiledqr_options big_inner = with_tile(256);
  big_inner.inner_block = 64;
  expect_invalid(tiledqr_gpu_dgeqrf(4, 4, d_a, 4, &f, &big_inner, nullptr), "tile 256 takes an inner block of 16 or 32");
}

TEST(CapiGpuArguments, HostMatrix) {
  std::vector<double> a(16, 1.0);
  const tiledqr_options tile16 = with_tile(16), tree_minus = with_tree(-1);
  tiledqr_factors* host = nullptr;
  expect_invalid(tiledqr_gpu_dgeqrf_host(4, 4, a.data(), 3, &host, nullptr), "lda (3) must be >= m (4)");
  expect_invalid(tiledqr_gpu_dgeqrf_host(4, 4, nullptr, 4, &host, nullptr), "A is NULL");
  expect_invalid(tiledqr_gpu_dgeqrf_host(4, 4, a.data(), 4, &host, &tile16), "tiles of 32, 64, 128 or 256");
  expect_invalid(tiledqr_gpu_dgeqrf_host(4, 4, a.data(), 4, &host, &tree_minus), "options.tree");
  a[5] = std::nan("");
  expect_invalid(tiledqr_gpu_dgeqrf_host(4, 4, a.data(), 4, &host, nullptr), "A(2,2) is not finite");
  EXPECT_EQ(host, nullptr);
  std::vector<float> s(16, 1.0f);
  s[15] = INFINITY;
  expect_invalid(tiledqr_gpu_sgeqrf_host(4, 4, s.data(), 4, &host, nullptr), "A(4,4) is not finite");
}

TEST(CapiGpuArguments, LeastSquares) {
  std::vector<double> a(16, 1.0), b(8, 1.0);  // stand for device memory in the dA/dB calls: never read
  const tiledqr_options tile48 = with_tile(48);
  expect_invalid(tiledqr_gpu_dgels(2, 4, 1, a.data(), 2, b.data(), 4, nullptr, nullptr), "least squares needs m >= n");
  expect_invalid(tiledqr_gpu_dgels(4, 4, 1, a.data(), 4, b.data(), 2, nullptr, nullptr), "lddb (2) must be >= m (4)");
  expect_invalid(tiledqr_gpu_dgels(4, 4, -1, a.data(), 4, b.data(), 4, nullptr, nullptr), "nrhs must be >= 0");
  expect_invalid(tiledqr_gpu_dgels(4, 4, 1, a.data(), 4, nullptr, 4, nullptr, nullptr), "dB is NULL");
  expect_invalid(tiledqr_gpu_dgels(4, 4, 1, nullptr, 4, b.data(), 4, nullptr, nullptr), "dA is NULL");
  expect_invalid(tiledqr_gpu_dgels(0, 0, 1, a.data(), 1, b.data(), 1, nullptr, nullptr), "at least 1x1");
  expect_invalid(tiledqr_gpu_dgels(4, 4, 1, a.data(), 4, b.data(), 4, &tile48, nullptr), "tiles of 32, 64, 128 or 256");
  std::vector<float> sa(16, 1.0f), sb(8, 1.0f);
  expect_invalid(tiledqr_gpu_sgels(4, 4, 2, sa.data(), 3, sb.data(), 4, nullptr, nullptr), "ldda (3) must be >= m (4)");
  expect_invalid(tiledqr_gpu_sgels_host(4, 4, 1, sa.data(), 4, sb.data(), 3, nullptr), "ldb (3) must be >= m (4)");
  expect_invalid(tiledqr_gpu_sgels_host(4, 5, 1, sa.data(), 4, sb.data(), 4, nullptr), "least squares needs m >= n");
  b[6] = std::nan("");
  expect_invalid(tiledqr_gpu_dgels_host(4, 4, 2, a.data(), 4, b.data(), 4, nullptr), "B(3,2) is not finite");
  a[0] = INFINITY;
  expect_invalid(tiledqr_gpu_dgels_host(4, 4, 2, a.data(), 4, b.data(), 4, nullptr), "A(1,1) is not finite");
  expect_invalid(tiledqr_gpu_dgels_host(4, 4, 1, a.data(), 4, b.data(), 4, &tile48), "tiles of 32, 64, 128 or 256");
}

TEST(CapiGpuArguments, Handles) {
  tiledqr_factors* host = nullptr;
  expect_invalid(tiledqr_gpu_factors_download(nullptr, &host), "factors is NULL");
  EXPECT_EQ(host, nullptr);
  expect_invalid(tiledqr_gpu_factors_download(nullptr, nullptr), "factors is NULL");
  tiledqr_gpu_factors_free(nullptr);  // allowed, does nothing
}

TEST(CapiGpuArguments, Batches) {
  std::vector<double> storage(256, 1.0);  // stands for device memory: never read
  double* d_a = storage.data();
  const tiledqr_options tile64 = with_tile(64), tsqr = with_tree(TILEDQR_TREE_TSQR), tree9 = with_tree(9);
  expect_invalid(tiledqr_gpu_dgeqrf_batch(-1, 4, 4, d_a, 4, 16, nullptr, nullptr), "batch must be >= 0");
  expect_invalid(tiledqr_gpu_dgeqrf_batch(3, 4, 4, d_a, 3, 16, nullptr, nullptr), "ldda (3) must be >= max(1, m)");
  expect_invalid(tiledqr_gpu_dgeqrf_batch(3, 4, 4, d_a, 4, 15, nullptr, nullptr), "stride_a (15) must be >= ldda * n");
  expect_invalid(tiledqr_gpu_dgeqrf_batch(3, 4, 4, nullptr, 4, 16, nullptr, nullptr), "dA is NULL");
  expect_invalid(tiledqr_gpu_dgeqrf_batch(3, -4, 4, d_a, 4, 16, nullptr, nullptr), "m and n must be >= 0");
  expect_invalid(tiledqr_gpu_dgeqrf_batch(3, 4, 4, d_a, 4, 16, &tile64, nullptr), "tiles of 32");
  expect_invalid(tiledqr_gpu_dgeqrf_batch(3, 4, 4, d_a, 4, 16, &tsqr, nullptr), "runs on the CPU only");
  expect_invalid(tiledqr_gpu_dgeqrf_batch(3, 4, 4, d_a, 4, 16, &tree9, nullptr), "options.tree");
  std::vector<float> single(64, 1.0f);
  expect_invalid(tiledqr_gpu_sgeqrf_batch(2, 4, 4, single.data(), 4, 8, nullptr, nullptr), "stride_a");
  // Host stacks: the same checks, and entries that are not finite.
  std::vector<double> host(48, 0.5);
  host[16 + 5] = std::nan("");
  tiledqr_factors* handles[3] = {reinterpret_cast<tiledqr_factors*>(&host), nullptr, nullptr};
  expect_invalid(tiledqr_gpu_dgeqrf_batch_host(3, 4, 4, host.data(), 4, 16, handles, nullptr), "A[1](2,2) is not finite");
  EXPECT_EQ(handles[0], nullptr) << "a failed call leaves the handles NULL";
  expect_invalid(tiledqr_gpu_dgeqrf_batch_host(3, 4, 4, host.data(), 4, 12, handles, nullptr), "stride_a (12)");
  expect_invalid(tiledqr_gpu_dgeqrf_batch_host(3, 4, 4, host.data(), 4, 16, handles, &tile64), "tiles of 32");
  // Nothing to factor: no device needed.
  EXPECT_EQ(tiledqr_gpu_dgeqrf_batch(0, 4, 4, nullptr, 4, 16, nullptr, nullptr), TILEDQR_SUCCESS) << tiledqr_last_error();
  EXPECT_EQ(tiledqr_gpu_dgeqrf_batch(5, 0, 4, nullptr, 1, 0, nullptr, nullptr), TILEDQR_SUCCESS) << tiledqr_last_error();
}

TEST(CapiGpuArguments, VariableBatches) {
  std::vector<double> storage(256, 1.0);  // stands for device memory: never read
  double* matrices[3] = {storage.data(), storage.data() + 64, storage.data() + 128};
  const int64_t m[3] = {4, 8, 2}, n[3] = {4, 2, 5}, ld[3] = {4, 8, 2}, short_ld[3] = {4, 7, 2}, negative[3] = {4, -1, 2};
  expect_invalid(tiledqr_gpu_dgeqrf_vbatch(-1, m, n, matrices, ld, nullptr, nullptr), "batch must be >= 0");
  expect_invalid(tiledqr_gpu_dgeqrf_vbatch(3, m, nullptr, matrices, ld, nullptr, nullptr), "must not be NULL");
  expect_invalid(tiledqr_gpu_dgeqrf_vbatch(3, m, n, matrices, short_ld, nullptr, nullptr), "ldda[1] (7)");
  expect_invalid(tiledqr_gpu_dgeqrf_vbatch(3, negative, n, matrices, ld, nullptr, nullptr), "m and n must be >= 0");
  double* with_null[3] = {storage.data(), nullptr, storage.data()};
  expect_invalid(tiledqr_gpu_dgeqrf_vbatch(3, m, n, with_null, ld, nullptr, nullptr), "dA[1] is NULL");
  const tiledqr_options tile64 = with_tile(64);
  expect_invalid(tiledqr_gpu_dgeqrf_vbatch(3, m, n, matrices, ld, &tile64, nullptr), "tiles of 32");
  const int64_t empty_m[2] = {0, 3}, empty_n[2] = {5, 0}, empty_ld[2] = {1, 3};
  double* none[2] = {nullptr, nullptr};
  EXPECT_EQ(tiledqr_gpu_dgeqrf_vbatch(2, empty_m, empty_n, none, empty_ld, nullptr, nullptr), TILEDQR_SUCCESS)
      << tiledqr_last_error();
}

TEST(CapiGpuArguments, Plans) {
  tiledqr_gpu_plan* plan = reinterpret_cast<tiledqr_gpu_plan*>(&plan);  // must be reset to NULL
  const tiledqr_options tile48 = with_tile(48), tile64 = with_tile(64);
  expect_invalid(tiledqr_gpu_dgeqrf_plan(&plan, 0, 4, 4, nullptr), "batch must be >= 1");
  EXPECT_EQ(plan, nullptr) << "a failed call leaves *plan NULL";
  expect_invalid(tiledqr_gpu_dgeqrf_plan(&plan, 1, 0, 4, nullptr), "at least 1x1");
  expect_invalid(tiledqr_gpu_dgeqrf_plan(&plan, 1, 4, 4, &tile48), "tiles of 32, 64, 128 or 256");
  expect_invalid(tiledqr_gpu_sgeqrf_plan(&plan, 3, 4, 4, &tile64), "tiles of 32");
  expect_invalid(tiledqr_gpu_dgeqrf_plan(nullptr, 1, 4, 4, nullptr), "plan is NULL");
  std::vector<double> storage(64, 1.0);
  expect_invalid(tiledqr_gpu_dgeqrf_execute(nullptr, storage.data(), 4, 16, nullptr), "plan is NULL");
  std::vector<float> single(64, 1.0f);
  expect_invalid(tiledqr_gpu_sgeqrf_execute(nullptr, single.data(), 4, 16, nullptr), "plan is NULL");
  tiledqr_gpu_plan_destroy(nullptr);  // allowed, does nothing
}

// Good arguments on a machine without a GPU: TILEDQR_ERR_NO_GPU, the
// status the argument checks above must not be confused with.
TEST(CapiGpuArguments, GoodArgumentsWithoutGpu) {
  if (tiledqr_gpu_check_device() != TILEDQR_ERR_NO_GPU) GTEST_SKIP() << "a GPU is here: test_capi_gpu covers it";
  std::vector<double> a(16);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(double(i) + 1);
  tiledqr_factors* host = nullptr;
  EXPECT_EQ(tiledqr_gpu_dgeqrf_host(4, 4, a.data(), 4, &host, nullptr), TILEDQR_ERR_NO_GPU) << tiledqr_last_error();
  EXPECT_EQ(host, nullptr);
  EXPECT_EQ(a[0], std::sin(1.0)) << "A unchanged";
  EXPECT_EQ(tiledqr_gpu_dgeqrf(4, 4, a.data(), 4, nullptr, nullptr, nullptr), TILEDQR_ERR_NO_GPU);
  tiledqr_gpu_plan* plan = nullptr;
  EXPECT_EQ(tiledqr_gpu_dgeqrf_plan(&plan, 5, 4, 4, nullptr), TILEDQR_ERR_NO_GPU);
  EXPECT_EQ(plan, nullptr);
  std::vector<double> stack(32, 0.5);
  EXPECT_EQ(tiledqr_gpu_dgeqrf_batch(2, 4, 4, stack.data(), 4, 16, nullptr, nullptr), TILEDQR_ERR_NO_GPU);
}

}  // namespace
