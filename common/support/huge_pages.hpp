// Transparent huge pages behind large buffers, asked for before their first touch.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tiledqr {

// Asks for transparent huge pages behind the whole 2 MiB pages inside
// [p, p + bytes) before they are first touched: one page fault per 2 MiB
// instead of one per 4 KiB, which matters where faults are expensive (in
// some virtual machines a 4 KiB fault costs tens of microseconds, more than
// parsing or copying the values on the page). Only advice: ignored where
// unsupported.
inline void advise_huge_pages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t huge = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Reserves room for n elements in the empty vector v, untouched, with the
// advice above; the caller then fills it.
template <typename T>
void reserve_with_huge_pages(std::vector<T>& v, size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace tiledqr
