// fr4_overhead_bench — the scheduler's cost per task (report/data/fr4_overhead.csv).
// Empty tasks (a warp writes one word) as a chain, independent tasks and a
// random layered DAG, run by the task-graph executor and, for the same DAG, by a
// CUDA Graph with one kernel node (<<<1, 32>>>, one word written) per task,
// built with the graph API, instantiated and timed in this process. Both
// are timed with CUDA events around the launch (median of the repeats,
// after warm-ups). A CUDA graph is built task by task in topological
// order, at most --graph-nodes nodes; when building takes longer than
// --build-limit seconds it stops there. The prefix built (a sub-DAG closed
// under predecessors) is what is timed, reported per node. Each CSV row is
// written as soon as it is measured.
//   fr4_overhead_bench [--out FILE] [--commit HASH] [--build-limit S]
//                      [--graph-nodes N] [--chain N] [--wide N] [--layered N]
//                      [--max-blocks N]   (the scheduler on at most N blocks; 0: all that fit)
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>

#include "errors.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/event_timer.hpp"
#include "program.hpp"
#include "strict_numbers.hpp"
#include "taskgraph/graph_exec.cuh"
#include "taskgraph/graph_generators.hpp"

namespace tiledqr::taskgraph {
namespace {

struct EmptyParams {
  int* words;  // (tasks): task t writes words[t]
};

// The empty task: lane 0 writes one word.
struct EmptyKinds {
  template <class Ctx>
  __device__ static void run(int, const TaskArgs&, Ctx& ctx) {
    if (ctx.rank() == 0) params_of<EmptyParams>(ctx).words[ctx.task()] = 1;
  }
};

// The CUDA Graph's node: the same one word.
__global__ void empty_node_kernel(int* words, int task) {
  if (threadIdx.x == 0) words[task] = 1;
}

using gpu::check;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

struct Measurement {
  int64_t nodes = 0;       // tasks or graph nodes timed
  double median_ms = 0;
  double setup_s = 0;      // build + upload / build + instantiate
  int repeats = 0;
  double us_per_task() const { return nodes > 0 ? median_ms * 1e3 / double(nodes) : 0; }
};

Measurement time_fr4(const GraphShape& shape, int* words, int warmup, int repeats, int max_blocks, int& workers) {
  Measurement m;
  const auto setup = std::chrono::steady_clock::now();
  const CompiledGraph compiled = graph_of_shape(shape, 1, 0).compile();
  ExecOptions options;
  options.max_blocks = max_blocks;
  GraphExec<EmptyKinds> exec(compiled, options);
  m.setup_s = seconds_since(setup);
  workers = exec.shape().workers;
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  tiledqr::gpu::EventTimer timer;
  std::vector<double> ms;
  for (int r = 0; r < warmup + repeats; ++r) {
    timer.start(stream);
    const Status launched = exec.launch(EmptyParams{words}, stream);
    timer.stop(stream);
    const Status s = launched.ok() ? exec.wait() : launched;
    if (s.code == Status::Code::stalled) throw StallError("the task-graph run stalled: " + s.message);
    if (!s.ok()) throw GpuError("the task-graph run failed: " + s.message);
    const double t = timer.seconds() * 1e3;
    if (r >= warmup) ms.push_back(t);
  }
  cudaStreamDestroy(stream);
  m.nodes = shape.tasks;
  m.median_ms = median(ms);
  m.repeats = repeats;
  return m;
}

Measurement time_cuda_graph(const GraphShape& shape, int* words, double build_limit_s, int32_t node_limit) {
  Measurement m;
  std::vector<std::vector<int32_t>> preds(size_t(shape.tasks));
  for (const auto& e : shape.edges) preds[size_t(e.second)].push_back(e.first);
  const auto setup = std::chrono::steady_clock::now();
  cudaGraph_t graph;
  check(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
  std::vector<cudaGraphNode_t> nodes(size_t(shape.tasks));
  std::vector<cudaGraphNode_t> deps;
  int32_t built = 0;
  for (; built < std::min(shape.tasks, node_limit); ++built) {
    if ((built & 1023) == 0 && seconds_since(setup) > build_limit_s) break;
    int task = built;
    void* args[] = {&words, &task};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(&empty_node_kernel);
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = args;
    deps.clear();
    for (const int32_t d : preds[size_t(built)]) deps.push_back(nodes[size_t(d)]);
    check(cudaGraphAddKernelNode(&nodes[size_t(built)], graph, deps.data(), deps.size(), &p),
          "cudaGraphAddKernelNode");
  }
  cudaGraphExec_t exec;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  m.setup_s = seconds_since(setup);
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaGraphUpload(exec, stream), "cudaGraphUpload");
  tiledqr::gpu::EventTimer timer;
  // Fewer repeats for graphs that take over a second per launch.
  const int warmup = 1, repeats = built > 200000 ? 3 : 5;
  std::vector<double> ms;
  for (int r = 0; r < warmup + repeats; ++r) {
    timer.start(stream);
    check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    timer.stop(stream);
    const double t = timer.seconds() * 1e3;
    if (r >= warmup) ms.push_back(t);
  }
  cudaStreamDestroy(stream);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  m.nodes = built;
  m.median_ms = median(ms);
  m.repeats = repeats;
  return m;
}

// The command line's settings.
struct Config {
  std::string out_path = "fr4_overhead.csv", commit = "unknown";
  double build_limit = 60;
  int32_t chain = 10000, wide = 1000000, layered = 100000, graph_nodes = 200000, max_blocks = 0;
};

int run(const Config& config) {
  const std::string& out_path = config.out_path;
  const std::string& commit = config.commit;
  const double build_limit = config.build_limit;
  const int32_t chain = config.chain, wide = config.wide, layered = config.layered;
  const int32_t graph_nodes = config.graph_nodes, max_blocks = config.max_blocks;
  if (gpu_count() == 0) throw GpuError("no CUDA-capable GPU");
  int device = 0, driver = 0, runtime = 0;
  cudaDeviceProp prop{};
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  char host[256] = "unknown";
  gethostname(host, sizeof host);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));

