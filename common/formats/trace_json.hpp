// Task traces in the Chrome trace-event format (a JSON object with a "traceEvents" array), which
// Perfetto (ui.perfetto.dev) and chrome://tracing open: one track per worker, one complete event
// ("ph":"X") per task named after its kind, with the tile indices as arguments.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "factorization.hpp"

namespace tiledqr {

// Writes `trace` to `out`. Tracks are named "<track_label> <worker>" (e.g. "worker 3", "executor
// warp 12") and ordered by worker; times are microseconds from the earliest start, with the
// nanoseconds kept as decimals. `process_name` names the one process track (the stage).
void write_chrome_trace(std::ostream& out, const std::vector<TaskRecord>& trace,
                        const std::string& process_name, const std::string& track_label);

}  // namespace tiledqr
