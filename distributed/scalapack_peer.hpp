// The peer of the distributed benchmark: ScaLAPACK's p?geqrf on the same
// ranks and P×Q grid, the matrix in ScaLAPACK's own block-cyclic layout.
#pragma once

#include <cstdint>
#include <vector>

#include "block_cyclic.hpp"
#include "entries.hpp"

namespace tiledqr::distributed {

struct PeerTiming {
  int block = 0;           // the fastest block size tried
  double seconds = 0;      // its time (slowest rank), factorisation only
  double norm_error = 0;   // |‖R‖_F − ‖A‖_F| / ‖A‖_F, a sanity check of its R
};

// Times p?geqrf once per block size in `blocks` (the matrix refilled from
// `source` each time) with `threads` BLAS threads per rank; collective over
// MPI_COMM_WORLD. StarPU must not be running (BLACS calls MPI directly).
template <typename T>
PeerTiming time_scalapack_geqrf(int64_t m, int64_t n, const ProcessGrid& grid,
                                const std::vector<int>& blocks, int threads, const EntrySource& source);

}  // namespace tiledqr::distributed
