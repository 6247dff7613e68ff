// The 2-D block-cyclic distribution of tiles over a P×Q grid of ranks and
// the distributed task plan built on it: which rank runs each task of the
// common DAG, which data it touches in which mode, and the messages a
// runtime that keeps only the owner's copy valid (plus a read cache flushed
// on every write) must send — the model the communication test checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dag.hpp"
#include "options.hpp"

namespace tiledqr::distributed {

// Ranks in row-major order over a P×Q grid, ScaLAPACK's "Row" order:
// tile (i, j) belongs to rank (i mod P)·Q + (j mod Q).
struct ProcessGrid {
  int rows = 1;  // P
  int cols = 1;  // Q

  int ranks() const { return rows * cols; }
  int owner(int64_t i, int64_t j) const { return int(i % rows) * cols + int(j % cols); }
};

// The most square grid of `ranks` with P ≥ Q (P = ranks for a prime count).
ProcessGrid default_grid(int ranks);

// Parses "PxQ"; throws InputError unless P·Q == ranks (any P·Q for ranks 0).
ProcessGrid parse_grid(const std::string& text, int ranks);

// The data a distributed task touches. Every tile (i, j) is one datum;
// geqrt's reflectors are copied into their own datum (kind vcopy) so that
// the ormqr of a panel read them while tsqrt/ttqrt go on writing the
// triangle of the same tile — the split the common DAG makes between a
// tile's lower and upper parts. T factors are data of their own.
enum class DataKind : uint8_t { tile, vcopy, t_local, t_merge };
struct DataRef {
  DataKind kind;
  int32_t i, j;
};

enum class Mode : uint8_t { read, write, read_write };
struct DataUse {
  DataRef data;
  Mode mode;
};

// One task of the distributed plan: a task of the common DAG, or the copy of
// geqrt's reflectors (is_copy; `task` is then the geqrt it copies).
struct PlannedTask {
  Task task;
  bool is_copy = false;
  int32_t dag_index = -1;  // index in the Dag (its priority); -1 for copies
  int rank = 0;            // the rank that runs it: the owner of tile (i, j)
  std::vector<DataUse> uses;  // in codelet buffer order
};

// The tasks of the DAG in program order, with their data and ranks.
std::vector<PlannedTask> plan_tasks(const Dag& dag, int32_t q, const ProcessGrid& grid);

// Messages of one factorisation, from the model of data ownership: a rank
// that runs a task receives each datum it reads unless it owns it or holds
// a copy received since the datum was last written; a rank that writes a
// datum it does not own sends it back to the owner; every write drops the
// copies held elsewhere.
struct MessageCount {
  int64_t messages = 0;
  std::vector<int64_t> bytes_sent;  // per (from · ranks + to)
};

// `tile_bytes`: b·b·sizeof(T); `t_bytes`: ib·b·sizeof(T).
MessageCount count_messages(const std::vector<PlannedTask>& plan, const ProcessGrid& grid,
                            int64_t tile_bytes, int64_t t_bytes);

}  // namespace tiledqr::distributed

namespace tiledqr::distributed {

// A network between ranks: a message of s bytes takes latency + s/bandwidth.
struct Network {
  double latency_s = 0;
  double bytes_per_s = 0;
};

// Simulated wall time of `plan` on `grid` with `workers` per rank: tasks in
// program order, each on the first free worker of its rank once its data
// are there; a datum read off its rank arrives one message after it was
// ready at its owner (received copies are reused until the next write); a
// datum written off its owner reaches the owner one message later. Task
// times per kind (TaskKind value; index 6: the reflector copy) come from
// measurements. Links have no contention: a lower bound on the network's
// cost, not on the tasks'.
double simulate_plan(const std::vector<PlannedTask>& plan, const ProcessGrid& grid, int workers,
                     const double task_seconds[7], const Network& network, int64_t tile_bytes,
                     int64_t t_bytes);

}  // namespace tiledqr::distributed
