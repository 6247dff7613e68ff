// The command line every stage program shares (docs/design.md §7): parse, load or
// generate A, factor, check, write outputs, print text or JSON, and map
// errors to exit codes (0 ok, 2 bad input, 3 check failed, 4 no GPU,
// 5 stalled). A stage supplies only its factor functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dense_matrix.hpp"
#include "factorization.hpp"

namespace CLI {
class App;
}

namespace tiledqr {

template <typename T>
using FactorFunction =
    std::function<Factorization<T>(const T* a, int64_t m, int64_t n, int64_t lda, const Options&)>;

struct StageDescription {
  std::string name;         // program name, e.g. "fr1_serial"
  std::string summary;      // one line for --help
  std::string device;       // what runs the tasks, e.g. "cpu"; GPU stages fill in the GPU's name
  bool uses_threads = false;  // whether --threads means anything here
  // Whether --domains and --inner-tree (the hierarchical tree's shape) mean
  // anything here.
  bool uses_tree_domains = true;
  // Whether the stage chooses the hierarchical tree's domains when --domains
  // is not given (Options::tree_domains 0).
  bool chooses_domains = false;
  // Whether the stage runs the tsqr tree (row blocks factored whole by
  // LAPACK, merged by a tree of --fan-in): the CPU stages of one process.
  bool runs_tsqr = false;
  // The stage's own tile kernels (e.g. "gpu-warp"), printed as its backend;
  // empty: the kernels are the --backend option's. A stage with its own
  // kernels rejects --backend and --inner-block.
  // --help lists only the options a stage honours; the others are still
  // parsed, so that giving one ends with a message saying why it does not
  // apply.
  std::string own_kernels;
  // A stage with its own kernels that chooses its tiles: --tile takes
  // "auto" (its default) and --inner-block is honoured; once the matrix's
  // size is known, this resolves the options' tile and inner block (tile 0:
  // chosen for the shape) and names the kernels they run, throwing
  // InputError for tiles the stage cannot run.
  struct Tiles {
    int tile = 0, inner_block = 0;
    std::string kernels;
  };
  std::function<Tiles(int64_t m, int64_t n, const Options& options, bool single_precision)> choose_tiles;
  // Called once the matrix's size is known and the options are chosen
  // (tile, tree), before the host-memory check and before A is made: throws
  // (GpuError for a GPU stage) when an m x n factorisation with elements of
  // this many bytes cannot fit on the device, so a request too large for the
  // device fails first and as such (exit 4), whatever the host has.
  std::function<void(int64_t m, int64_t n, size_t element_bytes, const Options& options)> check_memory;
  // The host memory the stage's schedule takes for an m x n factorisation
  // (a GPU stage: what it builds on the host to plan the device's work);
  // empty: the CPU stages' task grid or DAG, as qr_memory_need counts it.
  std::function<double(int64_t m, int64_t n, const Options& options)> host_schedule_bytes;
  // The tree used when --tree is not given; empty means flat.
  std::function<Tree(int64_t m, int64_t n, int tile, int threads)> default_tree;
  // Extra lines of --version (a GPU stage's CUDA runtime, driver and cuSOLVER
  // versions); none when empty.
  std::function<std::string()> library_versions;
  FactorFunction<double> factor_double;
  FactorFunction<float> factor_float;
};

int stage_main(int argc, char** argv, const StageDescription& stage);

// Without --check or --no-check, the residuals are computed while m·n² is at
// most this: the host check forms Q and Q'Q, O(m·n²) flops that cost about
// nine factorisations, so a large run would spend most of its time there.
constexpr double kDefaultCheckLimit = 17179869184.0;  // 2^34, e.g. 16384 x 1024

// The parsed common command line.
struct StageConfig {
  int64_t m = 2048;
  int64_t n = 1024;
  std::string input;
  std::string precision = "double";
  uint64_t seed = 42;
  Options options;
  std::string tree = "flat";
  std::string inner_tree = "flat";
  std::string backend = "lapack";
  bool check = false;     // --check: always compute the residuals, exit 3 when they fail
  bool no_check = false;  // --no-check: never compute them
  double check_limit = kDefaultCheckLimit;
  double tolerance = 50;
  bool json = false;
  bool allow_nonfinite = false;
  bool tree_given = false;  // --tree on the command line; else the stage picks by shape
  std::string output_r, output_q, rhs, output_x, trace;
};

// Parses and validates the common command line plus the options `extra`
// adds (for a program with more than the common ones). Returns -1 when the
// run should go on, else the exit code (0 after --help, 2 for bad usage);
// messages go to stderr only where `report` is set (one rank of many).
int parse_stage_command_line(int argc, char** argv, const StageDescription& stage,
                             StageConfig& config, bool report,
                             const std::function<void(CLI::App&)>& extra = {});

// The seeded random matrix every stage factors without --input: entries
// uniform in [-1, 1) drawn column by column from mt19937_64(seed).
template <typename T>
DenseMatrix<T> random_matrix(int64_t m, int64_t n, uint64_t seed);

// Throws InputError naming the first NaN/Inf of A (1-based), unless `allow`.
template <typename T>
void check_finite(const DenseMatrix<T>& a, const std::string& what, bool allow);

// Writes --output-r (R) and --output-q (the thin Q) where asked.
template <typename T>
void write_factors(const StageConfig& config, const Factorization<T>& f);

// Writes --trace: Chrome trace-event JSON for a .json path, else the CSV
// kind,k,i,j,piv,worker,start_ns,end_ns.
void write_trace(const std::string& path, const std::vector<TaskRecord>& trace, const StageDescription& stage);

}  // namespace tiledqr
