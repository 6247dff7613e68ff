// Named sweeps: each committed CSV in report/data is one preset, so the
// command that made it is `tiledqr_bench --preset NAME --out FILE`.
#pragma once

#include <string>
#include <vector>

#include "bench_case.hpp"

namespace tiledqr::bench {

// Names of the presets, for --help.
std::vector<std::string> preset_names();

// The cases of a preset; `hardware_threads` caps thread sweeps. Throws
// InputError for an unknown name.
std::vector<BenchCase> preset_cases(const std::string& name, int hardware_threads);

}  // namespace tiledqr::bench
