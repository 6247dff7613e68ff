// Accumulation task of the tiled method (one warp): for rows
// i ∈ [row_begin, row_begin + rows_per_task) and the union columns j of one
// chunk of m-block b,
//   partial[i, mr] = Σ_j C[i, j] · (Σ_l e[i, l] e[j, l]) · H[b·32 + mr, j],
// the row-block × column-block task of the EnKF report ("ECE 408 final
// report"), with C[i, j] read from the Toeplitz diagonals, never from a dense
// C. Lane t owns rows row_begin + t + 32·r (r < rows_per_lane) and their sums
// in `acc`, so the lanes never share a word and need no barrier.
#pragma once

namespace tiledqr::enkf {

// acc: (32 · rows_per_lane · h_rows_per_block) doubles of warp scratch;
// entry (lane, r, mr) at (mr · rows_per_lane + r) · 32 + lane.
__device__ inline int accumulator_index(int mr, int r, int lane) {
  return (mr * rows_per_lane + r) * 32 + lane;
}

// One pass over the chunk's columns for members [l0, l0 + LC).
template <int LC>
__device__ void accumulate_members(const TiledParams& p, int64_t row_begin, int l0, int u_begin, int u_end,
                                   double* acc, int lane) {
  double ei[rows_per_lane][LC];  // e[i, l0 .. l0 + LC) of the lane's rows
  int64_t row[rows_per_lane];    // the lane's rows, clamped into range (their ei are 0)
#pragma unroll
  for (int r = 0; r < rows_per_lane; ++r) {
    const int64_t i = row_begin + lane + 32 * r;
    const bool valid = i < p.n;
    row[r] = valid ? i : p.n - 1;
#pragma unroll
    for (int q = 0; q < LC; ++q) ei[r][q] = valid ? __ldg(p.e + i + int64_t(l0 + q) * p.n) : 0.0;
  }
  const double* c_of_offset = p.diagonals + (p.n - 1);  // c_of_offset[i − j] = C[i, j]
  for (int u = u_begin; u < u_end; ++u) {
    const int64_t j = __ldg(p.union_col + u);
    const double* ej = p.e_rows + j * p.l + l0;  // the same address on every lane: a broadcast
    double ejq[LC];
#pragma unroll
    for (int q = 0; q < LC; ++q) ejq[q] = __ldg(ej + q);
    double weight[rows_per_lane];  // C[i, j] · (e eᵀ)[i, j] restricted to the pass's members
#pragma unroll
    for (int r = 0; r < rows_per_lane; ++r) {
      double ensemble = 0;
#pragma unroll
      for (int q = 0; q < LC; ++q) ensemble = fma(ei[r][q], ejq[q], ensemble);
      weight[r] = ensemble * __ldg(c_of_offset + (row[r] - j));
    }
    const int z_end = __ldg(p.union_nz + u + 1);
    for (int z = __ldg(p.union_nz + u); z < z_end; ++z) {
      const int mr = __ldg(p.nz_row + z);
      const double h = __ldg(p.nz_value + z);
#pragma unroll
      for (int r = 0; r < rows_per_lane; ++r) acc[accumulator_index(mr, r, lane)] += weight[r] * h;
    }
  }
}

__device__ inline void accumulate_chunk(const TiledParams& p, const AccumulateArgs& a, double* acc, int lane) {
  const TiledChunk chunk = p.chunks[a.chunk];
  for (int mr = 0; mr < chunk.m_rows; ++mr)
#pragma unroll
    for (int r = 0; r < rows_per_lane; ++r) acc[accumulator_index(mr, r, lane)] = 0.0;

  for (int l0 = 0; l0 < p.l; l0 += max_members_per_pass) {
    const int members = min(max_members_per_pass, p.l - l0);
    // Members as a compile-time count, so ei and ejq stay in registers.
    switch (members) {
      case 1: accumulate_members<1>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 2: accumulate_members<2>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 3: accumulate_members<3>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 4: accumulate_members<4>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 5: accumulate_members<5>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 6: accumulate_members<6>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 7: accumulate_members<7>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 8: accumulate_members<8>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 9: accumulate_members<9>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 10: accumulate_members<10>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      case 11: accumulate_members<11>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
      default: accumulate_members<12>(p, a.row_begin, l0, chunk.u_begin, chunk.u_end, acc, lane); break;
    }
  }
  static_assert(max_members_per_pass == 12, "the switch above covers 1 … 12 members");

  // The chunk's partial slice, (n, m_rows) col-major: coalesced over lanes.
  double* slice = p.partial + chunk.partial_offset;
  for (int mr = 0; mr < chunk.m_rows; ++mr)
#pragma unroll
    for (int r = 0; r < rows_per_lane; ++r) {
      const int64_t i = int64_t(a.row_begin) + lane + 32 * r;
      if (i < p.n) slice[i + int64_t(mr) * p.n] = acc[accumulator_index(mr, r, lane)];
    }
}

}  // namespace tiledqr::enkf
