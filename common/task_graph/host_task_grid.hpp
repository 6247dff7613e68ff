// A task grid that owns its cells in host memory.
#pragma once

#include <vector>

#include "size_check.hpp"
#include "task_grid.hpp"

namespace tiledqr {

class HostTaskGrid {
 public:
  HostTaskGrid(int32_t p, int32_t q, bool seed_rules_only = false)
      : cells_(checked_elements({p, q}, sizeof(GridCell), "task grid")) {
    grid_.p = p;
    grid_.q = q;
    grid_.cells = cells_.data();
    grid_.seed_rules_only = seed_rules_only;
    grid_.tasks_total = grid_task_count(p, q);
  }
  HostTaskGrid(const HostTaskGrid&) = delete;
  HostTaskGrid& operator=(const HostTaskGrid&) = delete;

  TaskGrid& grid() { return grid_; }
  const TaskGrid& grid() const { return grid_; }

 private:
  std::vector<GridCell> cells_;
  TaskGrid grid_;
};

}  // namespace tiledqr
