// tiledqr_mpi — the tiled QR over MPI ranks: the common DAG on StarPU-MPI,
// tiles 2-D block-cyclic over a P×Q grid, with the common command line.
// Every rank takes the same decisions from the same arguments; an error on
// any rank ends every rank with the same exit code and one message.
#include <CLI/CLI.hpp>
#include <mpi.h>
#include <starpu_mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "checks.hpp"
#include "errors.hpp"
#include "matrix_market.hpp"
#include "program.hpp"
#include "scalapack_peer.hpp"
#include "stage_main.hpp"
#include "starpu_qr.hpp"
#include "starpu_tsqr.hpp"

namespace tiledqr::distributed {
namespace {

const char* const program = "tiledqr_mpi";

struct MpiConfig {
  std::string grid;                      // "PxQ"; empty: default_grid
  bool peer = false;                     // also time ScaLAPACK p?geqrf
  std::vector<int> peer_blocks{32, 64, 128};
  bool comm_check = false;               // compare StarPU-MPI's byte counts with the model
  std::string simulate;                  // "LATENCY_US,GBYTES_PER_S": simulate a network
  std::string simulate_grid;             // the simulated grid (default: this run's)
  int simulate_threads = 0;              // workers per simulated rank (default: this run's)
  int64_t simulate_m = 0, simulate_n = 0;  // the simulated matrix (default: this run's)
  bool threads_given = false;
  bool domains_given = false;
};

// What one rank's step ended with: code 0 and no message when it went well.
struct Outcome {
  int code = exit_code::ok;
  std::string message;
};

template <typename Step>
Outcome attempt(Step step) {
  try {
    step();
  } catch (const InputError& e) {
    return {exit_code::bad_input, e.what()};
  } catch (const std::bad_alloc&) {
    return {exit_code::bad_input, "out of host memory"};
  } catch (const std::exception& e) {
    return {exit_code::bad_input, e.what()};
  }
  return {};
}

// Collective: every rank learns the outcome of the lowest failing rank,
// which alone prints its message. Returns that outcome's exit code.
int agree(const Outcome& mine, int rank, int ranks) {
  const int limit = 16;  // exit codes are below this
  int key = mine.code == exit_code::ok ? ranks * limit : rank * limit + mine.code;
  MPI_Allreduce(MPI_IN_PLACE, &key, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (key == ranks * limit) return exit_code::ok;
  if (key / limit == rank)
    std::cerr << program << ": " << (mine.code == exit_code::check_failed ? "" : "error: ")
              << mine.message << std::endl;
  return key % limit;
}

// Ranks on this node, for the default worker count.
int ranks_on_node() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int count = 1;
  MPI_Comm_size(node, &count);
  MPI_Comm_free(&node);
  return count;
}

// Rank 0 receives every rank's task records.
std::vector<TaskRecord> gather_trace(const std::vector<TaskRecord>& mine, int rank, int ranks) {
  const int bytes = int(mine.size() * sizeof(TaskRecord));
  std::vector<int> counts(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks) + 1, 0);
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; r < ranks; ++r) offsets[size_t(r) + 1] = offsets[size_t(r)] + counts[size_t(r)];
  std::vector<TaskRecord> all(rank == 0 ? size_t(offsets.back()) / sizeof(TaskRecord) : 0);
  MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  return all;
}

