// The size of a staged copy of a tsqrt factor (CompactWy::staged in
// compact_wy_apply.cuh), for the host code that allocates it: each inner
// block's V_b (NB, IB) and T_b (IB, IB + 2) as an engine stage holds them.
#pragma once

#include <cstddef>

namespace tiledqr::kernels::block {

// Elements of one tile's staged copy for tile nb and inner block ib: tiles
// of 256 only, where the staged copies were measured (README.md); 0
// elsewhere, where the update kinds stage from the tiles themselves.
constexpr std::size_t staged_tile_elements(int nb, int ib) {
  return nb == 256 ? std::size_t(nb / ib) * std::size_t(nb * ib + ib * (ib + 2)) : 0;
}

}  // namespace tiledqr::kernels::block
