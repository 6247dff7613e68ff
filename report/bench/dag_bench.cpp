// tiledqr_dag_bench — time and peak host memory of building the tiled QR
// DAG of an n×n matrix: the explicit builder (build_qr_dag: per-task lists
// and edge inference) against the closed form's arrays (predecessor counts,
// critical-path priorities and roots; then the same plus the successor CSR),
// and FR4's preparation of its GPU task graph from the closed form (host
// side: the arrays and every chunk of the device layout, checked; no copy
// to a device).
// Each build runs in a child process of its own so its peak resident set
// (wait4's ru_maxrss) is its own; the builder is skipped where its memory,
// extrapolated from the smaller sizes, would not fit beside what the machine
// has free. Writes one CSV row per (size, tree, method) with the builder's
// time and memory as the same-run peer ratio; wall and CPU time both, since
// on a shared machine the wall time also counts the other processes.
//
//   tiledqr_dag_bench [--sizes 4096,8192,16384] [--tile 32] [--trees flat,binary,greedy]
//                     [--methods build_qr_dag,closed_form_arrays,closed_form_arrays+csr,fr4_prepare]
//                     [--repeats 3] [--csv report/data/dag_build.csv] [--memory-fraction 0.6]
#include <CLI/CLI.hpp>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "dag.hpp"
#include "dag_bench_fr4.hpp"
#include "errors.hpp"
#include "program.hpp"
#include "qr_dag_arrays.hpp"
#include "size_check.hpp"

namespace {

using namespace tiledqr;

// What a child reports back through its pipe.
struct ChildReport {
  double seconds = 0;
  int64_t edges = 0;
  int32_t critical_path = -1;  // -1: not computed by this method
  char error[240] = {};
};

struct Measure {
  bool ok = false;
  double seconds = 0;
  double cpu_seconds = 0;  // the child's user + system time, whole life
  double peak_mib = 0;
  int64_t edges = 0;
  int32_t critical_path = -1;
  std::string error;
};

// Runs `build` (returns the edge count and critical path) in a forked child
// and measures its wall time there and its peak resident set here.
Measure in_child(const std::function<ChildReport()>& build) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    ChildReport report;
    int code = 0;
    try {
      const auto start = std::chrono::steady_clock::now();
      report = build();
      report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } catch (const std::exception& e) {
      std::snprintf(report.error, sizeof report.error, "%s", e.what());
      code = 3;
    }
    const ssize_t written = write(fds[1], &report, sizeof report);
    _exit(written == ssize_t(sizeof report) ? code : 4);
  }
  close(fds[1]);
  ChildReport report;
  const ssize_t got = read(fds[0], &report, sizeof report);
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Measure m;
  m.peak_mib = double(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  m.cpu_seconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  if (got != ssize_t(sizeof report) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    m.error = report.error[0] && got == ssize_t(sizeof report)
                  ? report.error
                  : "child ended with status " + std::to_string(status) + " (killed for memory?)";
    return m;
  }
  m.ok = true;
  m.seconds = report.seconds;
  m.edges = report.edges;
  m.critical_path = report.critical_path;
  return m;
}

ChildReport run_builder(int32_t p, int32_t q, Tree tree) {
  const Dag dag = build_qr_dag(p, q, tree);
  ChildReport r;
  r.edges = dag.num_edges();
  r.critical_path = *std::max_element(dag.priority.begin(), dag.priority.end());
  return r;
}

ChildReport run_arrays(const qr_dag::Shape& s, bool with_csr) {
  const QrDagArrays arrays = build_qr_dag_arrays(s);
  ChildReport r;
  r.critical_path = arrays.priority[size_t(arrays.roots.front())];
  r.edges = count_edges(s);
  if (with_csr) {
    if (r.edges <= std::numeric_limits<int32_t>::max())
      r.edges = int64_t(build_successor_csr<int32_t>(s).succs.size());
    else
      r.edges = int64_t(build_successor_csr<int64_t>(s).succs.size());
  }
  return r;
}

ChildReport run_fr4_prepare(const qr_dag::Shape& s) {
  ChildReport r;
  r.edges = bench::fr4_prepare_graph(s.p, s.q, s.tree);
  return r;
}

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return physical_memory_bytes();
}

