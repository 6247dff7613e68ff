// Options shared by every stage (docs/design.md §6, §7).
#pragma once

#include <cstdint>
#include <string>

namespace tiledqr {

enum class Backend { reference, lapack };
// hierarchical: the panel's tile rows fall into `tree_domains` domains
// (tile row i in domain i mod tree_domains: one process row of a 2-D
// block-cyclic distribution); each domain is reduced by `inner_tree` (flat
// or binary), then the domains' top rows by a binary tree.
// tsqr: no tiles: the matrix is cut into `tree_domains` contiguous row
// blocks, each factored whole by LAPACK's blocked QR, and their R factors
// are merged by a tree of fan-in `fan_in` (docs/design.md §8; CPU only).
enum class Tree { flat, binary, greedy, hierarchical, tsqr };

// The options of one factorisation, for every executor: the CPU stages read
// the first two groups, the GPU stages the first and the last. (The C
// interface has its own tiledqr_options; the task-graph library its own
// taskgraph::ExecOptions, which the task-graph QR fills from these.)
struct Options {
  // Every stage.
  int tile = 32;              // b: tile size; the GPU stages run 32 only (gpu::tile_shape)
  Tree tree = Tree::flat;     // the scheduler-warp GPU executor runs flat only
  int tree_domains = 1;         // hierarchical tree: number of domains (0, FR4 only: chosen, chains of 8
                                // tiles); tsqr: number of row blocks
  Tree inner_tree = Tree::flat;  // hierarchical tree: flat or binary inside a domain
  int fan_in = 4;               // tsqr: R factors a node of its tree merges (≥ 2)
  bool trace = false;         // record one TaskRecord per task

  // The CPU stages.
  int inner_block = 0;        // ib of the lapack backend's T factors; 0 picks min(tile, 32)
  Backend backend = Backend::lapack;
  int threads = 0;            // worker threads of the threaded executor; 0 means every hardware thread

  // The GPU stages.
  double watchdog_seconds = 10;  // no task finished for this long: StallError
  // The scheduler-warp executor (fr3_gpu/).
  int executors_per_sm = 1;       // executor blocks per SM (the paper's design: one)
  double double_task_weight = 1;  // round-robin weight of tsqrt/tsmqr against geqrt/ormqr (> 0);
                                  // 1 is plain round robin
  int64_t test_drop_completion = -1;  // test hook: the scheduler ignores this completion (0-based)
  int test_absent_executor = -1;      // test hook: this executor returns at once, as if never started
  // The task-graph executor (fr4_scheduler/qr/; taskgraph::ExecOptions).
  int warps_per_block = 2;  // warps of each executor block
  int max_blocks = 0;       // 0: every block that fits
  // Ready queues ranked by each task's chain of time (1 … 4; 1: one FIFO
  // queue); 0: the executor's choice for the tiles (fr4_qr.hpp).
  int priority_classes = 0;

  int effective_inner_block() const {
    const int ib = inner_block > 0 ? inner_block : 32;
    return ib < tile ? ib : tile;
  }
};

const char* backend_name(Backend backend);
const char* tree_name(Tree tree);
Backend parse_backend(const std::string& text);  // throws InputError
Tree parse_tree(const std::string& text);        // throws InputError

}  // namespace tiledqr
