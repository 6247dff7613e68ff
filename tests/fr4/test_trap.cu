// A task kind that traps (suites fr4 and gpu). A trap kills the process's
// CUDA context, so every GPU step runs in its own child process and this
// parent never touches CUDA:
//   1. a child counts GPUs (none: exit 77, meson's "skipped");
//   2. a child runs a chain whose middle task executes __trap();
//      pass rule: run() returns Code::device_error with CUDA's error text
//      (no hang: the parent kills a child that takes over 120 s);
//   3. a child runs a 10⁴-task random DAG afterwards;
//      pass rule: complete and ordered — the GPU is usable after the trap.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "taskgraph/graph_generators.hpp"
#include "record_kinds.cuh"

namespace {

using namespace tiledqr::taskgraph;

// Runs `body` in a child; returns its exit status (−1 when it was killed
// for taking longer than `limit_seconds`), and what it wrote to `message`.
int in_child(const std::function<int(std::string&)>& body, std::string& message, double limit_seconds) {
  int channel[2];
  if (pipe(channel) != 0) return -2;
  const pid_t child = fork();
  if (child == 0) {
    close(channel[0]);
    std::string text;
    const int code = body(text);
    if (!text.empty() && write(channel[1], text.data(), text.size()) < 0) {
    }
    close(channel[1]);
    _exit(code);
  }
  close(channel[1]);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_seconds) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      close(channel[0]);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  char buffer[4096];
  ssize_t got;
  while ((got = read(channel[0], buffer, sizeof(buffer))) > 0) message.append(buffer, size_t(got));
  close(channel[0]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int count_gpus(std::string&) { return gpu_count() > 0 ? 0 : 77; }

int run_trapping_chain(std::string& message) {
  Graph g;
  g.define_kind(0, "k0");
  g.define_kind(testing::kind_trap, "trap");
  struct None {};
  TaskHandle previous = g.add(0, None{});
  for (int k = 1; k < 200; ++k) {
    TaskHandle t = g.add(k == 100 ? testing::kind_trap : 0, None{});
    previous.precede(t);
    previous = t;
  }
  testing::RecordBuffers record(g.size());
  GraphExec<testing::RecordKinds> exec(g);
  const Status s = exec.run(record.params());
  message = std::string(status_code_name(s.code)) + ": " + s.message;
  return s.code == Status::Code::device_error && !s.message.empty() ? 0 : 1;
}

int run_random_dag(std::string& message) {
  const CompiledGraph g = graph_of_shape(layered_random_shape(10000, 100, 3, 3), 3, 4).compile();
  testing::RecordBuffers record(g.num_tasks());
  GraphExec<testing::RecordKinds> exec(g);
  const Status s = exec.run(record.params());
  if (!s.ok()) {
    message = s.message;
    return 1;
  }
  message = record.problems(g, 32 * exec.shape().warps_per_block);
  return message.empty() ? 0 : 1;
}

}  // namespace

int main() {
  std::string message;
  const int gpus = in_child(count_gpus, message, 60);
  if (gpus == 77) {
    std::printf("no CUDA-capable GPU: skipped\n");
    return 77;
  }
  if (gpus != 0) {
    std::printf("FAIL: the GPU count child ended with %d\n", gpus);
    return 1;
  }
  message.clear();
  const int trapped = in_child(run_trapping_chain, message, 120);
  std::printf("trapping task: child exit %d, status \"%s\"\n", trapped, message.c_str());
  if (trapped != 0) {
    std::printf("FAIL: expected a device_error status with CUDA's text%s\n",
                trapped == -1 ? " (the run hung and was killed)" : "");
    return 1;
  }
  message.clear();
  const int after = in_child(run_random_dag, message, 120);
  if (after != 0) {
    std::printf("FAIL: the GPU was not usable after the trap (exit %d): %s\n", after, message.c_str());
    return 1;
  }
  std::printf("a 10^4-task graph ran correctly after the trap: PASS\n");
  return 0;
}
