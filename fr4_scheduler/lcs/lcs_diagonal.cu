// DiagonalLcs: the GPU baseline of the LCS workload — one kernel launch per
// anti-diagonal d = i + j of the DP table, one thread per cell, three
// diagonals of int32 kept (O(M) memory). Simple and correct; its cost is
// M + N − 1 launches.
#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"
#include "gpu/event_timer.hpp"
#include "lcs_gpu.hpp"
#include "lcs_sequence.hpp"

namespace tiledqr::lcs {

using gpu::check;
using gpu::DeviceBuffer;

// Cells (i, d − i), i = first … first + count − 1, of anti-diagonal d
// (0-based rows of a and columns of b), as L(i+1, j+1) of the DP:
//   current[i] = a_i = b_j ? before_previous[i−1] + 1 : max(previous[i−1], previous[i])
// where previous holds diagonal d − 1 and before_previous d − 2, both
// indexed by row; neighbours outside the table are 0.
__global__ void lcs_diagonal_kernel(const char* a, const char* b, int32_t d, int32_t first, int32_t count,
                                    const int32_t* before_previous, const int32_t* previous, int32_t* current) {
  const int32_t k = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= count) return;
  const int32_t i = first + k, j = d - i;
  const int32_t up = i > 0 ? previous[i - 1] : 0;     // (i−1, j)
  const int32_t left = j > 0 ? previous[i] : 0;       // (i, j−1)
  const int32_t diagonal = i > 0 && j > 0 ? before_previous[i - 1] : 0;
  current[i] = a[i] == b[j] ? diagonal + 1 : (up > left ? up : left);
}

struct DiagonalLcs::State {
  int32_t m = 0, n = 0;
  DeviceBuffer<char> a, b;
  DeviceBuffer<int32_t> diagonals[3];  // (m) each, rotating: d − 2, d − 1, d
  gpu::EventTimer timer;
};

DiagonalLcs::DiagonalLcs(const std::string& a, const std::string& b) : state_(new State) {
  State& s = *state_;
  if (int64_t(a.size()) > max_length || int64_t(b.size()) > max_length)
    throw InputError("sequences longer than " + std::to_string(max_length) + " symbols are not supported");
  s.m = static_cast<int32_t>(a.size());
  s.n = static_cast<int32_t>(b.size());
  if (s.m == 0 || s.n == 0) return;
  s.a = DeviceBuffer<char>(a.size(), "LCS diagonal: a");
  s.b = DeviceBuffer<char>(b.size(), "LCS diagonal: b");
  for (DeviceBuffer<int32_t>& diagonal : s.diagonals) diagonal = DeviceBuffer<int32_t>(a.size(), "LCS diagonal: a diagonal");
  check(cudaMemcpy(s.a.get(), a.data(), a.size(), cudaMemcpyHostToDevice), "LCS diagonal: uploading a");
  check(cudaMemcpy(s.b.get(), b.data(), b.size(), cudaMemcpyHostToDevice), "LCS diagonal: uploading b");
}

DiagonalLcs::~DiagonalLcs() = default;

GpuRun DiagonalLcs::run() {
  State& s = *state_;
  if (s.m == 0 || s.n == 0) return GpuRun{0, 0.0};
  constexpr int threads = 256;
  const int32_t last_diagonal = s.m + s.n - 2;
  s.timer.start();
  for (int32_t d = 0; d <= last_diagonal; ++d) {
    const int32_t first = d - s.n + 1 > 0 ? d - s.n + 1 : 0;
    const int32_t end = d + 1 < s.m ? d + 1 : s.m;  // one past the last row on d
    const int32_t count = end - first;
    lcs_diagonal_kernel<<<unsigned((count + threads - 1) / threads), threads>>>(
        s.a.get(), s.b.get(), d, first, count, s.diagonals[(d + 1) % 3].get(), s.diagonals[(d + 2) % 3].get(),
        s.diagonals[d % 3].get());
    gpu::check_launch("lcs_diagonal_kernel");
  }
  s.timer.stop();
  GpuRun out;
  out.seconds = s.timer.seconds();
  int32_t length = 0;  // cell (m−1, n−1) on the last diagonal
  check(cudaMemcpy(&length, s.diagonals[last_diagonal % 3].get() + (s.m - 1), sizeof(int32_t),
                   cudaMemcpyDeviceToHost),
        "LCS diagonal: downloading the length");
  out.length = length;
  return out;
}

}  // namespace tiledqr::lcs
