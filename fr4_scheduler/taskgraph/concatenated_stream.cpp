// Several task graphs as one stream (concatenated_stream.hpp): each
// member's chunks, ids and edge offsets shifted, packed into the consumer's
// chunks.
#include "concatenated_stream.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "graph.hpp"

namespace tiledqr::taskgraph {
namespace {

// What the producer keeps: the members, where each one starts, the tag.
struct Concatenation {
  std::vector<LayoutStream> members;
  std::vector<int32_t> first_task;  // (members)
  std::vector<int64_t> first_edge;  // (members)
  MemberTag tag;
  int32_t num_classes = 1;
  int32_t member_chunk_tasks = 1;  // the largest member chunk: the producer's own buffers
  int64_t member_chunk_edges = 1;
  int32_t chunk_tasks = 1;  // the stream's capacities: the consumer's buffers
  int64_t chunk_edges = 0;
};

// A successor entry of a member, its task id shifted by `shift`.
uint32_t shifted_entry(uint32_t entry, int32_t shift) {
  const uint32_t bit = entry & single_predecessor_bit;
  return (uint32_t(int32_t(entry & ~single_predecessor_bit) + shift)) | bit;
}

// The member's class c among `classes` in a stream of `total` classes.
uint8_t stream_class(uint8_t c, int32_t classes, int32_t total) {
  return int32_t(c) + 1 == classes ? uint8_t(total - 1) : c;
}

// Packs the members' chunks into the consumer's.
class Packer {
 public:
  Packer(const Concatenation& c, LayoutChunk& out, const std::function<void(const LayoutChunk&)>& emit)
      : c_(c), fill_(out, emit) {}

  // Member g's chunk, shifted, after the ones before it.
  void add(size_t g, const LayoutChunk& chunk) {
    const Concatenation& c = c_;
    if (fill_.tasks + chunk.task_count > c.chunk_tasks || fill_.edges + chunk.edge_count > c.chunk_edges)
      fill_.flush();
    LayoutChunk& out = fill_.buffers;
    const int32_t shift = c.first_task[g];
    const int32_t classes = c.members[g].num_classes;
    for (int32_t k = 0; k < chunk.task_count; ++k) {
      TaskHeader h = chunk.headers[k];
      h.succ_begin = int32_t(h.succ_begin + c.first_edge[g]);
      if (h.succ_count > 0) h.first_succ = shifted_entry(h.first_succ, shift);
      h.priority_class = stream_class(h.priority_class, classes, c.num_classes);
      out.headers[fill_.tasks + k] = h;
      out.args[fill_.tasks + k] = chunk.args[k];
      if (c.tag) c.tag(int32_t(g), out.args[fill_.tasks + k]);
    }
    for (int64_t e = 0; e < chunk.edge_count; ++e) out.succs[fill_.edges + e] = shifted_entry(chunk.succs[e], shift);
    fill_.tasks += chunk.task_count;
    fill_.edges += chunk.edge_count;
  }

  void flush() { fill_.flush(); }

 private:
  const Concatenation& c_;
  ChunkFill fill_;
};

}  // namespace

LayoutStream concatenate_streams(std::vector<LayoutStream> members, MemberTag tag, int32_t chunk_tasks) {
  if (chunk_tasks < 1) throw GraphError("concatenate_streams: chunk_tasks must be >= 1");
  auto c = std::make_shared<Concatenation>();
  LayoutStream out;
  int64_t tasks = 0, edges = 0;
  for (const LayoutStream& m : members) {
    ChunkChecker sane(m);  // counts and capacities, before they are added up
    c->first_task.push_back(int32_t(tasks));  // at most max_tasks: checked below for the members before
    c->first_edge.push_back(edges);
    tasks += m.num_tasks;
    edges += m.num_edges;
    if (tasks > Graph::max_tasks || edges > max_edges)
      throw GraphError("a batch of " + std::to_string(members.size()) + " graphs has more than " +
                       std::to_string(Graph::max_tasks) + " tasks or " + std::to_string(max_edges) +
                       " edges, more than the executor's ids hold (split the batch)");
    out.has_block_tasks = out.has_block_tasks || m.has_block_tasks;
    c->num_classes = std::max(c->num_classes, m.num_classes);
    if (m.num_tasks > 0) {
      c->member_chunk_tasks = std::max(c->member_chunk_tasks, m.chunk_tasks);
      c->member_chunk_edges = std::max(c->member_chunk_edges, m.chunk_edges);
    }
  }
  out.num_tasks = int32_t(tasks);
  out.num_edges = edges;
  out.num_classes = c->num_classes;
  for (const LayoutStream& m : members)
    for (int32_t k = 0; k + 1 < m.num_classes; ++k) out.express_tasks[size_t(k)] += m.express_tasks[size_t(k)];
  // Roots: every member's r-th root in turn.
  size_t most_roots = 0;
  for (const LayoutStream& m : members) most_roots = std::max(most_roots, m.roots.size());
  for (size_t r = 0; r < most_roots; ++r)
    for (size_t g = 0; g < members.size(); ++g)
      if (r < members[g].roots.size()) out.roots.push_back(members[g].roots[r] + c->first_task[g]);
  out.chunk_tasks = std::max(std::min(chunk_tasks, std::max(out.num_tasks, 1)), c->member_chunk_tasks);
  // Room for four successor entries a task (QR graphs have fewer than three on average), and
  // never less than one member chunk.
  out.chunk_edges = std::max(std::min<int64_t>(edges, 4 * int64_t(out.chunk_tasks)), c->member_chunk_edges);
  c->chunk_tasks = out.chunk_tasks;
  c->chunk_edges = out.chunk_edges;
  c->members = std::move(members);
  c->tag = std::move(tag);
  out.produce = [c](LayoutChunk& buffers, const std::function<void(const LayoutChunk&)>& emit) {
    std::vector<TaskHeader> headers(size_t(c->member_chunk_tasks));
    std::vector<TaskArgs> args(headers.size());
    std::vector<uint32_t> succs(size_t(c->member_chunk_edges));
    LayoutChunk mine;
    mine.headers = headers.data();
    mine.args = args.data();
    mine.succs = succs.data();
    Packer packer(*c, buffers, emit);
    for (size_t g = 0; g < c->members.size(); ++g)
      if (c->members[g].num_tasks > 0)
        consume_stream(c->members[g], mine, [&packer, g](const LayoutChunk& chunk) { packer.add(g, chunk); });
    packer.flush();
  };
  return out;
}

}  // namespace tiledqr::taskgraph