std::string first_line_of(const char* command) {
  std::string text;
  if (FILE* pipe = popen(command, "r")) {
    char buffer[256];
    if (fgets(buffer, sizeof buffer, pipe)) text = buffer;
    pclose(pipe);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string quote_csv(std::string s) {
  std::string out = "\"";
  for (const char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tiledqr_dag_bench: time and peak memory of building the tiled QR DAG"};
  std::vector<int64_t> sizes = {4096, 8192, 16384};
  int tile = 32;
  std::vector<std::string> tree_names = {"flat", "binary", "greedy"};
  std::vector<std::string> methods = {"build_qr_dag", "closed_form_arrays", "closed_form_arrays+csr"};
  if (bench::fr4_prepare_available()) methods.push_back("fr4_prepare");
  int repeats = 3;
  std::string csv_path = "report/data/dag_build.csv";
  double memory_fraction = 0.6;
  app.add_option("--sizes", sizes, "matrix orders n (n x n), ascending")->delimiter(',');
  app.add_option("--tile", tile, "tile size b")->check(CLI::PositiveNumber);
  app.add_option("--trees", tree_names, "elimination trees")->delimiter(',');
  app.add_option("--methods", methods, "what to build (default: all this build has)")
      ->delimiter(',')
      ->check(CLI::IsMember({"build_qr_dag", "closed_form_arrays", "closed_form_arrays+csr", "fr4_prepare"}));
  app.add_option("--repeats", repeats, "runs of each closed-form build (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--csv", csv_path, "CSV file to write (replaced)");
  app.add_option("--memory-fraction", memory_fraction,
                 "run the builder only where its extrapolated memory is below this share of MemAvailable")
      ->check(CLI::Range(0.05, 0.95));
  if (const int code = parse_command_line(app, argc, argv, "tiledqr_dag_bench"); code >= 0) return code;
  return run_reporting_errors("tiledqr_dag_bench", [&] {
    std::vector<Tree> trees;
    for (const std::string& name : tree_names) trees.push_back(parse_tree(name));
    std::sort(sizes.begin(), sizes.end());

    std::string machine = first_line_of("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'");
    if (machine.empty()) machine = "unknown cpu";
    machine += " x" + std::to_string(std::thread::hardware_concurrency());
    std::string commit = first_line_of("git describe --always --dirty 2>/dev/null");
    if (commit.empty()) commit = "unknown";
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));

    std::ofstream csv(csv_path);
    if (!csv) throw InputError("cannot write " + csv_path);
    csv << "# " << command_line("tiledqr_dag_bench", argc, argv) << "\n# one child process per build; peak_rss_mib is its ru_maxrss (wait4); on a shared "
                      "machine the wall time (seconds_*) also counts other processes, cpu_seconds_median does not\n";
    csv << "machine,date,commit,n,tile,p,q,tree,tasks,edges,method,runs,seconds_median,seconds_min,"
           "cpu_seconds_median,peak_rss_mib,critical_path,speedup_vs_build_qr_dag,memory_ratio_vs_build_qr_dag,status\n";

    std::map<Tree, double> builder_bytes_per_task;  // from the largest size measured so far
    for (const int64_t n : sizes)
      for (const Tree tree : trees) {
        const int32_t p = tile_count(n, tile);
        const qr_dag::Shape shape = qr_dag::make_shape(p, p, tree);
        const int64_t edges = count_edges(shape);
        struct Row {
          std::string method;
          std::vector<Measure> runs;
          std::string status;
        };
        std::vector<Row> rows;
        const auto wanted = [&methods](const std::string& m) {
          return std::find(methods.begin(), methods.end(), m) != methods.end();
        };

        // The explicit builder, once, where it fits.
        Row builder{"build_qr_dag", {}, ""};
        const auto known = builder_bytes_per_task.find(tree);
        const double estimate = known == builder_bytes_per_task.end() ? 0 : known->second * double(shape.num_tasks);
        const double allowed = memory_fraction * double(available_memory_bytes());
        if (shape.num_tasks > std::numeric_limits<int32_t>::max()) {
          builder.status = "skipped: more tasks than its int32 ids hold";
        } else if (estimate > allowed) {
          builder.status = "skipped: needs about " + format_bytes(estimate) + " (extrapolated), more than " +
                           format_bytes(allowed) + " (share of free memory)";
        } else if (!wanted("build_qr_dag")) {
          builder.status = "not asked for (--methods)";
        } else {
          builder.runs.push_back(in_child([&] { return run_builder(p, p, tree); }));
          if (builder.runs.back().ok)
            builder_bytes_per_task[tree] = builder.runs.back().peak_mib * 1048576.0 / double(shape.num_tasks);
        }
        if (wanted("build_qr_dag")) rows.push_back(builder);

        for (const bool with_csr : {false, true}) {
          if (!wanted(with_csr ? "closed_form_arrays+csr" : "closed_form_arrays")) continue;
          Row r{with_csr ? (edges <= std::numeric_limits<int32_t>::max() ? "closed_form_arrays+csr32"
                                                                          : "closed_form_arrays+csr64")
                         : "closed_form_arrays",
                {}, ""};
          for (int k = 0; k < repeats; ++k) r.runs.push_back(in_child([&] { return run_arrays(shape, with_csr); }));
          rows.push_back(r);
        }
        if (wanted("fr4_prepare")) {
          Row r{"fr4_prepare", {}, ""};
          for (int k = 0; k < repeats; ++k) r.runs.push_back(in_child([&] { return run_fr4_prepare(shape); }));
          rows.push_back(r);
        }

        const Measure* peer = builder.runs.empty() || !builder.runs.front().ok ? nullptr : &builder.runs.front();
        for (Row& r : rows) {
          std::vector<double> seconds, cpu;
          double peak = 0;
          int32_t path = -1;
          int64_t got_edges = 0;
          for (const Measure& m : r.runs) {
            if (!m.ok) {
              r.status = "failed: " + m.error;
              break;
            }
            seconds.push_back(m.seconds);
            cpu.push_back(m.cpu_seconds);
            peak = std::max(peak, m.peak_mib);
            path = m.critical_path;
            got_edges = m.edges;
          }
          if (r.status.empty() && got_edges != edges)
            r.status = "failed: " + std::to_string(got_edges) + " edges, closed form counts " + std::to_string(edges);
          if (r.status.empty() && peer && path >= 0 && path != peer->critical_path)
            r.status = "failed: critical path " + std::to_string(path) + ", builder's " +
                       std::to_string(peer->critical_path);
          if (r.status.empty()) r.status = "ok";
          std::sort(seconds.begin(), seconds.end());
          std::sort(cpu.begin(), cpu.end());
          const bool measured = !seconds.empty() && r.status == "ok";
          const double median = measured ? seconds[seconds.size() / 2] : 0;
          char line[512];
          std::snprintf(line, sizeof line, "%lld,%d,%d,%d,%s,%lld,%lld,%s,%zu,", (long long)n, tile, p, p,
                        tree_name(tree), (long long)shape.num_tasks, (long long)edges, r.method.c_str(),
                        seconds.size());
          csv << quote_csv(machine) << ',' << date << ',' << commit << ',' << line;
          if (measured) {
            std::snprintf(line, sizeof line, "%.4f,%.4f,%.4f,%.1f,", median, seconds.front(), cpu[cpu.size() / 2],
                          peak);
            csv << line << (path >= 0 ? std::to_string(path) : std::string()) << ',';
            if (peer) {
              std::snprintf(line, sizeof line, "%.2f,%.2f", peer->seconds / median, peer->peak_mib / peak);
              csv << line;
            } else {
              csv << ',';
            }
          } else {
            csv << ",,,,,,";
          }
          csv << ',' << quote_csv(r.status) << '\n';
          csv.flush();
          std::printf("%6lld² tile %d %-6s %-26s %9.3f s (cpu %8.3f s) %9.1f MiB  %s\n", (long long)n, tile,
                      tree_name(tree), r.method.c_str(), median, cpu.empty() ? 0.0 : cpu[cpu.size() / 2], peak,
                      r.status.c_str());
          std::fflush(stdout);
        }
      }
    csv.close();
    if (!csv) throw InputError("writing " + csv_path + " failed");
    return 0;
  });
}
