// What a binary was built from: the project version, the commit of its source tree (taken at build
// time, "-dirty" when the tree had uncommitted changes) and the versions of the libraries it uses.
#pragma once

#include <string>

namespace tiledqr {

// The project version of meson.build, e.g. "0.1.0".
const char* project_version();

// `git describe --always --dirty` of the source tree when the binary was built, or "unknown" when
// the tree was not a git checkout.
const char* build_commit();

// OpenBLAS's own description of itself (version, threading, core), e.g.
// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
std::string openblas_version();

// The lines --version prints: "<program> (tiledqr) <version>", the commit, OpenBLAS, then
// `extra` (a GPU stage's CUDA, driver and cuSOLVER versions) when it is not empty; no final newline.
std::string version_text(const std::string& program, const std::string& extra);

}  // namespace tiledqr
