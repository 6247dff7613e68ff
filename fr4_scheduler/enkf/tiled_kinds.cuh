// The FR4 task kinds of the "tiled" method (tiled_plan.hpp): accumulation
// tasks (a row block × a chunk of one m-block's union columns) and
// reduction tasks (a row block × an m-block). Both are warp tasks.
#pragma once

#include <cstdint>

#include "taskgraph/task_context.cuh"
#include "tiled_plan.hpp"

namespace tiledqr::enkf {

enum TiledKind : int32_t { kind_accumulate = 0, kind_reduce = 1 };

// Ensemble members one pass of an accumulation task keeps in registers;
// more members take several passes over the chunk's columns.
constexpr int max_members_per_pass = 12;

// The run's parameter block: the problem and the plan on the device.
struct TiledParams {
  const double* diagonals;     // (2n − 1): C[i, j] = diagonals[n − 1 + i − j]
  const double* e;             // (n, l) col-major, ld = n
  const double* e_rows;        // (l, n) col-major: row j of e at j·l
  const int32_t* union_col;    // TiledPlan::union_col
  const int32_t* union_nz;     // TiledPlan::union_nz
  const int32_t* nz_row;       // TiledPlan::nz_row
  const double* nz_value;      // TiledPlan::nz_value
  const TiledChunk* chunks;    // TiledPlan::chunks
  const int32_t* block_chunks; // TiledPlan::block_chunks
  double* partial;             // (TiledPlan::partial_doubles)
  double* out;                 // P_HT, (n, m) col-major, ld = n
  int64_t n;
  int32_t m;
  int32_t l;
  double scale;                // 1 / (L − 1)
};

// An accumulation task: rows [row_begin, row_begin + rows_per_task) × chunk.
struct AccumulateArgs {
  int32_t row_begin;
  int32_t chunk;
};

// A reduction task: rows [row_begin, row_begin + rows_per_task) × m-block.
struct ReduceArgs {
  int32_t row_begin;
  int32_t m_block;
};

}  // namespace tiledqr::enkf

#include "kernels/accumulate_chunk.cuh"
#include "kernels/reduce_partials.cuh"

namespace tiledqr::enkf {

// The compile-time kinds functor FR4 runs (a switch, no function pointers).
struct TiledKinds {
  template <class Ctx>
  __device__ static void run(int kind, const taskgraph::TaskArgs& args, Ctx& ctx) {
    const TiledParams p = taskgraph::params_of<TiledParams>(ctx);
    if (kind == kind_accumulate)
      accumulate_chunk(p, args.as<AccumulateArgs>(), taskgraph::scratch_of<double>(ctx), ctx.rank());
    else if (kind == kind_reduce)
      reduce_partials(p, args.as<ReduceArgs>(), ctx.rank());
  }
};

}  // namespace tiledqr::enkf
