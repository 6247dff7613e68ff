// fr4_random_dag — runs one random layered DAG of record tasks on the FR4
// executor and checks it: every task exactly once, as its kind, on its
// team, every edge respected (scripts/gpu-check runs it under
// compute-sanitizer). Exit 0 pass, 1 fail, 2 bad usage, 77 no GPU.
//   fr4_random_dag [--tasks N] [--seed S] [--block-kinds] [--classes C]
// (--classes: the graph's priority classes, 1 … 4; Graph::set_priority_classes)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "taskgraph/graph_generators.hpp"
#include "record_kinds.cuh"

int main(int argc, char** argv) {
  using namespace tiledqr::taskgraph;
  int32_t tasks = 10000;
  uint64_t seed = 1;
  bool block_kinds = false;
  int classes = 1;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--tasks") == 0 && a + 1 < argc) tasks = std::atoi(argv[++a]);
    else if (std::strcmp(argv[a], "--seed") == 0 && a + 1 < argc) seed = std::strtoull(argv[++a], nullptr, 10);
    else if (std::strcmp(argv[a], "--block-kinds") == 0) block_kinds = true;
    else if (std::strcmp(argv[a], "--classes") == 0 && a + 1 < argc) classes = std::atoi(argv[++a]);
    else {
      std::fprintf(stderr, "usage: fr4_random_dag [--tasks N] [--seed S] [--block-kinds] [--classes C]\n");
      return 2;
    }
  }
  if (tasks < 1) {
    std::fprintf(stderr, "fr4_random_dag: --tasks must be >= 1\n");
    return 2;
  }
  if (classes < 1 || classes > max_priority_classes) {
    std::fprintf(stderr, "fr4_random_dag: --classes must be 1 .. %d\n", max_priority_classes);
    return 2;
  }
  if (gpu_count() == 0) {
    std::printf("fr4_random_dag: no CUDA-capable GPU: skipped\n");
    return 77;
  }
  const GraphShape shape = layered_random_shape(tasks, std::max(1, tasks / 100), 4, seed);
  Graph g;
  for (int k = 0; k < testing::record_kind_count; ++k) g.define_kind(k, "k" + std::to_string(k));
  g.define_kind(testing::kind_block, "block", Team::block);
  std::mt19937_64 engine(seed + 1);
  struct None {};
  for (int32_t t = 0; t < shape.tasks; ++t)
    g.add(block_kinds && engine() % 8 == 0 ? testing::kind_block : int(engine() % testing::record_kind_count), None{});
  for (const auto& e : shape.edges) g.add_edge(e.first, e.second);
  g.set_priority_classes(classes);
  try {
    const CompiledGraph cg = g.compile();
    testing::RecordBuffers record(cg.num_tasks());
    GraphExec<testing::RecordKinds> exec(cg);
    const Status s = exec.run(record.params());
    if (!s.ok()) {
      std::fprintf(stderr, "fr4_random_dag: run failed (%s): %s\n", status_code_name(s.code), s.message.c_str());
      return 1;
    }
    const std::string problems = record.problems(cg, 32 * exec.shape().warps_per_block);
    if (!problems.empty()) {
      std::fprintf(stderr, "fr4_random_dag: seed %llu:\n%s", static_cast<unsigned long long>(seed), problems.c_str());
      return 1;
    }
    std::printf("fr4_random_dag: %d tasks, %lld edges, %d priority classes, seed %llu, %d workers on %s: ok\n",
                cg.num_tasks(), static_cast<long long>(cg.num_edges()), classes,
                static_cast<unsigned long long>(seed), exec.shape().workers,
                exec.shape().device_name.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fr4_random_dag: %s\n", e.what());
    return 1;
  }
}
