#include "presets.hpp"

#include <utility>

#include "errors.hpp"
#include "tile_choice.hpp"

namespace tiledqr::bench {
namespace {

using Shape = std::pair<int64_t, int64_t>;

const std::vector<Shape> kAnchorSquares = {{128, 128},   {256, 256},   {512, 512},  {1024, 1024},
                                           {2048, 2048}, {4096, 4096}, {8192, 8192}};
const std::vector<Shape> kAnchorTallSkinny = {{262144, 32},  {262144, 64},  {262144, 128},
                                              {262144, 256}, {262144, 512}, {262144, 1024},
                                              {1048576, 32}, {1048576, 64}};

BenchCase make(const std::string& stage, Shape shape, const std::string& precision = "double") {
  BenchCase c;
  c.stage = stage;
  c.m = shape.first;
  c.n = shape.second;
  c.precision = precision;
  return c;
}

// The GPU presets' shapes: the report's reference shapes up to 8192², smallest first within
// each kind (so --case-limit can stop a family once it gets too slow). The
// residual check forms Q on the host, O(m·n²): it runs where m·n² ≤ 2^34
// (2048², 262144 × 256, 1048576 × 64) and is left out above, where it would
// take longer than the sweep's timings.
std::vector<BenchCase> gpu_anchor_cases(const std::string& stage, const std::string& precision) {
  std::vector<Shape> shapes = kAnchorSquares;
  shapes.insert(shapes.end(), kAnchorTallSkinny.begin(), kAnchorTallSkinny.end());
  std::vector<BenchCase> cases;
  for (const Shape& s : shapes) {
    BenchCase c = make(stage, s, precision);
    c.check = double(s.first) * double(s.second) * double(s.second) <= double(int64_t(1) << 34);
    cases.push_back(c);
  }
  return cases;
}

// The report's largest reference square, run last by the GPU presets. Its host-side
// residual check (forming Q on the CPU) would take minutes: off.
BenchCase largest_square(const std::string& stage, const std::string& precision) {
  BenchCase c = make(stage, {16384, 16384}, precision);
  c.check = false;
  return c;
}

bool tall_skinny(Shape s) { return s.first >= 8 * s.second; }

std::vector<int> thread_counts(int hardware_threads) {
  std::vector<int> counts;
  for (const int t : {1, 2, 4, 8, 16})
    if (t <= hardware_threads) counts.push_back(t);
  return counts;
}

// The shapes of fr1_cpu and FR1's three configurations there: the default
// tile, LAPACK-sized tiles for the lapack backend, the reference backend.
const std::vector<Shape> kFr1Shapes = {{1024, 1024}, {2048, 2048}, {4096, 4096}, {65536, 64}, {262144, 32}};

std::vector<BenchCase> fr1_configurations(const std::string& stage, const Shape& s) {
  BenchCase small_tiles = make(stage, s);  // the default problem's tile
  BenchCase large_tiles = make(stage, s);  // LAPACK-sized tiles for the lapack backend
  large_tiles.tile = s.second >= 256 ? 256 : 64;
  large_tiles.inner_block = large_tiles.tile == 256 ? 64 : 32;
  BenchCase reference = make(stage, s);
  reference.backend = "reference";
  return {small_tiles, large_tiles, reference};
}

// FR1, both backends, against single-threaded LAPACK.
void add_fr1_cpu(std::vector<BenchCase>& cases) {
  for (const Shape& s : kFr1Shapes) {
    cases.push_back(make("lapack", s));
    for (const BenchCase& c : fr1_configurations("fr1", s)) cases.push_back(c);
  }
}

// FR1 against FR2 on one worker, flat tree, on fr1_cpu's shapes and
// configurations (FR1's choice of ready tasks should cost within 1.5× of
// FR2's). Both factor the same tasks bit for bit; only the schedulers
// differ. No residual check (the results are FR1's of fr1_cpu).
void add_fr1_fr2_serial(std::vector<BenchCase>& cases) {
  for (const Shape& s : kFr1Shapes) {
    const std::vector<BenchCase> fr1 = fr1_configurations("fr1", s), fr2 = fr1_configurations("fr2", s);
    for (size_t c = 0; c < fr1.size(); ++c)
      for (BenchCase peer : {fr1[c], fr2[c]}) {  // each pair back to back
        peer.threads = 1;
        peer.check = false;
        cases.push_back(peer);
      }
  }
}

// FR2 thread sweep against OpenBLAS dgeqrf on as many threads.
// Tile and inner block per shape: the fastest on 16 threads of the GPU
// machine's CPU among a few candidates (square: 128/32 … 320/64; tall:
// b = n or a divisor of it, ib 16–64), measured just before the committed
// report/data/fr2_cpu.csv in the same device call.
void add_fr2_cpu(std::vector<BenchCase>& cases, int hardware_threads) {
  const std::vector<std::pair<Shape, std::pair<int, int>>> tuned = {
      {{2048, 2048}, {128, 32}},
      {{4096, 4096}, {128, 32}},
      {{8192, 8192}, {192, 48}},
      {{262144, 32}, {32, 16}},
      {{262144, 64}, {64, 16}},
      {{262144, 256}, {256, 32}},
  };
  for (const auto& [s, tiling] : tuned)
    for (const int t : thread_counts(hardware_threads)) {
      BenchCase lapack = make("lapack", s);
      lapack.threads = t;
      cases.push_back(lapack);
      const std::vector<std::string> trees =
          tall_skinny(s) ? std::vector<std::string>{"flat", "binary", "greedy"} : std::vector<std::string>{"flat"};
      for (const std::string& tree : trees) {
        BenchCase fr2 = make("fr2", s);
        fr2.threads = t;
        fr2.tree = tree;
        fr2.tile = tiling.first;
        fr2.inner_block = tiling.second;
        cases.push_back(fr2);
      }
    }
}

// A candidate of the CPU's tile table: FR1 on one thread (as a batch's
// matrices and the library on one thread run), FR2 on more; no residuals.
BenchCase tile_candidate(int threads, Shape s, int tile, int ib, const std::string& tree) {
  BenchCase c = with_tiling(make(threads == 1 ? "fr1" : "fr2", s), tile, ib, tree, threads);
  c.check = false;
  return c;
}

// The tall half of the CPU's tile table on `threads` threads: matrices of
// 2^23 elements with n from 32 to 512, every tile, inner block and tree
// (flat on one thread; flat, binary and hierarchical, one flat domain per
// thread, on more), and the tsqr tree (one row block per thread, its
// inner block 16 or 32; the tile, n, only bounds the inner block).
void add_tall_choice(std::vector<BenchCase>& cases, int threads) {
  for (const int n : {32, 64, 128, 256, 512}) {
    const Shape s{(int64_t(1) << 23) / n, n};
    for (const int tile : {32, 64, 128, 256, 512})
      for (const int ib : {16, 32})
        for (const std::string tree : {"flat", "binary", "hierarchical"})
          if (tile <= n && ib <= tile && (threads > 1 || tree == "flat"))
            cases.push_back(tile_candidate(threads, s, tile, ib, tree));
    for (const int ib : {16, 32}) cases.push_back(tile_candidate(threads, s, n, ib, "tsqr"));
  }
}

// The sweep that calibrates the CPU's tile table (common/factorization/tile_choice.cpp):
// every candidate tile and inner block on squares from 64 to 4096 and the
// tall candidates above, for each thread count up to the machine's. The
// table's rows are the fastest candidate of each shape and thread count
// (scripts/tile-table).
void add_tile_choice_cpu(std::vector<BenchCase>& cases, int hardware_threads) {
  const std::vector<int> squares = {64, 128, 256, 512, 1024, 2048, 4096};
  for (const int t : thread_counts(hardware_threads)) {
    for (const int n : squares)
      for (const int tile : {32, 48, 64, 96, 128, 192, 256, 384})
        for (const int ib : {16, 32, 64})
          if (tile <= n && ib <= tile && (tile <= 64 || ib >= 32) && (tile >= 128 || ib <= 32))
            cases.push_back(tile_candidate(t, {n, n}, tile, ib, "flat"));
    add_tall_choice(cases, t);
  }
}

// The tall half of tile_choice_cpu alone.
void add_tall_choice_cpu(std::vector<BenchCase>& cases, int hardware_threads) {
  for (const int t : thread_counts(hardware_threads)) add_tall_choice(cases, t);
}

// The tall matrices against OpenBLAS dgeqrf on as many threads, each pair
// back to back: 262144 x 64 and 10^6 x 64 on two threads and on every
// hardware thread, the tsqr tree (inner block 16) and, for comparison, the
// tile tree the table chose before it (hierarchical, tile 64, inner block 16).
void add_tsqr_cpu(std::vector<BenchCase>& cases, int hardware_threads) {
  std::vector<int> threads = {2};
  if (hardware_threads > 2) threads.push_back(hardware_threads);
  for (const Shape& s : std::vector<Shape>{{262144, 64}, {1000000, 64}})
    for (const int t : threads) {
      BenchCase lapack = make("lapack", s);
      lapack.threads = t;
      cases.push_back(lapack);
      for (const std::string tree : {"tsqr", "hierarchical"}) {
        BenchCase fr2 = make("fr2", s);
        fr2.threads = t;
        fr2.tree = tree;
        fr2.tile = 64;
        fr2.inner_block = 16;
        cases.push_back(fr2);
      }
    }
}

// FR3 and cuSOLVER on the reference shapes, both precisions.
void add_fr3_gpu(std::vector<BenchCase>& cases) {
  for (const std::string precision : {"double", "float"})
    for (const std::string stage : {"cusolver", "fr3"})
      for (const BenchCase& c : gpu_anchor_cases(stage, precision)) cases.push_back(c);
  for (const std::string precision : {"double", "float"})
    for (const std::string stage : {"cusolver", "fr3"}) cases.push_back(largest_square(stage, precision));
}

// FR3's knobs: executors per SM and the round-robin weight of the double
// tasks, on one square and one tall-skinny shape (report/data/fr3_knobs.csv).
// The knobs change only the schedule, not the result: no residual check.
void add_fr3_knobs(std::vector<BenchCase>& cases) {
  for (const Shape& s : std::vector<Shape>{{1024, 1024}, {262144, 64}}) {
    cases.push_back(make("cusolver", s));
    for (const int executors : {1, 2, 4})
      for (const double weight : {1.0, 1.5, 2.0, 3.0, 4.0}) {
        BenchCase c = make("fr3", s);
        c.executors_per_sm = executors;
        c.double_task_weight = weight;
        c.check = false;
        cases.push_back(c);
      }
  }
}

// FR4 at the tiles and tree it chooses for itself (--tile auto: tile 0,
// the tree of the GPU's table) and cuSOLVER beside it: squares from 512² to
// 32768² in both precisions, the 262144-row tall matrices from 32 to 1024
// columns in double. The tree each case names is the table's for its shape
// (common/factorization/tile_choice.cpp), so the CSV says which one ran.
void add_fr4_qr(std::vector<BenchCase>& cases) {
  const auto add = [&](Shape s, const std::string& precision) {
    cases.push_back(make("cusolver", s, precision));
    BenchCase c = make("fr4", s, precision);
    c.tile = 0;
    const Precision p = precision == "float" ? Precision::single_precision : Precision::double_precision;
    c.tree = tree_name(choose_tile({TileTarget::gpu, s.first, s.second, p, 1, std::string(), 1}).tree);
    cases.push_back(c);
  };
  for (const std::string precision : {"double", "float"})
    for (const int64_t n : {512, 1024, 2048, 4096, 8192, 16384, 32768}) add({n, n}, precision);
  for (const int64_t n : {32, 64, 128, 256, 512, 1024}) add({262144, n}, "double");
  for (BenchCase& c : cases) c.check = false;
}

// The sweep that calibrates the GPU's tile table (common/factorization/tile_choice.cpp):
// FR4 with the warp kernels' tile 32 and the block kernels' 64, 128 and
// 256 (inner block 32) where each could win, cuSOLVER beside it, both
// precisions on squares and double on tall matrices (binary tree). The
// committed report/data/tile_choice_gpu_h100.csv ran these cases with
// --budget 3 --repeats 5 --no-check.
void add_tile_choice_gpu(std::vector<BenchCase>& cases) {
  const auto add = [&](const std::string& stage, Shape s, const std::string& precision, int tile,
                       const std::string& tree) {
    BenchCase c = make(stage, s, precision);
    c.tile = tile;
    c.tree = tree;
    c.check = false;
    cases.push_back(c);
  };
  for (const int n : {512, 1024, 2048, 4096})
    for (const std::string precision : {"double", "float"}) {
      add("cusolver", {n, n}, precision, 0, "flat");
      for (const int tile : {32, 64}) add("fr4", {n, n}, precision, tile, "flat");
    }
  add("cusolver", {8192, 8192}, "double", 0, "flat");
  for (const std::string tree : {"flat", "greedy"})
    for (const int tile : {64, 128}) add("fr4", {8192, 8192}, "double", tile, tree);
  add("cusolver", {16384, 16384}, "double", 0, "flat");
  for (const int tile : {128, 256}) add("fr4", {16384, 16384}, "double", tile, "flat");
  for (const int n : {8192, 16384}) {
    add("cusolver", {n, n}, "float", 0, "flat");
    for (const int tile : {32, 128}) add("fr4", {n, n}, "float", tile, "flat");
  }
  for (const int n : {32, 64, 256, 1024}) {
    add("cusolver", {262144, n}, "double", 0, "flat");
    for (const int tile : {32, 64, 128}) add("fr4", {262144, n}, "double", tile, "binary");
  }
}

// A few minutes on the GPU machine: every stage and both peers.
void add_quick(std::vector<BenchCase>& cases, int hardware_threads) {
  for (const Shape& s : std::vector<Shape>{{256, 256}, {1024, 1024}, {65536, 64}}) {
    const std::string tree = tall_skinny(s) ? "binary" : "flat";
    cases.push_back(make("lapack", s));
    BenchCase lapack_all = make("lapack", s);
    lapack_all.threads = hardware_threads;
    cases.push_back(lapack_all);
    cases.push_back(make("fr1", s));
    BenchCase fr2 = make("fr2", s);
    fr2.threads = hardware_threads;
    fr2.tree = tree;
    cases.push_back(fr2);
    cases.push_back(make("cusolver", s));
    cases.push_back(make("fr3", s));
    BenchCase fr4 = make("fr4", s);
    fr4.tree = tree;
    cases.push_back(fr4);
  }
  cases.push_back(make("cusolver", {1024, 1024}, "float"));
  cases.push_back(make("fr3", {1024, 1024}, "float"));
}

}  // namespace

std::vector<std::string> preset_names() {
  return {"quick",           "fr1_cpu",         "fr1_fr2_serial", "fr2_cpu",   "tile_choice_cpu",
          "tall_choice_cpu", "tsqr_cpu",        "tile_choice_gpu", "fr3_gpu",  "fr3_knobs",
          "fr4_qr"};
}

std::vector<BenchCase> preset_cases(const std::string& name, int hardware_threads) {
  std::vector<BenchCase> cases;
  if (name == "quick") add_quick(cases, hardware_threads);
  else if (name == "fr1_cpu") add_fr1_cpu(cases);
  else if (name == "fr1_fr2_serial") add_fr1_fr2_serial(cases);
  else if (name == "fr2_cpu") add_fr2_cpu(cases, hardware_threads);
  else if (name == "tile_choice_cpu") add_tile_choice_cpu(cases, hardware_threads);
  else if (name == "tall_choice_cpu") add_tall_choice_cpu(cases, hardware_threads);
  else if (name == "tsqr_cpu") add_tsqr_cpu(cases, hardware_threads);
  else if (name == "tile_choice_gpu") add_tile_choice_gpu(cases);
  else if (name == "fr3_gpu") add_fr3_gpu(cases);
  else if (name == "fr3_knobs") add_fr3_knobs(cases);
  else if (name == "fr4_qr") add_fr4_qr(cases);
  else throw InputError("unknown preset '" + name + "'");
  return cases;
}

}  // namespace tiledqr::bench
