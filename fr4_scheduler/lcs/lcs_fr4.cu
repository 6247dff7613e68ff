// Fr4Lcs: the tile wavefront of "Supernode transformation on GPGPUs" as an FR4
// graph, on FR4's public API only (Graph, GraphExec, params_of).
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>

#include "gpu/cuda_check.hpp"
#include "gpu/event_timer.hpp"
#include "taskgraph/graph_exec.cuh"
#include "lcs_gpu.hpp"
#include "lcs_sequence.hpp"
#include "lcs_tile.cuh"

namespace tiledqr::lcs {

using gpu::check;
using gpu::DeviceBuffer;

std::string gpu_name() {
  if (taskgraph::gpu_count() == 0) return "";
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "";
  return prop.name;
}

std::string gpu_description() {
  int device = 0, driver = 0, runtime = 0;
  cudaDeviceProp prop{};
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  return std::string(prop.name) + " (" + std::to_string(prop.multiProcessorCount) + " SMs), driver " +
         std::to_string(driver) + ", runtime " + std::to_string(runtime);
}

void check_fr4_tile(const TileShape& tile) {
  if (tile.rows < 64 || tile.rows > 2048 || tile.rows % 64 != 0)
    throw InputError("the task-graph tile height (--tile-h) must be a multiple of 64 in 64 … 2048 (a word per lane), got " +
                     std::to_string(tile.rows));
  if (tile.cols < 32 || tile.cols % 32 != 0)
    throw InputError("the task-graph tile width (--tile-w) must be a positive multiple of 32, got " + std::to_string(tile.cols));
}

// Throws the error type that matches an FR4 run's status.
void check_status(const taskgraph::Status& status, const char* what) {
  if (status.ok()) return;
  const std::string text = std::string(what) + ": " + status.message;
  if (status.code == taskgraph::Status::Code::stalled) throw StallError(text);
  throw GpuError(text);
}

struct Fr4Lcs::State {
  int64_t m = 0, n = 0;
  int64_t tile_rows = 0, tile_cols = 0;  // the grid of tiles
  DeviceBuffer<uint16_t> b_codes;
  DeviceBuffer<uint64_t> match;
  DeviceBuffer<uint64_t> column;
  DeviceBuffer<uint32_t> carries;
  LcsRunParams params;
  std::optional<taskgraph::GraphExec<LcsKinds>> exec;  // none when M or N is 0
  gpu::EventTimer timer;
  bool has_run = false;

  // Whether a result can be read: false when there is no graph (M or N is
  // 0, every value 0); InputError before run().
  bool has_result(const char* call) const {
    if (!exec) return false;
    if (!has_run) throw InputError(std::string("Fr4Lcs::") + call + " before run()");
    return true;
  }

