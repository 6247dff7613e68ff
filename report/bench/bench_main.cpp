// tiledqr_bench — the one benchmark driver. Runs any subset of
// FR1, FR2, FR3, FR4, LAPACK/OpenBLAS and cuSOLVER over a shape sweep, with
// warm-ups and repeats, and appends one CSV row per case (median, min and
// max seconds, GFLOP/s with flops = 2mn² − 2n³/3, residuals). Progress goes
// to stderr; --resume skips cases the CSV already holds, --force replaces
// it, and without either an existing CSV is an error; '#' lines record the
// build (commit taken at build time), OpenBLAS, CUDA and the GPU's clocks.
// GPU stages are skipped, with a note, where no GPU is present.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "cpu_stages.hpp"
#include "csv_log.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "program.hpp"
#include "version.hpp"
#include "presets.hpp"
#include "provenance.hpp"
#include "run_time_forecast.hpp"
#include "strict_numbers.hpp"

namespace tiledqr::bench {
namespace {

using StageFunction = std::function<BenchOutcome(const BenchCase&)>;

const std::map<std::string, StageFunction>& stages() {
  static const std::map<std::string, StageFunction> table = {
      {"fr1", bench_fr1},   {"fr2", bench_fr2}, {"fr2_reuse", bench_fr2_reuse}, {"lapack", bench_lapack},
      {"fr3", bench_fr3},   {"fr4", bench_fr4}, {"cusolver", bench_cusolver}, {"cublas", bench_cublas}};
  return table;
}

RunContext current_context() {
  RunContext run;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      run.machine = line.substr(line.find(':') + 2);
      break;
    }
  if (run.machine.empty()) run.machine = "unknown cpu";
  run.machine += " x" + std::to_string(std::thread::hardware_concurrency());
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  run.date = date;
  run.commit = build_commit();  // the source tree the binary was built from, not the current folder
  return run;
}

// FR2's stages: from scratch every run, or into the tiles of the last one.
bool fr2_stage(const std::string& stage) { return stage == "fr2" || stage == "fr2_reuse"; }

std::string describe(const BenchCase& c) {
  std::ostringstream text;
  text << c.stage << ' ' << c.m << 'x' << c.n << ' ' << c.precision;
  if (c.stage == "fr1" || fr2_stage(c.stage)) text << ' ' << c.backend << " tile " << c.tile;
  if (fr2_stage(c.stage) || c.stage == "fr4") text << ' ' << c.tree;
  if (fr2_stage(c.stage) || c.stage == "lapack") text << " threads " << c.threads;
  if (c.stage == "fr3") text << " executors/SM " << c.executors_per_sm << " weight " << c.double_task_weight;
  if (c.stage == "fr4" && c.priority_classes != 0) text << " classes " << c.priority_classes;
  if (c.batch > 0) text << " batch " << batch_text(c);
  return text.str();
}

std::string minutes(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  return text;
}

// Runs one case. A first run sizes it: if it took over a second, cold
// caches no longer matter and it counts as a timed run; otherwise it was a
// warm-up. Then up to `repeats` timed runs, fewer where `budget` seconds
// would be exceeded; the residuals come from the last run.
BenchOutcome measure(const StageFunction& stage, BenchCase c, double budget) {
  const int repeats = c.repeats;
  const int warmup = c.warmup;
  const bool check = c.check;
  c.warmup = 0;
  c.repeats = 1;
  c.check = false;
  BenchOutcome first = stage(c);
  const double probe = first.seconds.front();
  const bool probe_counts = probe > 1.0 || warmup == 0;
  BenchOutcome outcome = first;
  if (!probe_counts) outcome.seconds.clear();
  const int wanted = repeats - int(outcome.seconds.size());
  const int affordable = int(budget / std::max(probe, 1e-9)) - int(outcome.seconds.size());
  c.warmup = probe_counts ? 0 : std::max(0, warmup - 1);
  c.repeats = std::max(1, std::min(wanted, affordable));
  c.check = check;
  if (wanted > 0 && (affordable > 0 || outcome.seconds.empty())) {
    const BenchOutcome rest = stage(c);
    outcome.seconds.insert(outcome.seconds.end(), rest.seconds.begin(), rest.seconds.end());
    outcome.residual = rest.residual;
    outcome.orthogonality = rest.orthogonality;
  } else if (check) {
    c.repeats = 1;
    const BenchOutcome last = stage(c);
    outcome.seconds.insert(outcome.seconds.end(), last.seconds.begin(), last.seconds.end());
    outcome.residual = last.residual;
    outcome.orthogonality = last.orthogonality;
  }
  return outcome;
}

// Blanks the knobs a stage does not have, so rows and resume keys say only
// what was measured, and duplicate cases collapse.
void normalize(BenchCase& c) {
  const bool tiled_cpu = c.stage == "fr1" || fr2_stage(c.stage);
  if (!fr2_stage(c.stage) && c.stage != "lapack") c.threads = 1;
  if (!tiled_cpu) c.backend = "-";
  if (!tiled_cpu && c.stage != "fr4") c.inner_block = 0;  // the GPU task graph's block tiles take one
  if (c.stage == "lapack" || c.stage == "cusolver" || c.stage == "cublas") {
    c.tree = "-";
    c.tile = 0;
  }
  if (c.stage == "fr3") c.tree = "flat";
  if (c.stage != "fr4") c.priority_classes = 0;
  if (c.stage != "fr3") {
    c.executors_per_sm = 0;
    c.double_task_weight = 0;
  }
}

// The items of a comma list option; an empty list or item is refused.
std::vector<std::string> split(const std::string& text, const std::string& option) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) parts.push_back(part);
  if (!text.empty() && text.back() == ',') parts.emplace_back();
  for (const std::string& p : parts)
    if (p.empty()) throw InputError(option + ": empty item in '" + text + "'");
  if (parts.empty()) throw InputError(option + ": empty list");
  return parts;
}

