#include "lcs_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "errors.hpp"

namespace tiledqr::lcs {

int64_t wavefront_rounds(int64_t tile_rows, int64_t tile_cols, int64_t workers) {
  if (tile_rows <= 0 || tile_cols <= 0) return 0;
  if (workers < 1) throw InputError("wavefront_rounds: need at least one worker");
  const int64_t waves = tile_rows + tile_cols - 1;
  int64_t rounds = 0;
  for (int64_t d = 0; d < waves; ++d) {
    const int64_t tiles = std::min({d + 1, tile_rows, tile_cols, waves - d});
    rounds += (tiles + workers - 1) / workers;
  }
  return rounds;
}

namespace {

int64_t ceil_div(int64_t x, int64_t y) { return (x + y - 1) / y; }

void check_tile(const TileShape& tile) {
  if (tile.rows < 1 || tile.cols < 1)
    throw InputError("tile must be at least 1 x 1, got " + std::to_string(tile.rows) + " x " +
                     std::to_string(tile.cols));
}

// Cells of one tile; a tile larger than the table is the table.
double tile_cells(const TileShape& tile, int64_t m, int64_t n) {
  return double(std::min(tile.rows, m)) * double(std::min(tile.cols, n));
}

}  // namespace

double model_seconds(const TileShape& tile, int64_t m, int64_t n, const MachineConstants& constants,
                     int64_t workers) {
  check_tile(tile);
  const int64_t rounds = wavefront_rounds(ceil_div(m, tile.rows), ceil_div(n, tile.cols), workers);
  return double(rounds) * (tile_cells(tile, m, n) * constants.t_cell + constants.t_sync);
}

MachineConstants calibrate(const std::vector<Measurement>& runs, int64_t m, int64_t n, int64_t workers) {
  if (runs.size() < 2) throw InputError("calibrate: need at least two measured runs");
  // Normal equations of min Σ (x_k·t_cell + y_k·t_sync − T_k)², with
  // x_k = rounds·w·h (cells on the critical rounds) and y_k = rounds.
  double xx = 0, xy = 0, yy = 0, xt = 0, yt = 0;
  for (const Measurement& r : runs) {
    check_tile(r.tile);
    const double rounds =
        double(wavefront_rounds(ceil_div(m, r.tile.rows), ceil_div(n, r.tile.cols), workers));
    const double x = rounds * tile_cells(r.tile, m, n), y = rounds;
    xx += x * x, xy += x * y, yy += y * y, xt += x * r.seconds, yt += y * r.seconds;
  }
  const double det = xx * yy - xy * xy;
  if (!(std::fabs(det) > 1e-12 * xx * yy))
    throw InputError("calibrate: the measured tiles cannot separate t_cell from t_sync (pick two different tiles)");
  return MachineConstants{(xt * yy - yt * xy) / det, (yt * xx - xt * xy) / det};
}

TileShape best_tile(const std::vector<TileShape>& candidates, int64_t m, int64_t n,
                    const MachineConstants& constants, int64_t workers) {
  if (candidates.empty()) throw InputError("best_tile: no candidate tiles");
  TileShape best = candidates.front();
  double best_seconds = std::numeric_limits<double>::infinity();
  for (const TileShape& tile : candidates) {
    const double t = model_seconds(tile, m, n, constants, workers);
    if (t < best_seconds) best_seconds = t, best = tile;
  }
  return best;
}

}  // namespace tiledqr::lcs
