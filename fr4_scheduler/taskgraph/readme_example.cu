// y ← 2x + y on four chunks (warp tasks), then a block task sums y.
#include <cstdio>

#include "graph_exec.cuh"
using namespace tiledqr::taskgraph;

enum Kind { kAxpy, kSum };
struct Chunk { const float* x; float* y; int n; float a; };
struct Total { const float* y; int n; float* sum; };

struct Kinds {  // compile-time task kinds: a switch, no function pointers
  template <class Ctx>
  __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx) {
    if (kind == kAxpy) {
      const Chunk c = args.as<Chunk>();
      for (int i = ctx.rank(); i < c.n; i += ctx.size()) c.y[i] += c.a * c.x[i];
    } else if (kind == kSum) {
      const Total t = args.as<Total>();
      float part = 0;
      for (int i = ctx.rank(); i < t.n; i += ctx.size()) part += t.y[i];
      atomicAdd(t.sum, part);
    }
  }
};

int main() {
  if (gpu_count() == 0) return 77;  // no GPU: skipped
  const int n = 4096, chunk = n / 4;
  float *x, *y, *sum;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&y, n * sizeof(float));
  cudaMallocManaged(&sum, sizeof(float));
  for (int i = 0; i < n; ++i) x[i] = 1, y[i] = 1;
  *sum = 0;

  Graph g;
  g.define_kind(kAxpy, "axpy");
  g.define_kind(kSum, "sum", Team::block);
  TaskHandle total = g.add(kSum, Total{y, n, sum}).name("sum");
  for (int c = 0; c < 4; ++c)
    g.add(kAxpy, Chunk{x + c * chunk, y + c * chunk, chunk, 2.0f}).precede(total);
  GraphExec<Kinds> exec(g);  // compile, upload once
  const Status s = exec.run();
  if (!s.ok()) return std::fprintf(stderr, "run failed: %s\n", s.message.c_str()), 1;
  const bool right = *sum == 3.0f * n;  // every y[i] = 2·1 + 1
  std::printf("sum = %g (expected %g): %s\n", *sum, 3.0 * n, right ? "ok" : "WRONG");
  return right ? 0 : 1;
}
