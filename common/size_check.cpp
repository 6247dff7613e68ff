#include "size_check.hpp"

#include <unistd.h>

#include <cstdio>
#include <limits>

namespace tiledqr {

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
  const double available = double(physical_memory_bytes());
  if (bytes > available)
    throw InputError(what + " needs " + format_bytes(bytes) + " of host memory, " +
                     format_bytes(available) + " available");
  return static_cast<size_t>(count);
}

}  // namespace tiledqr
