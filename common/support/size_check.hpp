// Size arithmetic in 64 bits with overflow checks, and the memory a run
// needs against what this process may use. A request that cannot be
// represented, or that needs more memory than the machine or the process's
// limits allow, fails up front with an InputError that gives both amounts —
// never a bad_alloc, and never a hang in a library that retries its
// allocations (OpenBLAS does, under `ulimit -v`).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "errors.hpp"
#include "options.hpp"

namespace tiledqr {

// Number of tiles of size b that cover `extent` elements: ceil(extent / b).
int32_t tile_count(int64_t extent, int tile);

// Product of `factors` as an element count, checking for overflow and that
// count * element_bytes fits in the machine's physical memory and the
// process's address-space and data limits.
size_t checked_elements(std::initializer_list<int64_t> factors, size_t element_bytes,
                        const std::string& what);

// Physical memory of this machine in bytes.
uint64_t physical_memory_bytes();

// "12.3 GiB" style text for messages.
std::string format_bytes(double bytes);

// What this process may still use: the soft limits of getrlimit
// (RLIMIT_AS: address space, `ulimit -v`; RLIMIT_DATA: data segment and
// private mappings, `ulimit -d`; UINT64_MAX when unlimited), the memory
// available on the machine (MemAvailable, or physical memory; lowered to a
// cgroup's memory.max minus its memory.current where one is set), and what
// the process maps already (VmSize, VmData).
struct MemoryLimits {
  uint64_t address_space = UINT64_MAX;
  uint64_t data = UINT64_MAX;
  uint64_t available = UINT64_MAX;
  uint64_t mapped = 0;       // VmSize
  uint64_t data_mapped = 0;  // VmData
};
MemoryLimits memory_limits();

// The peak memory of one factorisation run by a stage program, part by part.
struct QrMemoryNeed {
  double matrix = 0;     // A, plus the double copy the reader makes when reading a file
  double tiles = 0;      // the tiled copy that is factored
  double t_factors = 0;  // t_local and t_merge
  double schedule = 0;   // task grid (flat) or DAG (trees), and the trace
  double check = 0;      // the residual check and outputs: Q·R, thin Q, R, blocked copies
  double total() const { return matrix + tiles + t_factors + schedule + check; }
};

// The need of an m×n factorisation with `options` (tile, inner block,
// tree, trace) and elements of `element_bytes`; `from_file`: A was read
// from a Matrix Market file (a double copy besides A).
QrMemoryNeed qr_memory_need(int64_t m, int64_t n, const Options& options, size_t element_bytes,
                            bool from_file);

// Throws InputError when `need` does not fit what memory_limits() allows,
// counting besides it each thread's stack and allocator arena and
// OpenBLAS's buffer; the message says how much is needed, by part, and the
// limit it exceeds. Also tries to reserve the address space (without
// touching it), so a limit this estimate misses is still caught here.
void ensure_memory(const QrMemoryNeed& need, int threads, const std::string& what);

// `tile`, or max(m, n) when the tile is larger than the matrix: a larger
// tile only adds zero padding (b² per tile).
int clamp_tile(int tile, int64_t m, int64_t n);

}  // namespace tiledqr
