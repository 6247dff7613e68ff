// The closed-form QR DAG (qr_dag.hpp) evaluated on the GPU against the same
// functions on the host (suites common and gpu; exits 77 without a GPU).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "qr_dag.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

using qr_dag::Shape;

// Everything the closed form says about one id.
struct Eval {
  Task task;
  int64_t id_back = 0;  // id_of(task_of(id))
  int32_t contains = 0;
  int32_t pred_count = 0;
  int32_t num_preds = 0;
  int64_t preds[3] = {0, 0, 0};
  qr_dag::Successors succ;
};

TILEDQR_HOST_DEVICE Eval evaluate(const Shape& s, int64_t id) {
  Eval out;
  out.task = qr_dag::task_of(s, id);
  out.id_back = qr_dag::id_of(s, out.task);
  out.contains = qr_dag::contains(s, out.task) ? 1 : 0;
  out.pred_count = qr_dag::predecessor_count(s, id);
  out.num_preds = qr_dag::predecessors(s, id, out.preds);
  out.succ = qr_dag::successors(s, id);
  return out;
}

__global__ void evaluate_kernel(Shape s, const int64_t* ids, int64_t count, Eval* out) {
  for (int64_t n = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; n < count; n += int64_t(gridDim.x) * blockDim.x)
    out[n] = evaluate(s, ids[n]);
}

// Evaluates `ids` on the GPU and on the host and expects equal answers.
void expect_device_equals_host(const Shape& s, const std::vector<int64_t>& ids) {
  int64_t* d_ids = nullptr;
  Eval* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_ids, ids.size() * sizeof(int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, ids.size() * sizeof(Eval)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_ids, ids.data(), ids.size() * sizeof(int64_t), cudaMemcpyHostToDevice), cudaSuccess);
  evaluate_kernel<<<256, 128>>>(s, d_ids, int64_t(ids.size()), d_out);
  const cudaError_t launched = cudaGetLastError();
  std::vector<Eval> device(ids.size());
  const cudaError_t copied = cudaMemcpy(device.data(), d_out, ids.size() * sizeof(Eval), cudaMemcpyDeviceToHost);
  cudaFree(d_ids);
  cudaFree(d_out);
  ASSERT_EQ(launched, cudaSuccess) << cudaGetErrorString(launched);
  ASSERT_EQ(copied, cudaSuccess) << cudaGetErrorString(copied);
  for (size_t n = 0; n < ids.size(); ++n) {
    const Eval host = evaluate(s, ids[n]);
    const Eval& dev = device[n];
    const std::string at = std::string(tree_name(s.tree)) + " " + std::to_string(s.p) + "x" + std::to_string(s.q) +
                           " id " + std::to_string(ids[n]);
    ASSERT_EQ(dev.task, host.task) << at;
    ASSERT_EQ(dev.id_back, ids[n]) << at;
    ASSERT_EQ(dev.contains, 1) << at;
    ASSERT_EQ(dev.pred_count, host.pred_count) << at;
    ASSERT_EQ(dev.num_preds, host.num_preds) << at;
    for (int a = 0; a < host.num_preds; ++a) ASSERT_EQ(dev.preds[a], host.preds[a]) << at;
    ASSERT_EQ(dev.succ.count(), host.succ.count()) << at;
    for (int64_t e = 0; e < host.succ.count(); ++e) ASSERT_EQ(dev.succ.at(e), host.succ.at(e)) << at;
  }
}

// Pass rule: for every tree, every id of a 37×29 and a 29×37 grid, and
// 100000 random ids of 2048×2048 tiles (65536² with tile 32, ids beyond
// int32; seed printed), the GPU gives the host's task, id round trip,
// predecessors and successors.
TEST(QrDagGpu, DeviceEqualsHost) {
  std::mt19937_64 engine = testing::make_engine(90);
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy}) {
    for (const auto& [p, q] : {std::pair<int, int>{37, 29}, std::pair<int, int>{29, 37}}) {
      const Shape s = qr_dag::make_shape(p, q, tree);
      std::vector<int64_t> ids(size_t(s.num_tasks));
      for (int64_t id = 0; id < s.num_tasks; ++id) ids[size_t(id)] = id;
      expect_device_equals_host(s, ids);
      if (HasFatalFailure()) return;
    }
    const Shape big = qr_dag::make_shape(2048, 2048, tree);
    std::uniform_int_distribution<int64_t> any_id(0, big.num_tasks - 1);
    std::vector<int64_t> ids = {0, big.num_tasks - 1};
    while (ids.size() < 100000) ids.push_back(any_id(engine));
    expect_device_equals_host(big, ids);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    std::printf("no CUDA-capable GPU: skipped\n");
    return 77;
  }
  return RUN_ALL_TESTS();
}
