// Checked size arithmetic and the memory a run needs against what the machine allows; see size_check.hpp.
#include "size_check.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace tiledqr {
namespace {

// Each thread's stack, glibc's malloc arena (64 MiB of address space
// reserved per thread that allocates) and OpenBLAS's buffer of 128 MiB
// (one per thread that calls it; measured: each FR2 worker adds 205 MiB to
// VmPeak). They count against `ulimit -v` although little of them is ever
// touched.
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kArenaBytes = 64 * kMiB;
constexpr double kBlasBufferBytes = 128 * kMiB + 8192;

// Threads of this process now (OpenBLAS starts its own at load time).
int thread_count() {
  std::error_code error;
  int count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    ++count;
  return std::max(count, 1);
}

// A "Key:   123 kB" line of a /proc file, in bytes; 0 when absent.
uint64_t proc_kib_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    uint64_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

// The first number in a one-line file ("max" or absent: UINT64_MAX).
uint64_t file_number(const char* path) {
  std::ifstream in(path);
  uint64_t value = 0;
  if (!(in >> value)) return UINT64_MAX;
  return value;
}

uint64_t soft_limit(int resource) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return uint64_t(limit.rlim_cur);
}

// "3.2 GiB", "12.5 MiB" or "800 KiB": the unit that keeps the number ≥ 1.
std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", bytes, units[unit]);
  return text;
}

std::string limit_text(uint64_t bytes) { return bytes == UINT64_MAX ? "unlimited" : human_bytes(double(bytes)); }

}  // namespace

int32_t tile_count(int64_t extent, int tile) {
  if (tile < 1) throw InputError("tile size must be >= 1, got " + std::to_string(tile));
  if (extent < 1) throw InputError("matrix dimensions must be >= 1, got " + std::to_string(extent));
  // Not (extent + tile − 1) / tile, which overflows for extent near INT64_MAX.
  const int64_t count = extent / tile + (extent % tile != 0 ? 1 : 0);
  if (count > std::numeric_limits<int32_t>::max())
    throw InputError("too many tiles (" + std::to_string(count) + ") for dimension " +
                     std::to_string(extent) + " with tile " + std::to_string(tile));
  return static_cast<int32_t>(count);
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<uint64_t>::max();
  return uint64_t(pages) * uint64_t(page_size);
}

