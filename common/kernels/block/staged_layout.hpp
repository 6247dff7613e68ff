// The size of a staged copy of a tsqrt factor (CompactWy::staged in
// compact_wy_apply.cuh), for the host code that allocates it: each inner
// block's V_b (NB, IB) and T_b (IB, IB + 2) as an engine stage holds them.
#pragma once

#include <cstddef>

namespace tiledqr::kernels::block {

// Elements of one tile's staged copy for tile nb, inner block ib and
// scalars of element_bytes: tiles of 256, and single precision's tiles of
// 64, where the staged copies were measured faster (README.md; double at
// tile 64 was not: 8192² 46.5 ms against 46.2); 0 elsewhere, where the
// update kinds stage from the tiles themselves.
constexpr std::size_t staged_tile_elements(int nb, int ib, std::size_t element_bytes) {
  const bool staged = nb == 256 || (nb == 64 && ib <= 32 && element_bytes == 4);
  return staged ? std::size_t(nb / ib) * std::size_t(nb * ib + ib * (ib + 2)) : 0;
}

}  // namespace tiledqr::kernels::block