// StarPU-MPI's bytes sent by every rank to every rank (from · ranks + to),
// on rank 0; needs STARPU_COMM_STATS=1 at initialisation.
std::vector<int64_t> measured_bytes(int rank, int ranks) {
  std::vector<size_t> mine(size_t(ranks), 0);
  starpu_mpi_comm_amounts_retrieve(mine.data());
  std::vector<long long> sent(mine.begin(), mine.end());
  std::vector<long long> all(rank == 0 ? size_t(ranks) * ranks : 0);
  MPI_Gather(sent.data(), ranks, MPI_LONG_LONG, all.data(), ranks, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return std::vector<int64_t>(all.begin(), all.end());
}

// Everything rank 0 reports.
struct Report {
  int64_t m = 0, n = 0;
  double seconds = 0;
  std::optional<Residuals> residuals;
  MessageCount model;
  std::vector<int64_t> measured;  // empty without --comm-check
  std::optional<PeerTiming> peer;
  std::optional<double> simulated_seconds;
  std::string simulated;  // what was simulated, for the text output
};

// The run's mean time per task kind (from its trace; the reflector copies,
// a b² copy next to b³ kernels, count as free) and the simulated time of
// the same factorisation on `mpi.simulate_grid` over a network.
double simulate_network(const MpiConfig& mpi, const std::vector<TaskRecord>& trace, int64_t m, int64_t n,
                        Options options, const ProcessGrid& run_grid, int threads, size_t element_bytes) {
  const size_t comma = mpi.simulate.find(',');
  if (comma == std::string::npos) throw InputError("--simulate wants LATENCY_US,GBYTES_PER_S");
  Network network;
  network.latency_s = std::stod(mpi.simulate.substr(0, comma)) * 1e-6;
  network.bytes_per_s = std::stod(mpi.simulate.substr(comma + 1)) * 1e9;
  if (!(network.latency_s >= 0) || !(network.bytes_per_s > 0))
    throw InputError("--simulate: latency must be >= 0 and bandwidth > 0");
  double seconds[7] = {0, 0, 0, 0, 0, 0, 0};
  int64_t counts[7] = {0, 0, 0, 0, 0, 0, 0};
  for (const TaskRecord& r : trace) {
    seconds[int(r.task.kind)] += double(r.end_ns - r.start_ns) * 1e-9;
    ++counts[int(r.task.kind)];
  }
  for (int k = 0; k < 6; ++k) seconds[k] = counts[k] ? seconds[k] / double(counts[k]) : 0;
  ProcessGrid grid = run_grid;
  if (!mpi.simulate_grid.empty()) grid = parse_grid(mpi.simulate_grid, 0);
  if (options.tree == Tree::hierarchical && options.tree_domains == run_grid.rows) options.tree_domains = grid.rows;
  const int32_t p = tile_count(mpi.simulate_m > 0 ? mpi.simulate_m : m, options.tile);
  const int32_t q = tile_count(mpi.simulate_n > 0 ? mpi.simulate_n : n, options.tile);
  const Dag dag = build_qr_dag(p, q, options.tree, options.tree_domains, options.inner_tree);
  const int64_t b = options.tile;
  return simulate_plan(plan_tasks(dag, q, grid), grid, mpi.simulate_threads > 0 ? mpi.simulate_threads : threads,
                       seconds, network, b * b * int64_t(element_bytes),
                       int64_t(options.effective_inner_block()) * b * int64_t(element_bytes));
}

template <typename T>
void print_report(const StageConfig& config, const Options& options, const ProcessGrid& grid,
                  int threads, const Report& r) {
  const char* precision = sizeof(T) == 8 ? "double" : "float";
  const double gflops = qr_flops(r.m, r.n) / r.seconds * 1e-9;
  int64_t model_bytes = 0, measured_bytes = 0;
  for (const int64_t b : r.model.bytes_sent) model_bytes += b;
  for (const int64_t b : r.measured) measured_bytes += b;
  const bool match = !r.measured.empty() && r.measured == r.model.bytes_sent;
  const std::string grid_text = std::to_string(grid.rows) + "x" + std::to_string(grid.cols);
  if (config.json) {
    std::cout << "{\"stage\":\"" << program << "\",\"m\":" << r.m << ",\"n\":" << r.n
              << ",\"tile\":" << options.tile << ",\"inner_block\":" << options.effective_inner_block()
              << ",\"precision\":\"" << precision << "\",\"backend\":\"lapack\",\"tree\":\""
              << tree_name(options.tree) << "\",\"inner_tree\":\"" << tree_name(options.inner_tree)
              << "\",\"domains\":" << options.tree_domains << ",\"grid\":\"" << grid_text
              << "\",\"ranks\":" << grid.ranks() << ",\"threads\":" << threads
              << ",\"seconds\":" << json_number(r.seconds) << ",\"gflops\":" << json_number(gflops)
              << ",\"residual\":" << (r.residuals ? json_number(r.residuals->residual) : "null")
              << ",\"orthogonality\":" << (r.residuals ? json_number(r.residuals->orthogonality) : "null")
              << ",\"tile_messages_model\":" << r.model.messages << ",\"bytes_model\":" << model_bytes
              << ",\"bytes_measured\":" << (r.measured.empty() ? "null" : std::to_string(measured_bytes))
              << ",\"comm_model_match\":" << (r.measured.empty() ? "null" : match ? "true" : "false")
              << ",\"peer\":" << (r.peer ? "\"pdgeqrf\"" : "null")
              << ",\"peer_block\":" << (r.peer ? std::to_string(r.peer->block) : "null")
              << ",\"peer_seconds\":" << (r.peer ? json_number(r.peer->seconds) : "null")
              << ",\"peer_norm_error\":" << (r.peer ? json_number(r.peer->norm_error) : "null")
              << ",\"simulated\":\"" << r.simulated << "\",\"simulated_seconds\":"
              << (r.simulated_seconds ? json_number(*r.simulated_seconds) : "null") << "}"
              << std::endl;
    return;
  }
  std::printf("%s: %lld x %lld %s, tile %d, inner block %d, tree %s (inner %s, %d domains), grid %s, "
              "%d threads per rank\n",
              program, static_cast<long long>(r.m), static_cast<long long>(r.n), precision,
              options.tile, options.effective_inner_block(), tree_name(options.tree),
              tree_name(options.inner_tree), options.tree_domains, grid_text.c_str(), threads);
  std::printf("  time           %.6f s\n", r.seconds);
  std::printf("  GFLOP/s        %.3f\n", gflops);
  if (r.residuals) {
    std::printf("  residual       %.4g   (|A-QR|_F / (|A|_F n eps))\n", r.residuals->residual);
    std::printf("  orthogonality  %.4g   (|I-Q'Q|_F / (n eps))\n", r.residuals->orthogonality);
  }
  std::printf("  tile messages  %lld (model), %lld bytes\n", static_cast<long long>(r.model.messages),
              static_cast<long long>(model_bytes));
  if (!r.measured.empty())
    std::printf("  measured bytes %lld (StarPU-MPI), %s the model\n", static_cast<long long>(measured_bytes),
                match ? "equal to" : "DIFFERENT from");
  if (r.peer)
    std::printf("  pdgeqrf        %.6f s (block %d), speed-up %.3f\n", r.peer->seconds, r.peer->block,
                r.peer->seconds / r.seconds);
  if (r.simulated_seconds)
    std::printf("  simulated      %.6f s (%s)\n", *r.simulated_seconds, r.simulated.c_str());
}

template <typename T>
int run(int& argc, char**& argv, const StageConfig& config, const MpiConfig& mpi, int rank, int ranks) {
  ProcessGrid grid;
  Options options = config.options;
  DenseMatrix<T> input;
  int64_t m = config.m, n = config.n;
  // StarPU workers: --threads, else the rank's share of the node's cores,
  // one fewer from four on, for StarPU-MPI's progress thread, which polls
  // on a core of its own (16 cores, 8192², 2x2 grid, tile 384: three
  // workers a rank 2.46 s, four 3.13-3.43 s). ScaLAPACK's peer takes the
  // whole share as BLAS threads.
  const int share = std::max(1, int(std::thread::hardware_concurrency()) / ranks_on_node());
  const int threads = mpi.threads_given ? options.threads : share >= 4 ? share - 1 : share;
  const int peer_threads = mpi.threads_given ? options.threads : share;
  int code = agree(attempt([&] {
    grid = mpi.grid.empty() ? default_grid(ranks) : parse_grid(mpi.grid, ranks);
    if (options.backend != Backend::lapack)
      throw InputError("tiledqr_mpi runs the lapack tile kernels only; --backend reference is not available");
    if (!config.rhs.empty()) throw InputError("--rhs is not available in tiledqr_mpi");
    // The hierarchical tree over the grid's process rows is the default:
    // with one process row it is the flat tree.
    if (!config.tree_given) options.tree = Tree::hierarchical;
    if (options.tree == Tree::hierarchical && options.tree_domains == 1) options.tree_domains = grid.rows;
    if (!config.input.empty()) {
      input = to_precision<T>(read_matrix_market(config.input), config.input);
      m = input.rows;
      n = input.cols;
      if (m < 1 || n < 1)
        throw InputError(config.input + ": matrix is " + std::to_string(m) + "x" + std::to_string(n) +
                         "; need at least 1x1");
    }
    // A tall matrix (m >= 8n) on several workers takes the tsqr tree, as
    // on one process: its row blocks dealt out to the ranks in order.
    if (!config.tree_given && m >= 8 * n && int64_t(ranks) * threads > 1) options.tree = Tree::tsqr;
    if (options.tree == Tree::tsqr) {
      if (!mpi.grid.empty() && grid.cols != 1)
        throw InputError("--tree tsqr deals row blocks out to the ranks: the grid must be Px1, got " + mpi.grid);
      if (!mpi.simulate.empty())
        throw InputError("--simulate replays the tile trees' plans; it does not apply to --tree tsqr");
      grid = parse_grid(std::to_string(ranks) + "x1", ranks);  // ScaLAPACK's too, with --peer
      if (!mpi.domains_given) options.tree_domains = ranks * threads;
    }
  }), rank, ranks);
  if (code != exit_code::ok) return code;

  setenv("STARPU_SILENT", "1", 0);
  setenv("STARPU_WORKERS_NOBIND", "1", 0);  // ranks share the node's cores
  setenv("STARPU_MPI_NOBIND", "1", 0);
  setenv("STARPU_MPI_COOP_SENDS", "0", 0);  // every datum comes from its owner (the model)
  if (mpi.comm_check) setenv("STARPU_COMM_STATS", "1", 1);
  starpu_conf conf;
  starpu_conf_init(&conf);
  conf.ncpus = threads;
  conf.ncuda = 0;
  conf.nopencl = 0;
  conf.sched_policy_name = "prio";
  code = agree(attempt([&] {
    if (starpu_mpi_init_conf(&argc, &argv, 0, MPI_COMM_WORLD, &conf) != 0)
      throw std::runtime_error("StarPU-MPI did not start");
  }), rank, ranks);
  if (code != exit_code::ok) return code;

  Report report;
  report.m = m;
  report.n = n;
  Factorization<T> f;
  std::vector<TaskRecord> trace;
  if (options.tree == Tree::tsqr) {
    std::optional<DistributedTsqr<T>> qr;
    DenseMatrix<T> whole;  // A on rank 0, for --check
    const EntrySource source = config.input.empty() ? random_entries(m, n, config.seed) : matrix_entries(input);
    code = agree(attempt([&] {
      qr.emplace(m, n, options, rank, ranks);
      options.tree_domains = qr->blocks();
      if (config.check && rank == 0) whole = DenseMatrix<T>(m, n);
      source([](int64_t) { return true; }, [&](int64_t r, int64_t c, double x) {
        if (!config.allow_nonfinite && !std::isfinite(double(T(x))) && qr->holds_row(r))
          throw InputError(config.input + " has a non-finite entry " + std::to_string(x) + " at (" +
                           std::to_string(r + 1) + ", " + std::to_string(c + 1) +
                           "); use --allow-nonfinite to factor it anyway");
        qr->set(r, c, T(x));
        if (!whole.data.empty()) whole(r, c) = T(x);
      });
    }), rank, ranks);
    if (code == exit_code::ok) {
      report.seconds = qr->factor(!config.trace.empty());
      if (mpi.comm_check) report.measured = measured_bytes(rank, ranks);
      if (rank == 0) report.model = qr->model_messages();
      trace = gather_trace(qr->trace(), rank, ranks);
      code = agree(attempt([&] {
        if (config.check || !config.output_q.empty() || !config.output_r.empty()) f = qr->gather();
        if (config.check && rank == 0) report.residuals = check_factorization(whole.data.data(), m, n, m, f);
      }), rank, ranks);
    }
  } else {
    std::optional<DistributedQr<T>> qr;
    const EntrySource source = config.input.empty() ? random_entries(m, n, config.seed) : matrix_entries(input);
    code = agree(attempt([&] {
      qr.emplace(m, n, options, grid, rank);
      const int64_t b = options.tile;
      source([&](int64_t c) { return qr->holds_column(c); },
             [&](int64_t r, int64_t c, double x) {
               if (!config.allow_nonfinite && !std::isfinite(double(T(x))) && qr->owns(int32_t(r / b), int32_t(c / b)))
                 throw InputError(config.input + " has a non-finite entry " + std::to_string(x) + " at (" +
                                  std::to_string(r + 1) + ", " + std::to_string(c + 1) +
                                  "); use --allow-nonfinite to factor it anyway");
               qr->set(r, c, T(x));
             });
    }), rank, ranks);
    if (code == exit_code::ok) {
      // The check needs this rank's tiles of A, and nothing from the others.
      const std::vector<T> input_tiles = config.check ? qr->local_tiles() : std::vector<T>();
      report.seconds = qr->factor(!config.trace.empty() || !mpi.simulate.empty());
      if (mpi.comm_check) report.measured = measured_bytes(rank, ranks);
      if (rank == 0) report.model = qr->model_messages();
      if (!config.output_q.empty() || !config.output_r.empty()) f = qr->gather(!config.output_q.empty());
      trace = gather_trace(qr->trace(), rank, ranks);
      if (config.check) report.residuals = qr->check(input_tiles);
    }
  }
  starpu_mpi_shutdown();
  if (code != exit_code::ok) return code;
  if (mpi.peer) {
    code = agree(attempt([&] {
      const EntrySource source = config.input.empty() ? random_entries(m, n, config.seed) : matrix_entries(input);
      report.peer = time_scalapack_geqrf<T>(m, n, grid, mpi.peer_blocks, peer_threads, source);
    }), rank, ranks);
    if (code != exit_code::ok) return code;
  }

  Outcome outcome, failed_check;
  if (rank == 0) outcome = attempt([&] {
    if (!mpi.simulate.empty()) {
      report.simulated_seconds = simulate_network(mpi, trace, m, n, options, grid, threads, sizeof(T));
      const std::string sim_grid =
          mpi.simulate_grid.empty() ? std::to_string(grid.rows) + "x" + std::to_string(grid.cols) : mpi.simulate_grid;
      report.simulated = std::to_string(mpi.simulate_m > 0 ? mpi.simulate_m : m) + "x" +
                         std::to_string(mpi.simulate_n > 0 ? mpi.simulate_n : n) + ", " +
                         std::to_string(mpi.simulate_threads > 0 ? mpi.simulate_threads : threads) +
                         " workers per rank, grid " + sim_grid +
                         ", network " + mpi.simulate + " (us, GB/s)";
    }
    print_report<T>(config, options, grid, threads, report);
    // Like every stage: a failed check writes no output.
    if (config.check && !(report.residuals->residual < config.tolerance &&
                          report.residuals->orthogonality < config.tolerance)) {
      std::ostringstream text;
      text << "check failed: residual " << report.residuals->residual << ", orthogonality "
           << report.residuals->orthogonality << " (tolerance " << config.tolerance << ")";
      failed_check = {exit_code::check_failed, text.str()};
      return;
    }
    write_factors(config, f);
    if (!config.trace.empty()) {
      StageDescription traced;  // names the tracks of a .json trace
      traced.name = program;
      traced.device = "cpu";
      write_trace(config.trace, trace, traced);
    }
  });
  if (outcome.code == exit_code::ok) outcome = failed_check;
  return agree(outcome, rank, ranks);
}

int main_on_ranks(int argc, char** argv, int rank, int ranks) {
  StageDescription stage;
  stage.name = program;
  stage.summary = "Tiled QR factorisation over MPI ranks on StarPU-MPI (tiles 2-D block-cyclic over a PxQ grid)";
  stage.device = "cpu";
  stage.uses_threads = true;
  stage.runs_tsqr = true;
  StageConfig config;
  MpiConfig mpi;
  const int parsed = parse_stage_command_line(argc, argv, stage, config, rank == 0, [&mpi](CLI::App& app) {
    app.add_option("--grid", mpi.grid, "process grid PxQ, P*Q = ranks (default: the most square, P >= Q)");
    app.add_flag("--peer", mpi.peer, "also time ScaLAPACK p?geqrf on the same grid");
    app.add_option("--peer-blocks", mpi.peer_blocks, "block sizes tried for p?geqrf (default 32,64,128)")
        ->delimiter(',');
    app.add_flag("--comm-check", mpi.comm_check,
                 "count StarPU-MPI's bytes sent and compare them with the block-cyclic model");
    app.add_option("--simulate", mpi.simulate,
                   "with --trace: simulate this factorisation over a network LATENCY_US,GBYTES_PER_S from the "
                   "measured mean task times");
    app.add_option("--simulate-grid", mpi.simulate_grid, "the simulated grid PxQ (default: this run's)");
    app.add_option("--simulate-threads", mpi.simulate_threads, "workers per simulated rank (default: this run's)");
    app.add_option("--simulate-m", mpi.simulate_m, "rows of the simulated matrix (default: this run's)");
    app.add_option("--simulate-n", mpi.simulate_n, "columns of the simulated matrix (default: this run's)");
    app.callback([&app, &mpi] {
      mpi.threads_given = app.count("--threads") > 0;
      mpi.domains_given = app.count("--domains") > 0;
    });
  });
  if (parsed >= 0) return parsed;
  for (const int nb : mpi.peer_blocks)
    if (nb < 1) {
      if (rank == 0) std::cerr << program << ": error: --peer-blocks must be >= 1\n";
      return exit_code::bad_input;
    }
  if (config.precision == "float") return run<float>(argc, argv, config, mpi, rank, ranks);
  return run<double>(argc, argv, config, mpi, rank, ranks);
}

}  // namespace
}  // namespace tiledqr::distributed

int main(int argc, char** argv) {
  // StarPU-MPI's progress thread and this thread (its barriers, and the
  // collectives below) both call MPI.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int code = tiledqr::distributed::main_on_ranks(argc, argv, rank, ranks);
  MPI_Finalize();
  return code;
}
