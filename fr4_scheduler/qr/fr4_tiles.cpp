// The tiles the task-graph QR runs for a shape: the choice for tile 0, the
// checks of an explicit tile and inner block, and the priority classes (fr4_qr.hpp).
#include <algorithm>
#include <string>

#include "errors.hpp"
#include "fr4_qr.hpp"
#include "tile_choice.hpp"

namespace tiledqr::gpu {

namespace {

// The GPU table's row for the shape (common/factorization/tile_choice.cpp). Its rows hold
// for any multiprocessor count, so the query names none of the device's.
TileChoice gpu_choice(int64_t m, int64_t n, bool single_precision) {
  const Precision precision = single_precision ? Precision::single_precision : Precision::double_precision;
  return choose_tile({TileTarget::gpu, m, n, precision, 1, std::string(), 1});
}

// The tiles and inner block alone (fr4_tiles adds the priority classes).
Fr4Tiles chosen_tiles(int64_t m, int64_t n, bool single_precision, const Options& options) {
  if (options.tile == 0) {
    const TileChoice c = gpu_choice(m, n, single_precision);
    return c.tile == 32 ? Fr4Tiles{32, 0} : Fr4Tiles{c.tile, c.inner_block};
  }
  const int tile = options.tile, ib = options.inner_block;
  if (tile == 32) {
    if (ib != 0 && ib != 32)
      throw InputError("tile 32 runs the warp kernels, which have no inner block; got inner block " +
                       std::to_string(ib));
    return Fr4Tiles{32, 0};
  }
  if (tile != 64 && tile != 128 && tile != 256)
    throw InputError("the task-graph GPU factorisation runs tiles of 32, 64, 128 or 256 (or 0: chosen for the "
                     "shape); got tile " + std::to_string(tile));
  const int inner = ib == 0 ? 32 : ib;
  if (inner != 16 && inner != 32 && inner != 64)
    throw InputError("tiles of " + std::to_string(tile) + " take an inner block of 16, 32 or 64; got " +
                     std::to_string(inner));
  if (tile == 256 && inner > 32)
    throw InputError("tile 256 takes an inner block of 16 or 32 (a block's shared memory holds no more); got " +
                     std::to_string(inner));
  return Fr4Tiles{tile, inner};
}


}  // namespace

bool fr4_one_tile(int64_t m, int64_t n, const Fr4Tiles& tiles, const Options& options) {
  return (tiles.tile == 64 || tiles.tile == 128) && tiles.inner_block <= 32 && m <= tiles.tile && n <= tiles.tile &&
         !options.trace;
}

Tree fr4_tree_choice(int64_t m, int64_t n, bool single_precision) {
  return gpu_choice(m, n, single_precision).tree;
}

Fr4Tiles fr4_tiles(int64_t m, int64_t n, bool single_precision, const Options& options) {
  if (options.priority_classes < 0 || options.priority_classes > 4)
    throw InputError("the task-graph GPU factorisation ranks ready tasks into 1 to 4 priority classes (or 0: "
                     "chosen for the tiles); got " + std::to_string(options.priority_classes));
  Fr4Tiles t = chosen_tiles(m, n, single_precision, options);
  t.priority_classes = fr4_priority_classes(m, n, t.tile, options);
  t.domains = fr4_domains(m, t.tile, options);
  return t;
}

int32_t fr4_domains(int64_t m, int tile, const Options& options) {
  if (options.tree != Tree::hierarchical) return 1;
  if (options.inner_tree != Tree::flat)
    throw InputError("the task-graph GPU factorisation reduces each domain of the hierarchical tree flat; got "
                     "the inner tree " + std::string(tree_name(options.inner_tree)));
  if (options.tree_domains < 0)
    throw InputError("the hierarchical tree takes domains >= 1 (or 0: chosen); got " +
                     std::to_string(options.tree_domains));
  if (options.tree_domains > 0) return options.tree_domains;
  return int32_t(std::max<int64_t>(1, (tile_count(m, tile) + 7) / 8));
}

// Measured on an H200 against one class in the same run
// (report/data/fr4_priority_h200.csv): at tile 256 with the flat tree four
// classes took 16384² 5.6 % (double) and 4.4 % (float) faster, 32768² 2.4 %
// slower; 262144 × 1024 with the binary tree 8 % slower; tile 64 at 8192²
// 29 % slower and tile 32 at 4096² 4.7 times slower (there many more idle
// workers poll the express rings' counters: the likely cause, not yet
// profiled). The boundary lies at the geometric mean of the measured sides.
int fr4_priority_classes(int64_t m, int64_t n, int tile, const Options& options) {
  if (options.priority_classes != 0) return options.priority_classes;
  return tile == 256 && options.tree == Tree::flat && std::max(m, n) <= 23170 ? 4 : 1;
}

}  // namespace tiledqr::gpu
