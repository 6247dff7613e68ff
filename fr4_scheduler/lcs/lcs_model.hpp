// The closed-form run time of a tiled (supernode) wavefront ("Supernode
// transformation on GPGPUs"), for the LCS table of M rows (symbols of a) and N
// columns (symbols of b) cut into tiles of h rows × w columns, run by P
// workers:
//
//   R = ⌈M/h⌉ tile rows, C = ⌈N/w⌉ tile columns, R + C − 1 anti-diagonal waves;
//   wave d holds n_d = min(d + 1, R, C, R + C − 1 − d) tiles, run in ⌈n_d/P⌉ rounds;
//   T(w, h) = Σ_d ⌈n_d/P⌉ · (w·h·t_cell + t_sync),
//
// with w·h read as min(w, N)·min(h, M): a tile larger than the table is the
// table (the paper assumes tiles that divide it).
// t_cell is the time of one cell update inside a tile, t_sync the cost of
// handing a tile's boundary to its successors and starting the next one.
// When P ≥ min(R, C) every wave is one round and, at fixed h,
//   T(w) = (R + N/w − 1)(w·h·t_cell + t_sync)
// is least at w* = √(N·t_sync / ((R − 1)·h·t_cell)).
#pragma once

#include <cstdint>
#include <vector>

namespace tiledqr::lcs {

struct TileShape {
  int64_t rows = 2048;  // h: symbols of a per tile
  int64_t cols = 256;   // w: symbols of b per tile
};

struct MachineConstants {
  double t_cell = 0;  // seconds per cell update
  double t_sync = 0;  // seconds per tile hand-over
};

// Σ_d ⌈n_d / workers⌉ over the R + C − 1 waves of an R × C tile grid (0 when
// either is 0).
int64_t wavefront_rounds(int64_t tile_rows, int64_t tile_cols, int64_t workers);

// T(w, h; M, N, t_cell, t_sync, P) above.
double model_seconds(const TileShape& tile, int64_t m, int64_t n, const MachineConstants& constants,
                     int64_t workers);

// One timed run of a tile shape.
struct Measurement {
  TileShape tile;
  double seconds = 0;
};

// t_cell and t_sync by least squares on T = rounds·w·h·t_cell + rounds·t_sync
// (with two measurements, the exact solution of the 2 × 2 system). Throws
// InputError with fewer than two measurements or when they cannot separate
// the two constants (the same tile twice).
MachineConstants calibrate(const std::vector<Measurement>& runs, int64_t m, int64_t n, int64_t workers);

// The candidate with the least model_seconds (the first of equals).
TileShape best_tile(const std::vector<TileShape>& candidates, int64_t m, int64_t n,
                    const MachineConstants& constants, int64_t workers);

}  // namespace tiledqr::lcs