std::vector<int> counts(const std::string& text, const std::string& option) {
  std::vector<int> values;
  for (const std::string& item : split(text, option))
    values.push_back(int(parse_integer(item, option, 1, std::numeric_limits<int>::max())));
  return values;
}

// "MxN" with both decimal and >= 1.
std::pair<int64_t, int64_t> parse_shape(const std::string& text) {
  const size_t x = text.find('x');
  if (x == std::string::npos) throw InputError("--shapes: bad shape '" + text + "' (expected MxN)");
  const int64_t most = std::numeric_limits<int64_t>::max();
  return {parse_integer(text.substr(0, x), "--shapes: rows of '" + text + "'", 1, most),
          parse_integer(text.substr(x + 1), "--shapes: columns of '" + text + "'", 1, most)};
}

// The CSV log. Rows are appended as cases finish, so a stopped run keeps
// them for --resume; a new log first replaces the file whole with just its
// header (a device or FIFO gets the header in place). Every write is checked.
OutputFile open_log(const OutputTarget& target, const ResumeState& kept, const std::string& header) {
  if (!kept.exists && target.kind == OutputKind::replace) {
    OutputFile fresh(target);
    fresh.write(header);
    fresh.commit();
  }
  OutputFile log(target, OutputFile::Mode::append);
  if (kept.needs_newline) log.write("\n");
  if (kept.exists ? !kept.has_header : target.kind == OutputKind::in_place) log.write(header);
  log.flush();
  return log;
}

}  // namespace

