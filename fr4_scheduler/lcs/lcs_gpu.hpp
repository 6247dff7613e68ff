// The two GPU methods of the LCS workload, behind a host-only interface (no
// CUDA headers), so the CLI and the CPU code compile with the host compiler:
//   Fr4Lcs       the tile wavefront of "Supernode transformation on GPGPUs"
//                as an FR4 task graph (lcs_tile.cuh);
//   DiagonalLcs  the baseline: one kernel launch per anti-diagonal of cells.
// Both upload once and run many times; run() times the GPU work with CUDA
// events. Failures throw GpuError (no GPU, a failed CUDA call, an FR4 run
// that failed) or StallError (the FR4 watchdog ended a run).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lcs_model.hpp"

namespace tiledqr::lcs {

struct GpuRun {
  int64_t length = 0;  // L(M, N)
  double seconds = 0;  // CUDA events around the GPU work (not the upload or the final download)
};

// The GPU's name, or "" when there is no usable CUDA device.
std::string gpu_name();
// For benchmark headers: "NAME (S SMs), driver D, runtime R".
std::string gpu_description();

// Largest tile grid Fr4Lcs builds (tasks), so a tiny tile on a huge input
// is refused rather than filling the host with a graph.
constexpr int64_t max_fr4_tasks = int64_t(1) << 23;

// Throws InputError unless tile.rows is a multiple of 64 in 64 … 2048 (one
// word per lane of a warp) and tile.cols a positive multiple of 32 (one
// carry word per 32 columns).
void check_fr4_tile(const TileShape& tile);

class Fr4Lcs {
 public:
  // Uploads a, b and a's match table and builds the ⌈M/h⌉ × ⌈N/w⌉ tile graph
  // (tile (i, j) after (i−1, j) and (i, j−1)).
  Fr4Lcs(const std::string& a, const std::string& b, const TileShape& tile);
  ~Fr4Lcs();
  Fr4Lcs(const Fr4Lcs&) = delete;
  Fr4Lcs& operator=(const Fr4Lcs&) = delete;

  GpuRun run();
  // The boundaries left by the last run, as DP values: L(i, N) for
  // i = 0 … M (from the column words) and L(M, j) for j = 0 … N (from the
  // carry bits out of the top tile row).
  std::vector<int32_t> last_column() const;
  std::vector<int32_t> last_row() const;

  int64_t tasks() const;
  int workers() const;  // FR4 warps (P of the model); 0 when there are no tasks

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class DiagonalLcs {
 public:
  DiagonalLcs(const std::string& a, const std::string& b);  // uploads a and b
  ~DiagonalLcs();
  DiagonalLcs(const DiagonalLcs&) = delete;
  DiagonalLcs& operator=(const DiagonalLcs&) = delete;

  GpuRun run();  // M + N − 1 launches of lcs_diagonal_kernel

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tiledqr::lcs
