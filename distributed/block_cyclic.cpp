// The 2-D block-cyclic task plan and its message model (block_cyclic.hpp).
#include "block_cyclic.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "errors.hpp"

namespace tiledqr::distributed {

ProcessGrid default_grid(int ranks) {
  ProcessGrid grid{ranks, 1};
  for (int q = 1; q * q <= ranks; ++q)
    if (ranks % q == 0) grid = {ranks / q, q};
  return grid;
}

ProcessGrid parse_grid(const std::string& text, int ranks) {
  const size_t x = text.find('x');
  const auto is_count = [](const std::string& s) {
    return !s.empty() && s.size() < 6 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (x == std::string::npos || !is_count(text.substr(0, x)) || !is_count(text.substr(x + 1)))
    throw InputError("--grid must be PxQ with positive integers P and Q, got '" + text + "'");
  const ProcessGrid grid{std::stoi(text.substr(0, x)), std::stoi(text.substr(x + 1))};
  if (grid.rows < 1 || grid.cols < 1 || (ranks > 0 && grid.ranks() != ranks))
    throw InputError("--grid " + text + " needs " + std::to_string(grid.rows * grid.cols) +
                     " ranks, but " + std::to_string(ranks) + " are running");
  return grid;
}

std::vector<PlannedTask> plan_tasks(const Dag& dag, int32_t q, const ProcessGrid& grid) {
  std::vector<PlannedTask> plan;
  plan.reserve(dag.tasks.size() + size_t(q));
  for (int32_t id = 0; id < dag.num_tasks(); ++id) {
    const Task& t = dag.tasks[size_t(id)];
    PlannedTask planned;
    planned.task = t;
    planned.dag_index = id;
    planned.rank = grid.owner(t.i, t.j);
    const bool factor = is_factorization(t.kind);
    const DataKind t_kind =
        (t.kind == TaskKind::geqrt || t.kind == TaskKind::ormqr) ? DataKind::t_local : DataKind::t_merge;
    for (const TileAccess& a : tile_accesses(t)) {
      if (a.write) {
        planned.uses.push_back({{DataKind::tile, a.i, a.j}, Mode::read_write});
        continue;
      }
      // The one read of an update task is the factor's reflectors, then its T.
      const DataKind v_kind = a.part == TilePart::lower ? DataKind::vcopy : DataKind::tile;
      planned.uses.push_back({{v_kind, a.i, a.j}, Mode::read});
      planned.uses.push_back({{t_kind, t.i, t.k}, Mode::read});
    }
    if (factor) planned.uses.push_back({{t_kind, t.i, t.k}, Mode::write});
    plan.push_back(std::move(planned));
    if (t.kind == TaskKind::geqrt && t.k + 1 < q) {
      PlannedTask copy;
      copy.task = t;
      copy.is_copy = true;
      copy.rank = plan.back().rank;
      copy.uses = {{{DataKind::tile, t.i, t.k}, Mode::read}, {{DataKind::vcopy, t.i, t.k}, Mode::write}};
      plan.push_back(std::move(copy));
    }
  }
  return plan;
}

MessageCount count_messages(const std::vector<PlannedTask>& plan, const ProcessGrid& grid,
                            int64_t tile_bytes, int64_t t_bytes) {
  MessageCount count;
  count.bytes_sent.assign(size_t(grid.ranks()) * grid.ranks(), 0);
  // Ranks holding a valid received copy of each datum (the owner always
  // holds the current value and is not listed).
  std::map<std::tuple<int, int32_t, int32_t>, std::set<int>> copies;
  auto send = [&](int from, int to, const DataRef& d) {
    ++count.messages;
    const bool is_tile = d.kind == DataKind::tile || d.kind == DataKind::vcopy;
    count.bytes_sent[size_t(from) * grid.ranks() + to] += is_tile ? tile_bytes : t_bytes;
  };
  for (const PlannedTask& t : plan) {
    for (const DataUse& u : t.uses) {
      const int owner = grid.owner(u.data.i, u.data.j);
      std::set<int>& held = copies[{int(u.data.kind), u.data.i, u.data.j}];
      if (u.mode != Mode::write && t.rank != owner && held.insert(t.rank).second)
        send(owner, t.rank, u.data);
    }
    for (const DataUse& u : t.uses) {
      if (u.mode == Mode::read) continue;
      const int owner = grid.owner(u.data.i, u.data.j);
      if (t.rank != owner) send(t.rank, owner, u.data);
      copies[{int(u.data.kind), u.data.i, u.data.j}].clear();
    }
  }
  return count;
}

}  // namespace tiledqr::distributed

namespace tiledqr::distributed {

double simulate_plan(const std::vector<PlannedTask>& plan, const ProcessGrid& grid, int workers,
                     const double task_seconds[7], const Network& network, int64_t tile_bytes,
                     int64_t t_bytes) {
  // Each rank's workers, as the times they become free.
  std::vector<std::vector<double>> free_at(size_t(grid.ranks()), std::vector<double>(size_t(workers), 0));
  // When each datum's current value is at each rank holding it.
  std::map<std::tuple<int, int32_t, int32_t>, std::map<int, double>> available;
  double end = 0;
  for (const PlannedTask& t : plan) {
    double start = 0;
    for (const DataUse& u : t.uses) {
      if (u.mode == Mode::write) continue;
      const int owner = grid.owner(u.data.i, u.data.j);
      std::map<int, double>& at = available[{int(u.data.kind), u.data.i, u.data.j}];
      if (at.empty()) at[owner] = 0;  // the input, on its owner from the start
      if (!at.count(t.rank)) {
        const bool is_tile = u.data.kind == DataKind::tile || u.data.kind == DataKind::vcopy;
        const double message = network.latency_s + double(is_tile ? tile_bytes : t_bytes) / network.bytes_per_s;
        at[t.rank] = at[owner] + message;
      }
      start = std::max(start, at[t.rank]);
    }
    std::vector<double>& workers_of_rank = free_at[size_t(t.rank)];
    auto worker = std::min_element(workers_of_rank.begin(), workers_of_rank.end());
    start = std::max(start, *worker);
    const double finish = start + task_seconds[t.is_copy ? 6 : int(t.task.kind)];
    *worker = finish;
    end = std::max(end, finish);
    for (const DataUse& u : t.uses) {
      if (u.mode == Mode::read) continue;
      const int owner = grid.owner(u.data.i, u.data.j);
      std::map<int, double>& at = available[{int(u.data.kind), u.data.i, u.data.j}];
      at.clear();
      at[t.rank] = finish;
      const bool is_tile = u.data.kind == DataKind::tile || u.data.kind == DataKind::vcopy;
      if (owner != t.rank)
        at[owner] = finish + network.latency_s + double(is_tile ? tile_bytes : t_bytes) / network.bytes_per_s;
    }
  }
  return end;
}

}  // namespace tiledqr::distributed
