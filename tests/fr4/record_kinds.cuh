// Task kinds for the executor's GPU tests: each task records when it ran
// (global tickets at its start and end), how often, by how many threads
// and as which kind, so the host can check every task and every edge.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "taskgraph/graph.hpp"
#include "taskgraph/graph_exec.cuh"

namespace tiledqr::taskgraph::testing {

constexpr int record_kind_count = 5;  // kinds 0 … 4 record, each with its own busy time
constexpr int kind_block = 5;         // Team::block: every thread of the block counts itself
constexpr int kind_trap = 6;          // __trap(): kills the context
constexpr int kind_wait_for_abort = 7;  // waits until the watchdog aborts the run
constexpr int kind_write_arg = 8;     // writes its argument's value to target[task], then records

struct RecordParams {
  unsigned long long* clock;  // global ticket counter
  long long* start;           // (tasks): ticket at the start
  long long* end;             // (tasks): ticket at the end
  int* runs;                  // (tasks): times run
  int* threads_seen;          // (tasks): threads that ran it
  int* kind_seen;             // (tasks): the kind id it ran as
};

struct WriteArgs {
  int* target;
  int value;
};

struct RecordKinds {
  template <class Ctx>
  __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx) {
    const RecordParams p = params_of<RecordParams>(ctx);
    const int32_t t = ctx.task();
    switch (kind) {
      case kind_trap:
        __trap();
        break;
      case kind_wait_for_abort:
        if (ctx.rank() == 0)
          while (!ctx.aborted()) __nanosleep(2000);
        break;
      case kind_write_arg:
        if (ctx.rank() == 0) {
          const WriteArgs a = args.as<WriteArgs>();
          a.target[t] = a.value;
        }
        break;
      default:
        break;
    }
    atomicAdd(&p.threads_seen[t], 1);
    ctx.sync();
    if (ctx.rank() == 0) {
      p.start[t] = static_cast<long long>(atomicAdd(p.clock, 1ull));
      atomicAdd(&p.runs[t], 1);
      p.kind_seen[t] = kind;
      if (kind < record_kind_count) {  // kinds differ in how long they take
        const int64_t until = clock_ns() + 200 * kind;
        while (clock_ns() < until) {
        }
      }
      p.end[t] = static_cast<long long>(atomicAdd(p.clock, 1ull));
    }
  }
};

// Device arrays for RecordParams, and the host's checks of a run.
class RecordBuffers {
 public:
  explicit RecordBuffers(int32_t tasks) : tasks_(tasks) {
    const size_t n = size_t(tasks > 0 ? tasks : 1);
    cudaMalloc(&params_.clock, sizeof(unsigned long long));
    cudaMalloc(&params_.start, n * sizeof(long long));
    cudaMalloc(&params_.end, n * sizeof(long long));
    cudaMalloc(&params_.runs, n * sizeof(int));
    cudaMalloc(&params_.threads_seen, n * sizeof(int));
    cudaMalloc(&params_.kind_seen, n * sizeof(int));
    clear();
  }
  ~RecordBuffers() {
    cudaFree(params_.clock);
    cudaFree(params_.start);
    cudaFree(params_.end);
    cudaFree(params_.runs);
    cudaFree(params_.threads_seen);
    cudaFree(params_.kind_seen);
  }
  RecordBuffers(const RecordBuffers&) = delete;
  RecordBuffers& operator=(const RecordBuffers&) = delete;

  void clear() {
    const size_t n = size_t(tasks_ > 0 ? tasks_ : 1);
    cudaMemset(params_.clock, 0, sizeof(unsigned long long));
    cudaMemset(params_.start, 0xff, n * sizeof(long long));
    cudaMemset(params_.end, 0xff, n * sizeof(long long));
    cudaMemset(params_.runs, 0, n * sizeof(int));
    cudaMemset(params_.threads_seen, 0, n * sizeof(int));
    cudaMemset(params_.kind_seen, 0xff, n * sizeof(int));
  }
  const RecordParams& params() const { return params_; }

  // Empty when the last run ran every task exactly once (with `runs_each`
  // runs recorded in all), each as its kind, by the right number of
  // threads, and every edge u → v had u end before v started. Otherwise the
  // first problems found.
  std::string problems(const CompiledGraph& g, int block_threads, int runs_each = 1) const {
    const size_t n = size_t(tasks_);
    std::vector<long long> start(n), end(n);
    std::vector<int> runs(n), threads(n), kinds(n);
    if (n > 0) {
      cudaMemcpy(start.data(), params_.start, n * sizeof(long long), cudaMemcpyDeviceToHost);
      cudaMemcpy(end.data(), params_.end, n * sizeof(long long), cudaMemcpyDeviceToHost);
      cudaMemcpy(runs.data(), params_.runs, n * sizeof(int), cudaMemcpyDeviceToHost);
      cudaMemcpy(threads.data(), params_.threads_seen, n * sizeof(int), cudaMemcpyDeviceToHost);
      cudaMemcpy(kinds.data(), params_.kind_seen, n * sizeof(int), cudaMemcpyDeviceToHost);
    }
    std::string out;
    int reported = 0;
    const auto report = [&](const std::string& text) {
      if (reported++ < 8) out += text + "\n";
    };
    for (int32_t t = 0; t < tasks_; ++t) {
      const size_t k = size_t(t);
      if (runs[k] != runs_each)
        report("task " + std::to_string(t) + " ran " + std::to_string(runs[k]) + " times");
      const int expected_threads = (g.team[k] == Team::block ? block_threads : 32) * runs_each;
      if (threads[k] != expected_threads)
        report("task " + std::to_string(t) + " ran on " + std::to_string(threads[k]) + " threads, expected " +
               std::to_string(expected_threads));
      if (kinds[k] != g.kind[k])
        report("task " + std::to_string(t) + " ran as kind " + std::to_string(kinds[k]));
      for (int64_t e = g.succ_offsets[k]; e < g.succ_offsets[k + 1]; ++e) {
        const int32_t s = g.succs[size_t(e)];
        if (!(end[k] < start[size_t(s)]))
          report("edge " + std::to_string(t) + " -> " + std::to_string(s) + " violated: end " +
                 std::to_string(end[k]) + ", successor start " + std::to_string(start[size_t(s)]));
      }
    }
    if (reported > 8) out += "… " + std::to_string(reported - 8) + " more\n";
    return out;
  }

 private:
  int32_t tasks_;
  RecordParams params_{};
};

}  // namespace tiledqr::taskgraph::testing
