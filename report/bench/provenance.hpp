// Where a benchmark CSV's numbers come from: the build that measured them and the
// libraries and GPU it used, written as '#' lines that CSV readers skip; and the rule that a
// finished CSV is never overwritten by accident.
#pragma once

#include <string>

namespace tiledqr::bench {

// "# built from tiledqr <version> commit <build commit>; <OpenBLAS config>; <gpu>", one line
// without the newline; `gpu` is gpu_provenance()'s text.
std::string provenance_line(const std::string& gpu);

// Throws InputError when `path` exists and neither --resume (add to it) nor --force (replace it)
// was given.
void refuse_overwrite(const std::string& path, bool resume, bool force);

// The GPU side of the provenance: CUDA runtime, driver and cuSOLVER versions, the GPU's name and
// clocks; "no GPU" or "built without CUDA" otherwise. Defined with the GPU stages.
std::string gpu_provenance();

}  // namespace tiledqr::bench
