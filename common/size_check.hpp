// Size arithmetic in 64 bits with overflow checks. A request that cannot be
// represented, or that needs more memory than the machine has, fails up
// front with an InputError that gives both amounts — never a bad_alloc.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "errors.hpp"

namespace tiledqr {

// Number of tiles of size b that cover `extent` elements: ceil(extent / b).
int32_t tile_count(int64_t extent, int tile);

// Product of `factors` as an element count, checking for overflow and that
// count * element_bytes fits in the machine's physical memory.
size_t checked_elements(std::initializer_list<int64_t> factors, size_t element_bytes,
                        const std::string& what);

// Physical memory of this machine in bytes.
uint64_t physical_memory_bytes();

// "12.3 GiB" style text for messages.
std::string format_bytes(double bytes);

}  // namespace tiledqr