std::string format_bytes(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

size_t checked_elements(std::initializer_list<int64_t> factors, size_t element_bytes,
                        const std::string& what) {
  uint64_t count = 1;
  for (const int64_t f : factors) {
    if (f < 0) throw InputError(what + ": negative size");
    if (f != 0 && count > std::numeric_limits<uint64_t>::max() / uint64_t(f))
      throw InputError(what + ": size overflows 64-bit arithmetic");
    count *= uint64_t(f);
  }
  const double bytes = double(count) * double(element_bytes);
  // Below this a failed allocation is a std::bad_alloc like any other: the
  // system calls of the checks cost more than the small factorisations a
  // batch is made of.
  constexpr double kCheckedBytes = 16.0 * 1024 * 1024;
  if (bytes <= kCheckedBytes) return static_cast<size_t>(count);
  const double available = double(physical_memory_bytes());
  if (bytes > available)
    throw InputError(what + " needs " + format_bytes(bytes) + " of host memory, " +
                     format_bytes(available) + " available");
  const double limit = double(std::min(soft_limit(RLIMIT_AS), soft_limit(RLIMIT_DATA)));
  if (bytes > limit)
    throw InputError(what + " needs " + format_bytes(bytes) + ", more than this process's memory limit of " +
                     format_bytes(limit) + " (ulimit -v / -d)");
  return static_cast<size_t>(count);
}

MemoryLimits memory_limits() {
  MemoryLimits limits;
  limits.address_space = soft_limit(RLIMIT_AS);
  limits.data = soft_limit(RLIMIT_DATA);
  const uint64_t available = proc_kib_field("/proc/meminfo", "MemAvailable");
  limits.available = available > 0 ? available : physical_memory_bytes();
  const uint64_t cgroup_max = file_number("/sys/fs/cgroup/memory.max");
  if (cgroup_max != UINT64_MAX) {
    const uint64_t current = file_number("/sys/fs/cgroup/memory.current");
    const uint64_t used = current == UINT64_MAX ? 0 : current;
    limits.available = std::min(limits.available, cgroup_max > used ? cgroup_max - used : 0);
  }
  // Threads already running (OpenBLAS's own, started at load time) map
  // their buffer and malloc arena when they get to it, before or after this
  // measure (VmSize differed by 128 MiB from run to run, and the run hung
  // whenever it was the smaller): one of each is counted for every such
  // thread, which may count them twice but never misses them.
  const uint64_t arenas = uint64_t(thread_count() - 1) * uint64_t(kArenaBytes + kBlasBufferBytes);
  limits.mapped = proc_kib_field("/proc/self/status", "VmSize") + arenas;
  limits.data_mapped = proc_kib_field("/proc/self/status", "VmData") + arenas;
  return limits;
}

QrMemoryNeed qr_memory_need(int64_t m, int64_t n, const Options& options, size_t element_bytes,
                            bool from_file) {
  QrMemoryNeed need;
  const double e = double(element_bytes);
  const double b = double(options.tile);
  const double ib = double(options.effective_inner_block());
  const double p = std::ceil(double(m) / b), q = std::ceil(double(n) / b);
  const double k = double(std::min(m, n));
  const double panels = std::min(p, q);
  need.matrix = double(m) * double(n) * (e + (from_file ? 8.0 : 0.0));
  need.tiles = p * q * b * b * e;
  if (options.tree == Tree::tsqr) {
    // Row blocks instead of tiles: A's copy, two T factors (ib, n) a
    // block, 2P − 1 tasks.
    const double blocks = std::max(1.0, std::min(double(options.tree_domains), std::floor(double(m) / double(n))));
    need.tiles = double(m) * double(n) * e;
    need.t_factors = 2 * blocks * ib * double(n) * e;
    need.schedule = (2 * blocks - 1) * (160 + (options.trace ? 40 : 0));
    need.check = (double(m) * n + double(m) * k + k * double(n) + k * k) * e;
    return need;
  }
  // Merge blocks: Σ_{c<panels} (p − c − 1); local blocks: panels (flat) or
  // Σ (p − c) (trees), each (ib, b).
  const double merge_blocks = panels * (p - 1) - panels * (panels - 1) / 2;
  const double local_blocks = options.tree == Tree::flat ? panels : merge_blocks + panels;
  need.t_factors = (merge_blocks + local_blocks) * ib * b * e;
  // Tasks: each elimination of panel c (p − c for flat, 2(p − c) − 1 for
  // the trees) has its factorisation and q − c − 1 updates.
  double tasks = 0;
  for (double c = 0; c < panels; ++c)
    tasks += (options.tree == Tree::flat ? p - c : 2 * (p - c) - 1) * (q - c);
  // The grid keeps a 12-byte cell per tile and a heap of ready tasks; the
  // DAG about 160 bytes a task while it is built (task, edges both ways,
  // offsets, priority, per-task edge lists); the trace 40 bytes a task.
  need.schedule = options.tree == Tree::flat ? p * q * 12 + 20 * std::min(tasks, p * q) : tasks * 160;
  if (options.trace) need.schedule += tasks * 40;
  // check_factorization holds Q·R (m, n) and the thin Q (m, k) at once,
  // plus R (k, n), QᵀQ (k, k) and apply_q's blocked copy of its argument
  // (p·b rows); writing R or Q later needs no more than that.
  need.check = (double(m) * n + double(m) * k + k * double(n) + k * k + p * b * std::max(double(n), k)) * e;
  return need;
}

void ensure_memory(const QrMemoryNeed& need, int threads, const std::string& what) {
  const MemoryLimits limits = memory_limits();
  const double data = need.total();
  const double extra_threads = double(std::max(threads, 1) - 1);
  const double stacks = extra_threads * double(std::min<uint64_t>(soft_limit(RLIMIT_STACK), 64 * 1024 * 1024));
  const double per_thread = kArenaBytes + kBlasBufferBytes;
  const double address_space =
      double(limits.mapped) + data + kBlasBufferBytes + stacks + extra_threads * per_thread;
  const double data_segment = double(limits.data_mapped) + data + kBlasBufferBytes + extra_threads * per_thread;
  const std::string parts = "matrix " + human_bytes(need.matrix) + ", tiles " + human_bytes(need.tiles) +
                            ", T factors " + human_bytes(need.t_factors) + ", schedule " +
                            human_bytes(need.schedule) + ", check and outputs " + human_bytes(need.check);
  const std::string head = what + " needs about " + human_bytes(data) + " (" + parts + ")";
  if (data > double(limits.available))
    throw InputError(head + "; " + limit_text(limits.available) + " of memory is available");
  if (address_space > double(limits.address_space))
    throw InputError(head + ", " + human_bytes(address_space) +
                     " of address space with the program, its threads and the BLAS buffer; the "
                     "address-space limit (ulimit -v) is " + limit_text(limits.address_space));
  if (data_segment > double(limits.data))
    throw InputError(head + ", " + human_bytes(data_segment) +
                     " of data segment with the program and the BLAS buffer; the data limit (ulimit -d) is " +
                     limit_text(limits.data));
  // Reserve (never touch) what is not mapped yet: a limit the estimate
  // misses fails here, in milliseconds, and not in a retrying allocator.
  if (limits.address_space != UINT64_MAX || limits.data != UINT64_MAX) {
    const size_t probe = size_t(address_space - double(limits.mapped));
    void* reserved = mmap(nullptr, probe, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED)
      throw InputError(head + "; this process cannot map " + human_bytes(double(probe)) +
                       " more (address-space limit " + limit_text(limits.address_space) + ", data limit " +
                       limit_text(limits.data) + ")");
    munmap(reserved, probe);
  }
}

int clamp_tile(int tile, int64_t m, int64_t n) {
  const int64_t largest = std::max(m, n);
  return largest < tile ? int(largest) : tile;
}

}  // namespace tiledqr