  struct Case {
    const char* name;
    GraphShape shape;
  };
  const int32_t layers = std::max(1, layered / 1000);
  // The wide case last: its CUDA graph is the slowest to build and run.
  std::vector<Case> cases = {{"chain", chain_shape(chain)},
                             {"layered", layered_random_shape(layered, layers, 4, 20261121)},
                             {"wide", independent_shape(wide)}};
  int32_t most = 0;
  for (const Case& c : cases) most = std::max(most, c.shape.tasks);
  int* words = nullptr;
  check(cudaMalloc(&words, size_t(std::max(most, 1)) * sizeof(int)), "cudaMalloc");

  std::ofstream out(out_path);
  out << "# fr4_overhead_bench: empty tasks (a warp writes one word), the task-graph persistent executor vs a CUDA Graph "
         "with one <<<1,32>>> kernel node per task, same DAG, same process; CUDA events around each launch, "
         "median after warm-ups\n"
      << "# machine " << host << ", GPU " << prop.name << " (" << prop.multiProcessorCount << " SMs), driver "
      << driver << ", runtime " << runtime << ", date " << date << ", commit " << commit << "\n"
      << "# layered: " << layers << " layers, 1-4 predecessors per task (3 in 4 from the previous layer), seed "
      << "20261121; nodes = what was timed (a CUDA graph has at most " << graph_nodes << " nodes and stops "
      << "building after " << build_limit << " s)\n"
      << "graph,tasks,edges,mechanism,nodes,median_ms,us_per_task,setup_s,repeats" << std::endl;
  if (!out) throw InputError("cannot write " + out_path);
  const auto write_row = [&out](const Case& c, const char* mechanism, const Measurement& m) {
    out << c.name << ',' << c.shape.tasks << ',' << c.shape.edges.size() << ',' << mechanism << ',' << m.nodes
        << ',' << m.median_ms << ',' << m.us_per_task() << ',' << m.setup_s << ',' << m.repeats << std::endl;
  };
  int workers = 0;
  double fr4_us[3] = {0, 0, 0}, graph_us[3] = {0, 0, 0};
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    std::fprintf(stderr, "%s: %d tasks, %zu edges: task graph ...\n", c.name, c.shape.tasks, c.shape.edges.size());
    const Measurement f = time_fr4(c.shape, words, 3, 10, max_blocks, workers);
    write_row(c, "fr4", f);
    std::fprintf(stderr, "  task graph %.4f ms, %.5f us/task (%d workers); CUDA Graph ...\n", f.median_ms,
                 f.us_per_task(), workers);
    const Measurement g = time_cuda_graph(c.shape, words, build_limit, graph_nodes);
    write_row(c, "cuda_graph", g);
    std::fprintf(stderr, "  CUDA Graph %lld nodes, %.4f ms, %.5f us/node (setup %.1f s)\n",
                 static_cast<long long>(g.nodes), g.median_ms, g.us_per_task(), g.setup_s);
    fr4_us[k] = f.us_per_task();
    graph_us[k] = g.us_per_task();
  }
  cudaFree(words);

  const double chain_ratio = fr4_us[0] / graph_us[0], layered_ratio = graph_us[1] / fr4_us[1];
  const double wide_ratio = graph_us[2] / fr4_us[2];
  std::ostringstream summary;
  summary << "# task-graph workers: " << workers << " warps\n"
          << "# chain: task-graph time per task = " << chain_ratio << "x the CUDA Graph's per node (target <= 0.5x): "
          << (chain_ratio <= 0.5 ? "met" : "not met") << "\n"
          << "# layered: task-graph throughput = " << layered_ratio << "x the CUDA Graph's (target >= 50x): "
          << (layered_ratio >= 50 ? "met" : "not met") << "\n"
          << "# wide: task-graph throughput = " << wide_ratio << "x the CUDA Graph's (target >= 200x): "
          << (wide_ratio >= 200 ? "met" : "not met") << "\n";
  out << summary.str();
  out.close();
  if (!out) throw InputError("writing " + out_path + " failed");
  std::cout << summary.str();
  return 0;
}

}  // namespace
}  // namespace tiledqr::taskgraph

