// Several task graphs laid out as one (a batch): no edges between them, one
// run of the executor for all. Host code only; the CPU tests run on it.
//
//   std::vector<LayoutStream> members = {qr_factor_graph(…), qr_factor_graph(…)};
//   LayoutStream all = concatenate_streams(std::move(members), [](int32_t g, TaskArgs& a) { /* member g's */ });
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "device_layout.hpp"
#include "task_args.hpp"

namespace tiledqr::taskgraph {

// Rewrites one of member `member`'s argument blocks so that its kinds find
// that member's data (the run parameters are one block for all members):
// writes the member's index, say, or moves the task's coordinates to where
// the member's data lie (qr_batch_graph).
using MemberTag = std::function<void(int32_t member, TaskArgs& args)>;

// The members' graphs as one stream: member g's tasks and successor entries
// follow those of members 0 … g − 1, their ids shifted by as many tasks and
// their entries by as many edges; each argument block passes through
// tag(g, args) when a tag is given. Roots interleave, every member's first
// root, then every member's second, …: each member starts as early as the
// others, and the caller orders the members (longest chains first, say).
// Priority classes: the stream has the members' largest count, a member's
// last class (its ticket ring) stays the last, its express classes stay
// what they were. Chunks hold whole member chunks, up to `chunk_tasks`
// tasks (or one member chunk, when larger). Each member is checked as
// consume_stream checks a stream while it is produced. Throws GraphError
// when the total has more tasks or edges than the executor's ids hold, or
// chunk_tasks < 1.
LayoutStream concatenate_streams(std::vector<LayoutStream> members, MemberTag tag = {},
                                 int32_t chunk_tasks = 1 << 16);

}  // namespace tiledqr::taskgraph
