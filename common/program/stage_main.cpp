// The stage programs' shared command line and run: parse, load or generate A, factor, check, write; see stage_main.hpp.
#include "stage_main.hpp"

#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

#include "checks.hpp"
#include "cpu_threads.hpp"
#include "errors.hpp"
#include "matrix_market.hpp"
#include "output_file.hpp"
#include "program.hpp"
#include "random_values.hpp"
#include "strict_numbers.hpp"
#include "npy.hpp"
#include "nvtx_range.hpp"
#include "trace_json.hpp"
#include "version.hpp"

namespace tiledqr {
namespace {

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

template <typename T>
DenseMatrix<T> random_matrix(int64_t m, int64_t n, uint64_t seed) {
  DenseMatrix<T> a(m, n);
  std::mt19937_64 engine(seed);
  fill_uniform(a.data, engine);
  return a;
}

// Rejects NaN/Inf (unless allowed), naming the first position, 1-based.
template <typename T>
void check_finite(const DenseMatrix<T>& a, const std::string& what, bool allow) {
  if (allow) return;
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i)
      if (!std::isfinite(double(a(i, j))))
        throw InputError(what + " has a non-finite entry " + std::to_string(double(a(i, j))) +
                         " at (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                         "); use --allow-nonfinite to factor it anyway");
}

template DenseMatrix<float> random_matrix<float>(int64_t, int64_t, uint64_t);
template DenseMatrix<double> random_matrix<double>(int64_t, int64_t, uint64_t);
template void check_finite<float>(const DenseMatrix<float>&, const std::string&, bool);
template void check_finite<double>(const DenseMatrix<double>&, const std::string&, bool);

namespace {

bool ends_with_json(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

// A path ending in .json gets the Chrome trace-event format (Perfetto), any
// other the CSV that the figures read.
void write_trace(OutputFile& out, const std::string& path, const std::vector<TaskRecord>& trace,
                 const StageDescription& stage) {
  if (ends_with_json(path)) {
    std::ostringstream json;
    write_chrome_trace(json, trace, stage.name, stage.device == "cpu" ? "worker" : "executor warp");
    out.write(json.str());
    return;
  }
  out.write("kind,k,i,j,piv,worker,start_ns,end_ns\n");
  for (const TaskRecord& r : trace)
    out.write(std::string(task_kind_name(r.task.kind)) + ',' + std::to_string(r.task.k) + ',' +
              std::to_string(r.task.i) + ',' + std::to_string(r.task.j) + ',' + std::to_string(r.task.piv) +
              ',' + std::to_string(r.worker) + ',' + std::to_string(r.start_ns) + ',' +
              std::to_string(r.end_ns) + '\n');
}

// The outputs a run writes, checked before the input is read.
struct StageOutputs {
  OutputTarget r, q, x, trace;
};

StageOutputs check_stage_outputs(const StageConfig& config) {
  StageOutputs out{check_output_path("--output-r", config.output_r),
                   check_output_path("--output-q", config.output_q),
                   check_output_path("--output-x", config.output_x),
                   check_output_path("--trace", config.trace)};
  check_distinct_outputs({out.r, out.q, out.x, out.trace});
  return out;
}

// Matrix files: .npy by its extension, Matrix Market otherwise.
DenseMatrix<double> read_matrix_file(const std::string& path) {
  return is_npy_path(path) ? read_npy(path) : read_matrix_market(path);
}

// `a` into `out`, whose destination is `path`: .npy by its name, else Matrix Market.
template <typename T>
void write_matrix_file(OutputFile& out, const std::string& path, const DenseMatrix<T>& a) {
  if (is_npy_path(path)) out.write(format_npy(a.data.data(), a.rows, a.cols, a.ld()));
  else write_matrix_market(out, a.data.data(), a.rows, a.cols, a.ld());
}

}  // namespace

template <typename T>
void write_factors(const StageConfig& config, const Factorization<T>& f) {
  // Both or neither: each whole in a temporary, then both renamed in (output_file.hpp).
  const OutputTarget r = check_output_path("--output-r", config.output_r);
  const OutputTarget q = check_output_path("--output-q", config.output_q);
  check_distinct_outputs({r, q});
  std::vector<OutputJob> jobs;
  if (r.requested()) jobs.push_back({r, [&](OutputFile& out) { write_matrix_file(out, config.output_r, f.r()); }});
  if (q.requested())
    jobs.push_back({q, [&](OutputFile& out) { write_matrix_file(out, config.output_q, f.thin_q()); }});
  write_outputs(jobs);
}

template void write_factors<float>(const StageConfig&, const Factorization<float>&);
template void write_factors<double>(const StageConfig&, const Factorization<double>&);

void write_trace(const std::string& path, const std::vector<TaskRecord>& trace, const StageDescription& stage) {
  const OutputTarget target = check_output_path("--trace", path);
  write_outputs({{target, [&](OutputFile& out) { write_trace(out, path, trace, stage); }}});
}

namespace {

// Why the residuals are not computed, or empty when they are.
std::string check_skipped_because(const StageConfig& config, int64_t m, int64_t n) {
  if (config.check) return "";
  if (config.no_check) return "--no-check";
  const double work = double(m) * double(n) * double(n);
  if (work <= config.check_limit) return "";
  char text[160];
  std::snprintf(text, sizeof text, "m*n^2 = %.3g is above --check-limit %.3g; --check forces it", work,
                config.check_limit);
  return text;
}

template <typename T>
int run(const StageConfig& config, const StageOutputs& outputs, const StageDescription& stage,
        const FactorFunction<T>& factor_function) {
  DenseMatrix<T> a;
  std::string source;
  Options options = config.options;
  // Tile clamped to the matrix (CPU kernels) or chosen by the stage, and
  // the tree chosen; then the device's memory (a GPU stage), then the whole
  // run's host memory against the limits. The device comes first: a GPU
  // stage's matrix lives on the device, and a request too large for it is
  // that, whatever the host could hold.
  std::string kernels = stage.own_kernels.empty() ? backend_name(options.backend) : stage.own_kernels;
  auto plan = [&](int64_t m, int64_t n) {
    if (stage.own_kernels.empty()) options.tile = clamp_tile(options.tile, m, n);
    if (stage.choose_tiles) {
      const StageDescription::Tiles tiles = stage.choose_tiles(m, n, options, sizeof(T) == sizeof(float));
      options.tile = tiles.tile;
      options.inner_block = tiles.inner_block;
      kernels = tiles.kernels;
    }
    if (!config.tree_given && stage.default_tree)
      options.tree = stage.default_tree(m, n, options.tile, options.threads);
    if (stage.check_memory) stage.check_memory(m, n, sizeof(T), options);
  };
  auto ensure_host_memory = [&](int64_t m, int64_t n) {
    QrMemoryNeed need = qr_memory_need(m, n, options, sizeof(T), !config.input.empty());
    if (stage.host_schedule_bytes) need.schedule = stage.host_schedule_bytes(m, n, options);
    ensure_memory(need, options.threads, "a " + std::to_string(m) + " x " + std::to_string(n) + " factorisation");
  };
  if (!config.input.empty()) {
    {
      const NvtxRange range("read");
      a = to_precision<T>(read_matrix_file(config.input), config.input);
    }
    if (a.rows < 1 || a.cols < 1)
      throw InputError(config.input + ": matrix is " + std::to_string(a.rows) + "x" +
                       std::to_string(a.cols) + "; need at least 1x1");
    plan(a.rows, a.cols);
    check_finite(a, config.input, config.allow_nonfinite);
    ensure_host_memory(a.rows, a.cols);
    source = config.input;
  } else {
    checked_elements({config.m, config.n}, sizeof(T), "the matrix");
    plan(config.m, config.n);
    ensure_host_memory(config.m, config.n);
    a = random_matrix<T>(config.m, config.n, config.seed);
    source = "random, seed " + std::to_string(config.seed);
  }
  DenseMatrix<T> b;
  if (!config.rhs.empty()) {
    const NvtxRange range("read");
    b = to_precision<T>(read_matrix_file(config.rhs), config.rhs);
    if (b.rows != a.rows)
      throw InputError(config.rhs + ": right-hand side has " + std::to_string(b.rows) +
                       " rows, the matrix has " + std::to_string(a.rows));
    check_finite(b, config.rhs, config.allow_nonfinite);
    if (a.rows < a.cols) throw InputError("--rhs needs m >= n (least squares)");
  }

  const std::string& backend = kernels;
  // Kernels of their own without T blocks (the warp kernels) take a tile's
  // columns as one block.
  const int inner_block = stage.own_kernels.empty()  ? options.effective_inner_block()
                          : options.inner_block > 0 ? options.inner_block
                                                     : options.tile;

  const auto start = std::chrono::steady_clock::now();
  Factorization<T> f = [&] {
    const NvtxRange range("factor");
    return factor_function(a.data.data(), a.rows, a.cols, a.ld(), options);
  }();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Measured before the checks allocate Q: the input plus the factorisation.
  const double factor_peak_mib = peak_rss_mib();
  const double seconds = f.device_seconds > 0 ? f.device_seconds : wall;
  const double gflops = qr_flops(a.rows, a.cols) / seconds * 1e-9;
  if (!config.allow_nonfinite) require_finite_r(f.r());
  const std::string skipped = check_skipped_because(config, a.rows, a.cols);
  Residuals res{std::nan(""), std::nan("")};
  if (skipped.empty()) {
    const NvtxRange range("check");
    res = check_factorization(a.data.data(), a.rows, a.cols, a.ld(), f);
  }
  const double bound = check_bound(a.rows, a.cols, config.tolerance);
  const bool passed = res.residual < bound && res.orthogonality < bound;

  DenseMatrix<T> x;
  if (!config.rhs.empty()) x = f.solve(b.data.data(), b.ld(), b.cols);

  const char* precision = sizeof(T) == 8 ? "double" : "float";
  // The tsqr tree's inner block is at most n; its row blocks at most m / n.
  const int ib_used = f.is_tsqr() ? f.tsqr.ib : inner_block;
  if (config.json) {
    std::cout << "{\"stage\":" << json_string(stage.name) << ",\"m\":" << a.rows
              << ",\"n\":" << a.cols << ",\"tile\":" << options.tile
              << ",\"inner_block\":" << ib_used
              << ",\"precision\":\"" << precision << "\",\"backend\":\""
              << backend << "\",\"tree\":\""
              << tree_name(options.tree) << "\",\"threads\":" << options.threads
              << (f.is_tsqr() ? ",\"row_blocks\":" + std::to_string(f.tsqr.count()) +
                                    ",\"fan_in\":" + std::to_string(f.tsqr.fan_in)
                              : std::string())
              << ",\"seed\":" << (config.input.empty() ? std::to_string(config.seed) : "null")
              << ",\"seconds\":" << json_number(seconds) << ",\"gflops\":" << json_number(gflops)
              << ",\"residual\":" << json_number(res.residual)
              << ",\"orthogonality\":" << json_number(res.orthogonality)
              << ",\"tolerance\":" << json_number(config.tolerance)
              << ",\"matrix_mib\":" << json_number(double(a.data.size() * sizeof(T)) / 1048576.0)
              << ",\"peak_rss_mib\":" << json_number(factor_peak_mib)
              << ",\"check\":" << (!skipped.empty() ? "\"skipped\"" : passed ? "\"pass\"" : "\"fail\"")
              << ",\"device\":" << json_string(stage.device) << "}" << std::endl;
  } else {
    std::printf("%s: %lld x %lld %s (%s), tile %d, inner block %d, backend %s, tree %s\n",
                stage.name.c_str(), static_cast<long long>(a.rows),
                static_cast<long long>(a.cols), precision, source.c_str(), options.tile,
                ib_used, backend.c_str(), tree_name(options.tree));
    if (stage.uses_threads) std::printf("  threads        %d\n", options.threads);
    if (f.is_tsqr()) std::printf("  row blocks     %d (fan-in %d)\n", int(f.tsqr.count()), f.tsqr.fan_in);
    std::printf("  time           %.6f s\n", seconds);
    std::printf("  GFLOP/s        %.3f\n", gflops);
    if (skipped.empty()) {
      std::printf("  residual       %.4g   (|A-QR|_F / (|A|_F n eps))\n", res.residual);
      std::printf("  orthogonality  %.4g   (|I-Q'Q|_F / (n eps))\n", res.orthogonality);
    } else {
      std::printf("  check          skipped (%s)\n", skipped.c_str());
    }
  }
  if (config.check && !passed) {
    std::cerr << stage.name << ": check failed: residual " << res.residual << ", orthogonality "
              << res.orthogonality << " (bound " << bound << " = tolerance " << config.tolerance
              << " x sqrt(max(m, n) / n))\n";
    return exit_code::check_failed;
  }
  // All outputs or none: each is written whole to a temporary, then all are renamed in.
  std::vector<OutputJob> jobs;
  auto add = [&jobs](const OutputTarget& target, std::function<void(OutputFile&)> write) {
    if (target.requested()) jobs.push_back({target, std::move(write)});
  };
  add(outputs.r, [&](OutputFile& out) {
    const DenseMatrix<T> r = f.r();
    write_matrix_file(out, config.output_r, r);
  });
  add(outputs.q, [&](OutputFile& out) {
    const DenseMatrix<T> q = f.thin_q();
    write_matrix_file(out, config.output_q, q);
  });
  add(outputs.x, [&](OutputFile& out) { write_matrix_file(out, config.output_x, x); });
  add(outputs.trace, [&](OutputFile& out) { write_trace(out, config.trace, f.trace, stage); });
  const NvtxRange write_range("write");
  std::fflush(stdout);  // the report above comes first where an output is stdout itself
  write_outputs(jobs);
  return exit_code::ok;
}

}  // namespace

int parse_stage_command_line(int argc, char** argv, const StageDescription& stage, StageConfig& config,
                             bool report, const std::function<void(CLI::App&)>& extra) {
  CLI::App app{stage.summary, stage.name};
  const CLI::Validator signed_decimal = decimal_integer(true);
  const CLI::Validator unsigned_decimal = decimal_integer(false);
  auto* m_option = app.add_option("--m", config.m, "rows of the random matrix (default 2048)")
                       ->transform(signed_decimal);
  auto* n_option = app.add_option("--n", config.n, "columns of the random matrix (default 1024)")
                       ->transform(signed_decimal);
  auto* input_option = app.add_option("--input", config.input, "matrix to factor: .npy, else Matrix Market");
  input_option->excludes(m_option)->excludes(n_option);
  const bool tile_auto = bool(stage.choose_tiles);
  std::string tile_text = tile_auto ? "auto" : "32";
  app.add_option("--tile", tile_text,
                 tile_auto ? "tile size b, or auto: chosen for the shape, precision and GPU (default auto)"
                           : "tile size b (default 32)");
  auto* inner_block_option = app.add_option("--inner-block", config.options.inner_block,
                 tile_auto ? "inner block ib of the block tiles (0: chosen with the tile, or 32)"
                           : "inner block ib of the lapack backend (default min(b, 32))")
      ->transform(signed_decimal);
  app.add_option("--precision", config.precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--seed", config.seed, "seed of the random matrix (default 42)")
      ->transform(unsigned_decimal);
  auto* threads_option =
      app.add_option("--threads", config.options.threads, "worker threads (0: every CPU this process may use)")
          ->transform(signed_decimal);
  const std::string tree_help =
      stage.runs_tsqr
          ? "elimination tree: flat, binary, greedy, hierarchical, or tsqr: row blocks factored whole by "
            "LAPACK and their R merged by a tree (default: the stage's choice by shape)"
          : "elimination tree: flat, binary, greedy or hierarchical (default: the stage's choice by shape)";
  auto* tree_option = app.add_option("--tree", config.tree, tree_help)
                          ->check(CLI::IsMember({"flat", "binary", "greedy", "hierarchical", "tsqr"}));
  auto* domains_option =
      app.add_option("--domains", config.options.tree_domains,
                     stage.runs_tsqr ? "hierarchical tree: domains, tile row i in domain i mod domains (default 1); "
                                       "tsqr: row blocks (default: one per thread)"
                     : stage.chooses_domains
                         ? "hierarchical tree: domains, tile row i in domain i mod domains, each reduced flat "
                           "(default: one per 8 tile rows)"
                         : "hierarchical tree: domains, tile row i in domain i mod domains (default 1)")
          ->transform(signed_decimal);
  auto* inner_tree_option =
      app.add_option("--inner-tree", config.inner_tree, "hierarchical tree: flat or binary inside a domain")
          ->check(CLI::IsMember({"flat", "binary"}));
  auto* fan_in_option =
      app.add_option("--fan-in", config.options.fan_in, "tsqr tree: R factors one node merges (default 4)")
          ->transform(signed_decimal);
  auto* backend_option =
      app.add_option("--backend", config.backend, "tile kernels: reference or lapack (default lapack)")
      ->check(CLI::IsMember({"reference", "lapack"}));
  auto* check_option = app.add_flag("--check", config.check,
                                    "always compute the residuals; exit 3 when one exceeds tolerance x sqrt(max(m, n) / n)");
  app.add_flag("--no-check", config.no_check,
               "skip the residuals (by default they are computed while m*n^2 <= --check-limit)")
      ->excludes(check_option);
  app.add_option("--check-limit", config.check_limit,
                 "largest m*n^2 whose residuals are computed without --check (default 2^34)");
  app.add_option("--tolerance", config.tolerance, "tolerance of --check (default 50), in units of n eps")
      ->transform(finite_real());
  app.add_option("--output-r", config.output_r, "write R (min(m,n) x n): .npy, else Matrix Market");
  app.add_option("--output-q", config.output_q, "write the thin Q (m x min(m,n)): .npy, else Matrix Market");
  auto* rhs_option = app.add_option("--rhs", config.rhs, "right-hand sides B (m x k): .npy, else Matrix Market");
  app.add_option("--output-x", config.output_x, "write the least-squares solution X (n x k)")
      ->needs(rhs_option);
  app.add_option("--trace", config.trace,
                 "write the tasks' timeline: Chrome trace-event JSON (Perfetto) for a .json path, else CSV");
  app.add_flag("--json", config.json, "print one JSON object instead of text");
  app.add_flag("--allow-nonfinite", config.allow_nonfinite,
               "factor inputs that contain NaN or Inf instead of rejecting them");
  // Options this stage does not honour: out of --help (an empty group), still
  // parsed so that the checks below can say why they do not apply.
  if (!stage.uses_threads) threads_option->group("");
  if (!stage.own_kernels.empty()) {
    backend_option->group("");
    if (!tile_auto) inner_block_option->group("");
  }
  if (!stage.uses_tree_domains) {
    domains_option->group("");
    inner_tree_option->group("");
  }
  if (!stage.runs_tsqr) fan_in_option->group("");
  app.set_version_flag("--version", [&stage] {
    return version_text(stage.name, stage.library_versions ? stage.library_versions() : std::string());
  });
  if (extra) extra(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    if (!report) return exit_code::ok;
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    if (!report) return exit_code::ok;
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (report)
      std::cerr << stage.name << ": " << e.what() << "\n"
                << "Run with --help for more information.\n";
    return exit_code::bad_input;
  }

  try {
    if (config.m < 1) throw InputError("--m must be >= 1, got " + std::to_string(config.m));
    if (config.n < 1) throw InputError("--n must be >= 1, got " + std::to_string(config.n));
    if (tile_auto && tile_text == "auto") {
      config.options.tile = 0;
    } else {
      config.options.tile = int(parse_integer(tile_text, "--tile", 1, std::numeric_limits<int>::max()));
    }
    if (config.options.inner_block < 0)
      throw InputError("--inner-block must be >= 0, got " + std::to_string(config.options.inner_block));
    if (config.options.threads < 0)
      throw InputError("--threads must be >= 0, got " + std::to_string(config.options.threads));
    if (!(config.tolerance > 0)) throw InputError("--tolerance must be > 0");
    if (!(config.check_limit >= 0)) throw InputError("--check-limit must be >= 0");
    if (!config.rhs.empty() && config.output_x.empty())
      throw InputError("--rhs needs --output-x to say where X goes");
    if (!stage.own_kernels.empty() && (backend_option->count() > 0 || (!tile_auto && inner_block_option->count() > 0)))
      throw InputError(stage.name + " runs its own tile kernels (" + stage.own_kernels + "): --backend" +
                       (tile_auto ? "" : " and --inner-block") + " do not apply");
    if (!stage.uses_tree_domains && (domains_option->count() > 0 || inner_tree_option->count() > 0))
      throw InputError("--domains and --inner-tree do not apply to " + stage.name +
                       " (the hierarchical tree's domains are the CPU stages' and fr4_scheduler's)");
    if (config.options.tree_domains < 1)
      throw InputError("--domains must be >= 1, got " + std::to_string(config.options.tree_domains));
    if (!stage.runs_tsqr && (config.tree == "tsqr" || fan_in_option->count() > 0))
      throw InputError("--tree tsqr and --fan-in do not apply to " + stage.name +
                       " (the tsqr tree runs on the CPU stages of one process)");
    if (config.options.fan_in < 2)
      throw InputError("--fan-in must be >= 2, got " + std::to_string(config.options.fan_in));
    config.options.backend = parse_backend(config.backend);
    config.options.tree = parse_tree(config.tree);
    config.options.inner_tree = parse_tree(config.inner_tree);
    config.tree_given = tree_option->count() > 0;
    config.options.trace = !config.trace.empty();
    if (stage.uses_threads && config.options.threads == 0)
      config.options.threads = available_cpus();
    if (!stage.uses_threads && threads_option->count() > 0 && config.options.threads != 1)
      throw InputError(stage.name + (stage.device == "cpu" ? " is serial" : " runs its tasks on the GPU") +
                       ": --threads " + std::to_string(config.options.threads) +
                       " does not apply (fr2_threaded is the threaded CPU stage)");
    if (!stage.uses_threads) config.options.threads = 1;
    if (stage.chooses_domains && domains_option->count() == 0) config.options.tree_domains = 0;
    // tsqr: one row block a worker unless --domains says otherwise.
    if (config.options.tree == Tree::tsqr && domains_option->count() == 0)
      config.options.tree_domains = config.options.threads;
  } catch (const InputError& e) {
    if (report) std::cerr << stage.name << ": error: " << e.what() << "\n";
    return exit_code::bad_input;
  }
  return -1;
}

int stage_main(int argc, char** argv, const StageDescription& stage) {
  StageConfig config;
  const int parsed = parse_stage_command_line(argc, argv, stage, config, true);
  if (parsed >= 0) return parsed;
  return run_reporting_errors(
      stage.name,
      [&] {
        // Outputs are checked before the input is read or anything is computed.
        const StageOutputs outputs = check_stage_outputs(config);
        if (config.precision == "float") return run<float>(config, outputs, stage, stage.factor_float);
        return run<double>(config, outputs, stage, stage.factor_double);
      },
      stage.uses_threads ? " (try fewer --threads)" : "");
}

}  // namespace tiledqr