int main(int argc, char** argv) {
  tiledqr::taskgraph::Config config;
  const std::string program = "fr4_overhead_bench";
  CLI::App app{"The task-graph scheduler's cost per empty task against a CUDA Graph of the same DAG", program};
  const CLI::Validator count = tiledqr::decimal_integer(false);
  app.add_option("--out", config.out_path, "CSV file to write (default fr4_overhead.csv)");
  app.add_option("--commit", config.commit, "commit to record in the CSV (default unknown)");
  app.add_option("--build-limit", config.build_limit,
                 "seconds a CUDA graph may take to build before it stops there (default 60)")
      ->transform(tiledqr::finite_real())
      ->check(CLI::Range(0.001, 86400.0));
  for (auto [name, value, help] : {std::tuple{"--graph-nodes", &config.graph_nodes, "most nodes of a CUDA graph"},
                                   {"--chain", &config.chain, "tasks of the chain"},
                                   {"--wide", &config.wide, "independent tasks"},
                                   {"--layered", &config.layered, "tasks of the random layered DAG"}})
    app.add_option(name, *value, std::string(help) + " (default " + std::to_string(*value) + ")")
        ->transform(count)
        ->check(CLI::Range(1, std::numeric_limits<int32_t>::max()));
  app.add_option("--max-blocks", config.max_blocks, "run the scheduler on at most this many blocks (0: all that fit)")
      ->transform(count);
  if (const int code = tiledqr::parse_command_line(app, argc, argv, program); code >= 0) return code;
  return tiledqr::run_reporting_errors(program, [&] { return tiledqr::taskgraph::run(config); });
}