int bench_main(int argc, char** argv) {
  CLI::App app{"tiledqr benchmark driver: one CSV row per measured case", "tiledqr_bench"};
  std::string preset, stage_list, shape_list, out = "bench.csv", precision_list = "double";
  std::string backend_list = "lapack", tree_list = "flat", thread_list = "1", tile_list = "32";
  std::string executor_list = "1", weight_list = "1";
  int warmup = 1, repeats = 10, inner_block = 0, priority_classes = 0;
  double budget = 20, case_limit = 0, check_limit = 0;
  bool resume = false, force = false, no_check = false, list_only = false;
  std::string commit;
  std::string preset_help = "a named sweep:";
  for (const std::string& name : preset_names()) preset_help += " " + name;
  app.add_option("--preset", preset, preset_help);
  bool quick = false;
  app.add_flag("--quick", quick, "the quick preset: every stage and both peers in a few minutes");
  app.add_option("--stages", stage_list, "comma list of fr1,fr2,fr2_reuse (fr2 factoring into the tiles of its previous run),fr3,fr4,lapack,cusolver; with --batch: fr4, cusolver (one call a matrix), cublas (cuBLAS's batched geqrf)");
  int64_t batch = 0;
  bool mixed = false;
  app.add_option("--batch", batch,
                 "a stack of this many matrices of each shape in each case (fr4: one task graph; cusolver: a loop)")
      ->transform(decimal_integer(false));
  app.add_flag("--mixed", mixed, "with --batch: squares of sizes drawn from 16 … m (m the shape's rows, n = m)");
  app.add_option("--shapes", shape_list, "comma list of MxN, e.g. 1024x1024,262144x64");
  app.add_option("--precisions", precision_list, "double, float or both (comma list)");
  app.add_option("--backends", backend_list, "kernels of fr1 and fr2: lapack, reference");
  app.add_option("--trees", tree_list,
                 "trees of fr1, fr2 and fr4: flat, binary, greedy, hierarchical; tsqr (fr1, fr2: one row block a "
                 "thread)");
  app.add_option("--threads", thread_list, "thread counts of fr2 and lapack (comma list)");
  app.add_option("--tiles", tile_list, "tile sizes (comma list; auto: fr4 chooses)");
  app.add_option("--executors", executor_list, "executors per SM of fr3 (comma list)");
  app.add_option("--weights", weight_list, "round-robin weights of tsqrt/tsmqr in fr3 (comma list)");
  const CLI::Validator count = decimal_integer(false);
  app.add_option("--inner-block", inner_block, "inner block of the lapack backend and of fr4's block tiles (0: min(tile, 32))")->transform(count);
  app.add_option("--priority-classes", priority_classes,
                 "fr4: rank ready tasks into 1 to 4 classes by chain of time (0: the library's choice; the CSV "
                 "keeps it in its command line only)")
      ->check(CLI::Range(0, 4));
  app.add_option("--warmup", warmup, "warm-up runs per case (default 1)")->transform(count);
  app.add_option("--repeats", repeats, "timed runs per case at most (default 10)")->transform(count);
  app.add_option("--budget", budget, "seconds of timed runs per case at most (default 20)")
      ->transform(finite_real());
  app.add_option("--case-limit", case_limit,
                 "skip a case when one run is predicted to take longer than this many seconds, from the "
                 "last measured case of its family (stage, knobs, square or same m) scaled by flops; 0: never")
      ->transform(finite_real())
      ->check(CLI::NonNegativeNumber);
  app.add_option("--check-limit", check_limit,
                 "compute residuals only where m·n² is at most this (the host check forms Q: O(m·n²)); 0: "
                 "the preset's or --no-check's choice")
      ->transform(finite_real())
      ->check(CLI::NonNegativeNumber);
  app.add_option("--out", out, "CSV file to write (default bench.csv)");
  auto* resume_option = app.add_flag("--resume", resume, "keep the CSV and skip the cases it already holds");
  app.add_flag("--force", force, "replace an existing CSV (without it, or --resume, an existing CSV is an error)")
      ->excludes(resume_option);
  app.add_flag("--no-check", no_check, "skip the residual computation");
  app.add_flag("--list", list_only, "print the cases and exit");
  app.add_option("--commit", commit, "commit to record (default: the one the binary was built from)");
  app.set_version_flag("--version", [] { return version_text("tiledqr_bench", gpu_provenance()); });
  if (const int code = parse_command_line(app, argc, argv, "tiledqr_bench"); code >= 0) return code;

  try {
    const int hardware_threads = int(std::max(1u, std::thread::hardware_concurrency()));
    if (quick) preset = "quick";
    std::vector<BenchCase> cases;
    if (!preset.empty()) {
      cases = preset_cases(preset, hardware_threads);
    } else {
      if (stage_list.empty() || shape_list.empty())
        throw InputError("give --preset, or --stages and --shapes");
      const std::vector<int> threads = counts(thread_list, "--threads"), executors = counts(executor_list, "--executors");
      std::vector<int> tiles;  // "auto" is 0: the GPU task-graph stage chooses
      for (const std::string& tile : split(tile_list, "--tiles"))
        tiles.push_back(tile == "auto" ? 0 : int(parse_integer(tile, "--tiles", 1, std::numeric_limits<int>::max())));
      std::vector<double> weights;
      for (const std::string& weight : split(weight_list, "--weights"))
        weights.push_back(parse_real(weight, "--weights", 0, true));
      const std::vector<std::string> precisions = split(precision_list, "--precisions"),
                                     backends = split(backend_list, "--backends"), trees = split(tree_list, "--trees");
      for (const std::string& precision : precisions)
        if (precision != "double" && precision != "float")
          throw InputError("--precisions: unknown precision '" + precision + "' (expected double or float)");
      for (const std::string& backend : backends) parse_backend(backend);
      for (const std::string& tree : trees) parse_tree(tree);
      for (const std::string& stage : split(stage_list, "--stages")) {
        if (!stages().count(stage)) throw InputError("unknown stage '" + stage + "'");
        for (const std::string& shape : split(shape_list, "--shapes")) {
          BenchCase c;
          c.stage = stage;
          std::tie(c.m, c.n) = parse_shape(shape);
          for (const std::string& precision : precisions)
            for (const std::string& backend : backends)
              for (const std::string& tree : trees)
                for (const int thread_count : threads)
                  for (const int tile : tiles)
                    for (const int executor_count : executors)
                      for (const double weight : weights) {
                        BenchCase run = with_tiling(c, tile, inner_block, tree, thread_count);
                        run.precision = precision;
                        run.backend = backend;
                        run.executors_per_sm = executor_count;
                        run.double_task_weight = weight;
                        run.priority_classes = priority_classes;
                        cases.push_back(run);
                      }
        }
      }
    }
    if (mixed && batch == 0) throw InputError("--mixed takes --batch");
    std::set<std::string> seen;
    std::vector<BenchCase> unique_cases;
    for (BenchCase c : cases) {
      if (batch > 0) {
        if (c.stage != "fr4" && c.stage != "cusolver" && c.stage != "cublas")
          throw InputError("--batch: stage " + c.stage + " factors one matrix (batches: fr4, cusolver, cublas)");
        if (mixed && c.m != c.n) throw InputError("--mixed: the shapes give the largest square, MxM");
        if (mixed && c.stage == "cublas") throw InputError("--mixed: cuBLAS's batched geqrf takes one shape");
        c.batch = batch;
        c.mixed = mixed;
      } else if (c.stage == "cublas") {
        throw InputError("stage cublas (cuBLAS's batched geqrf) needs --batch");
      }
      normalize(c);
      c.warmup = warmup;
      c.repeats = std::max(1, repeats);
      c.check = c.check && !no_check &&
                (check_limit <= 0 || double(c.m) * double(c.n) * double(c.n) <= check_limit);
      if (seen.insert(case_key(c)).second) unique_cases.push_back(c);
    }
    cases = unique_cases;
    if (list_only) {
      for (const BenchCase& c : cases) std::cout << describe(c) << "\n";
      return 0;
    }

    // The CSV is checked before any case runs; --resume reads what it holds.
    refuse_overwrite(out, resume, force);
    const OutputTarget target = check_output_path("--out", out);
    const ResumeState kept = resume && target.kind == OutputKind::replace ? read_for_resume(out) : ResumeState{};
    const std::set<std::string>& done = kept.done;
    const std::string header = "# " + command_line("tiledqr_bench", argc, argv) + "\n" +
                               provenance_line(gpu_provenance()) + "\n" + csv_header() + "\n";
    OutputFile csv = open_log(target, kept, header);
    if (kept.exists && kept.has_header) {
      csv.write(provenance_line(gpu_provenance()) + " (resumed)\n");
      csv.flush();
    }
    RunContext run = current_context();
    if (!commit.empty()) run.commit = commit;
    const auto start = std::chrono::steady_clock::now();
    size_t finished = 0, failed = 0, skipped = 0;
    std::string no_device_note;
    RunTimeForecast forecast;
    std::vector<std::string> too_slow;
    for (size_t index = 0; index < cases.size(); ++index) {
      const BenchCase& c = cases[index];
      const std::string what = describe(c);
      if (done.count(case_key(c))) {
        std::cerr << "[" << index + 1 << "/" << cases.size() << "] " << what << ": already in " << out << "\n";
        continue;
      }
      if (!no_device_note.empty() && (c.stage == "fr3" || c.stage == "fr4" || c.stage == "cusolver" || c.stage == "cublas")) {
        ++skipped;
        continue;
      }
      const double predicted = forecast.predict(c);
      if (case_limit > 0 && predicted > case_limit) {
        ++skipped;
        char note[64];
        std::snprintf(note, sizeof note, " (predicted %.3g s)", predicted);
        too_slow.push_back(what + note);
        std::cerr << "[" << index + 1 << "/" << cases.size() << "] " << what << ": skipped, one run predicted "
                  << predicted << " s > --case-limit " << case_limit << "\n";
        continue;
      }
      BenchOutcome outcome;
      try {
        outcome = measure(stages().at(c.stage), c, budget);
      } catch (const NoDevice& e) {
        no_device_note = e.why;
        ++skipped;
        std::cerr << "[" << index + 1 << "/" << cases.size() << "] " << what << ": skipped, " << e.why
                  << " (all GPU cases will be skipped)\n";
        continue;
      } catch (const std::exception& e) {
        ++failed;
        std::cerr << "[" << index + 1 << "/" << cases.size() << "] " << what << ": FAILED: " << e.what() << "\n";
        continue;
      }
      // Outside the try: a failed write ends the run (exit 2), it is not a failed case.
      csv.write(csv_row(run, c, outcome) + "\n");
      csv.flush();
      const Summary s = summarize(outcome.seconds);
      forecast.record(c, s.median);
      ++finished;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double left = elapsed / double(index + 1) * double(cases.size() - index - 1);
      char line[256];
      std::snprintf(line, sizeof line, "[%zu/%zu] %s: median %.4g s over %zu runs, residual %.3g; %s elapsed, ~%s left\n",
                    index + 1, cases.size(), what.c_str(), s.median, outcome.seconds.size(),
                    outcome.residual, minutes(elapsed).c_str(), minutes(left).c_str());
      std::cerr << line;
    }
    for (const std::string& slow : too_slow) {
      std::ostringstream note;
      note << "# skipped by --case-limit " << case_limit << ": " << slow << "\n";
      csv.write(note.str());
    }
    csv.finish();
    std::cerr << "tiledqr_bench: " << finished << " measured, " << skipped << " skipped, " << failed
              << " failed; wrote " << out << "\n";
    return failed ? 1 : 0;
  } catch (const InputError& e) {
    std::cerr << "tiledqr_bench: error: " << e.what() << "\n";
    return exit_code::bad_input;
  }
}

}  // namespace tiledqr::bench

int main(int argc, char** argv) { return tiledqr::bench::bench_main(argc, argv); }