  // The last column's bit vector (params.words words), downloaded.
  std::vector<uint64_t> last_column_words() const {
    std::vector<uint64_t> words(size_t(params.words));
    check(cudaMemcpy(words.data(), column.get(), words.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost),
          "LCS: downloading the last column");
    return words;
  }
};

Fr4Lcs::Fr4Lcs(const std::string& a, const std::string& b, const TileShape& tile) : state_(new State) {
  check_fr4_tile(tile);
  State& s = *state_;
  s.m = int64_t(a.size());
  s.n = int64_t(b.size());
  if (s.m > max_length || s.n > max_length)
    throw InputError("sequences longer than " + std::to_string(max_length) + " symbols are not supported");
  if (s.m == 0 || s.n == 0) return;
  s.tile_rows = (s.m + tile.rows - 1) / tile.rows;
  s.tile_cols = (s.n + tile.cols - 1) / tile.cols;
  if (s.tile_rows * s.tile_cols > max_fr4_tasks)
    throw InputError(std::to_string(s.tile_rows) + " x " + std::to_string(s.tile_cols) +
                     " tiles is more than the " + std::to_string(max_fr4_tasks) + " tasks allowed: use larger tiles");

  const SymbolCodes codes = encode_symbols(a, b);
  const int64_t words = (s.m + 63) / 64;
  std::vector<uint64_t> match(size_t((codes.symbols + 1) * words), 0);  // (symbols + 1, words)
  for (int64_t i = 0; i < s.m; ++i) match[size_t(codes.a_codes[size_t(i)] * words + i / 64)] |= uint64_t(1) << (i % 64);

  s.b_codes = DeviceBuffer<uint16_t>(size_t(s.n), "LCS: b's codes");
  s.match = DeviceBuffer<uint64_t>(match.size(), "LCS: match table");
  s.column = DeviceBuffer<uint64_t>(size_t(words), "LCS: column boundary");
  s.carries = DeviceBuffer<uint32_t>(size_t((s.n + 31) / 32), "LCS: row boundary");
  check(cudaMemcpy(s.b_codes.get(), codes.b_codes.data(), size_t(s.n) * sizeof(uint16_t), cudaMemcpyHostToDevice),
        "LCS: uploading b");
  check(cudaMemcpy(s.match.get(), match.data(), match.size() * sizeof(uint64_t), cudaMemcpyHostToDevice),
        "LCS: uploading the match table");

  s.params.b_codes = s.b_codes.get();
  s.params.match = s.match.get();
  s.params.column = s.column.get();
  s.params.carries = s.carries.get();
  s.params.n = s.n;
  s.params.words = static_cast<int32_t>(words);
  s.params.tile_words = static_cast<int32_t>(tile.rows / 64);
  s.params.tile_cols = static_cast<int32_t>(tile.cols);

  // Task (i, j) has id i·C + j; its predecessors come first, so ids are a
  // topological order.
  taskgraph::Graph g;
  g.define_kind(kind_lcs_tile, "lcs_tile");
  for (int64_t i = 0; i < s.tile_rows; ++i)
    for (int64_t j = 0; j < s.tile_cols; ++j) {
      const int32_t id = g.add(kind_lcs_tile, LcsTileArgs{int32_t(i), int32_t(j)}).id();
      if (i > 0) g.add_edge(id - int32_t(s.tile_cols), id);
      if (j > 0) g.add_edge(id - 1, id);
    }
  s.exec.emplace(g);
}

Fr4Lcs::~Fr4Lcs() = default;

GpuRun Fr4Lcs::run() {
  State& s = *state_;
  if (!s.exec) return GpuRun{0, 0.0};
  s.timer.start();
  check_status(s.exec->launch(s.params), "the task-graph LCS run");
  s.timer.stop();
  check_status(s.exec->wait(), "the task-graph LCS run");
  GpuRun out;
  out.seconds = s.timer.seconds();
  s.has_run = true;
  const std::vector<uint64_t> column = s.last_column_words();
  // Zero bits of V are the steps of L(·, N); the bits past M are ones.
  for (const uint64_t w : column) out.length += 64 - __builtin_popcountll(w);
  return out;
}

std::vector<int32_t> Fr4Lcs::last_column() const {
  const State& s = *state_;
  std::vector<int32_t> values(size_t(s.m + 1), 0);
  if (!s.has_result("last_column")) return values;
  const std::vector<uint64_t> column = s.last_column_words();
  for (int64_t i = 0; i < s.m; ++i)
    values[size_t(i + 1)] = values[size_t(i)] + int32_t(((column[size_t(i / 64)] >> (i % 64)) & 1) == 0);
  return values;
}

std::vector<int32_t> Fr4Lcs::last_row() const {
  const State& s = *state_;
  std::vector<int32_t> values(size_t(s.n + 1), 0);
  if (!s.has_result("last_row")) return values;
  std::vector<uint32_t> carries(size_t((s.n + 31) / 32));
  check(cudaMemcpy(carries.data(), s.carries.get(), carries.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost),
        "LCS: downloading the last row");
  for (int64_t j = 0; j < s.n; ++j)
    values[size_t(j + 1)] = values[size_t(j)] + int32_t((carries[size_t(j / 32)] >> (j % 32)) & 1);
  return values;
}

int64_t Fr4Lcs::tasks() const { return state_->tile_rows * state_->tile_cols; }

int Fr4Lcs::workers() const { return state_->exec ? state_->exec->shape().workers : 0; }

}  // namespace tiledqr::lcs
