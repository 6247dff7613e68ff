#include "lcs_bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "errors.hpp"
#include "lcs_cpu.hpp"
#include "lcs_gpu.hpp"
#include "lcs_model.hpp"
#include "lcs_sequence.hpp"

namespace tiledqr::lcs {
namespace {

struct Timing {
  double median = 0, min = 0;
  int repeats = 0;
  int64_t length = -1;
};

// Runs `once` (returning {length, seconds}) warmups + repeats times; the
// median and minimum of the timed ones. Throws GpuError when the lengths
// of two runs differ (a racy method would).
template <class Once>
Timing time_runs(int warmups, int repeats, Once once) {
  std::vector<double> seconds;
  Timing t;
  for (int r = 0; r < warmups + repeats; ++r) {
    const GpuRun run = once();
    if (t.length >= 0 && run.length != t.length)
      throw GpuError("LCS length changed between runs: " + std::to_string(t.length) + " then " +
                     std::to_string(run.length));
    t.length = run.length;
    if (r >= warmups) seconds.push_back(run.seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t k = seconds.size();
  t.median = k % 2 == 1 ? seconds[k / 2] : 0.5 * (seconds[k / 2 - 1] + seconds[k / 2]);
  t.min = seconds.front();
  t.repeats = repeats;
  return t;
}

std::string number(double x) {
  std::ostringstream out;
  out.precision(6);
  out << x;
  return out.str();
}

class CsvLog {
 public:
  explicit CsvLog(const std::string& path) : out_(path) {
    if (!out_) throw InputError("cannot write '" + path + "'");
  }
  void comment(const std::string& text) {
    out_ << "# " << text << "\n";
    out_.flush();
    std::cerr << "# " << text << "\n";
  }
  // One row; tile 0 × 0 and a negative prediction are written empty.
  void row(const std::string& method, int64_t m, int64_t n, int alphabet, const TileShape& tile,
           const Timing& t, double predicted, int workers) {
    const double gcups = t.median > 0 ? double(m) * double(n) / t.median * 1e-9 : 0;
    out_ << method << ',' << m << ',' << n << ',' << alphabet << ',' << (tile.cols > 0 ? std::to_string(tile.cols) : "")
         << ',' << (tile.rows > 0 ? std::to_string(tile.rows) : "") << ',' << number(t.median) << ','
         << number(gcups) << ',' << (predicted >= 0 ? number(predicted) : "") << ',' << t.length << ','
         << number(t.min) << ',' << t.repeats << ',' << (workers > 0 ? std::to_string(workers) : "") << "\n";
    out_.flush();
    std::cerr << method << " " << m << "x" << n << " tile " << tile.rows << "x" << tile.cols << ": "
              << number(t.median) << " s, " << number(gcups) << " GCUPS, length " << t.length << "\n";
  }
  void line(const std::string& text) {
    out_ << text << "\n";
    out_.flush();
  }
  bool ok() const { return bool(out_); }

 private:
  std::ofstream out_;
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

int run_bench(const BenchConfig& config) {
  if (config.repeats < 1) throw InputError("--repeats must be >= 1");
  if (config.tile_widths.size() < 2) throw InputError("--tile-ws needs at least two widths (the model's calibration)");
  for (const int64_t s : config.sizes)
    if (s < 1 || s > max_length) throw InputError("--sizes: each size must be 1 … " + std::to_string(max_length));
  for (const int64_t w : config.tile_widths) check_fr4_tile(TileShape{config.tile_height, w});
  if (gpu_name().empty()) throw GpuError("no usable CUDA device: the benchmark times the GPU methods");

  CsvLog log(config.out);
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  log.comment("command: " + config.command);
  log.comment("machine " + std::string(host) + ", GPU " + gpu_description() + ", date " + utc_now() + ", commit " +
              config.commit);
  log.comment("random a (seed S) and b (seed S+1) over " + std::to_string(config.alphabet) +
              " symbols, S = " + std::to_string(config.seed) +
              "; CPU: steady_clock, one thread; GPU: CUDA events around the GPU work, after one warm-up; medians");
  log.comment("methods: cpu_dp = two-row DP; gpu_diagonal = one kernel per anti-diagonal of cells; fr4 = task-graph "
              "wavefront of bit-parallel tiles, tile_h rows x tile_w columns, one warp per tile; "
              "predicted_seconds = the run-time model of 'Supernode transformation on GPGPUs' calibrated on the first and last tile_w of the same size");
  log.line("method,m,n,alphabet,tile_w,tile_h,seconds_median,gcups,predicted_seconds,lcs_length,seconds_min,repeats,"
           "workers");

  bool agree = true;
  for (const int64_t size : config.sizes) {
    const std::string a = random_sequence(size, config.alphabet, config.seed);
    const std::string b = random_sequence(size, config.alphabet, config.seed + 1);
    const double cells = double(size) * double(size);
    const bool big = cells > 1e9;
    int64_t reference = -1;  // the first method's length; every other must equal it
    const auto compare = [&](const char* method, int64_t length) {
      if (reference < 0) reference = length;
      if (length != reference) {
        agree = false;
        log.comment(std::string("MISMATCH: ") + method + " gives " + std::to_string(length) + ", expected " +
                    std::to_string(reference));
      }
    };

    Timing cpu_time, diagonal_time;
    if (cells <= config.cpu_max_cells) {
      cpu_time = time_runs(0, big ? 1 : 3, [&] {
        const auto start = std::chrono::steady_clock::now();
        const int64_t length = lcs_length_two_rows(a, b);
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        return GpuRun{length, elapsed.count()};
      });
      log.row("cpu_dp", size, size, config.alphabet, TileShape{0, 0}, cpu_time, -1, 0);
      compare("cpu_dp", cpu_time.length);
    }
    if (cells <= config.diagonal_max_cells) {
      DiagonalLcs diagonal(a, b);
      diagonal_time = time_runs(1, big ? std::min(config.repeats, 3) : config.repeats, [&] { return diagonal.run(); });
      log.row("gpu_diagonal", size, size, config.alphabet, TileShape{0, 0}, diagonal_time, -1, 0);
      compare("gpu_diagonal", diagonal_time.length);
    }

    // The tile sweep: measure every width, then calibrate on the two ends.
    std::vector<Measurement> sweep;
    std::vector<Timing> timings;
    int workers = 0;
    for (const int64_t w : config.tile_widths) {
      const TileShape tile{config.tile_height, w};
      Fr4Lcs fr4(a, b, tile);
      workers = fr4.workers();
      timings.push_back(time_runs(1, config.repeats, [&] { return fr4.run(); }));
      sweep.push_back(Measurement{tile, timings.back().median});
      compare("fr4", timings.back().length);
    }
    const MachineConstants constants = calibrate({sweep.front(), sweep.back()}, size, size, workers);
    std::vector<TileShape> candidates;
    for (const Measurement& s : sweep) candidates.push_back(s.tile);
    const TileShape predicted_best = best_tile(candidates, size, size, constants, workers);
    size_t measured_best = 0, at_predicted = 0;
    for (size_t k = 0; k < sweep.size(); ++k) {
      log.row("fr4", size, size, config.alphabet, sweep[k].tile, timings[k],
              model_seconds(sweep[k].tile, size, size, constants, workers), workers);
      if (sweep[k].seconds < sweep[measured_best].seconds) measured_best = k;
      if (sweep[k].tile.cols == predicted_best.cols) at_predicted = k;
    }
    const double gap = sweep[at_predicted].seconds / sweep[measured_best].seconds - 1;
    log.comment("model " + std::to_string(size) + "^2: t_cell = " + number(constants.t_cell) + " s, t_sync = " +
                number(constants.t_sync) + " s, P = " + std::to_string(workers) + " workers; predicted best tile_w " +
                std::to_string(predicted_best.cols) + " (measured " + number(sweep[at_predicted].seconds) +
                " s), measured best tile_w " + std::to_string(sweep[measured_best].tile.cols) + " (" +
                number(sweep[measured_best].seconds) + " s): " + number(100 * gap) + "% slower, target 15%: " +
                (gap <= 0.15 ? "met" : "missed"));
    const double best = sweep[measured_best].seconds;
    if (diagonal_time.repeats > 0)
      log.comment("speed-up " + std::to_string(size) + "^2: best fr4 vs gpu_diagonal " +
                  number(diagonal_time.median / best) + "x (target 10x)");
    if (cpu_time.repeats > 0)
      log.comment("speed-up " + std::to_string(size) + "^2: best fr4 vs cpu_dp " + number(cpu_time.median / best) +
                  "x (target 100x)");
  }
  if (!log.ok()) throw InputError("error while writing '" + config.out + "'");
  return agree ? exit_code::ok : exit_code::check_failed;
}

}  // namespace tiledqr::lcs
