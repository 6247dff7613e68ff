// The host target's binding of a QR kernel call to its implementation: the
// one place that maps a task kind to a call of kernels/host (reference) or
// kernels/lapack, for the factorisation's tasks and for the apply side.
#pragma once

#include "kernels/host/geqrt.hpp"
#include "kernels/host/ormqr.hpp"
#include "kernels/host/tsmqr.hpp"
#include "kernels/host/tsqrt.hpp"
#include "kernels/lapack/lapack_kernels.hpp"
#include "task.hpp"

namespace tiledqr::kernels {

// The operands of one kernel call; tiles are b × b, col-major.
template <typename T>
struct HostOperands {
  int b;       // tile size
  int nb;      // inner block of the T factors (the LAPACK backend's ib)
  int cols;    // columns the update kinds change: b, or the right-hand sides
  T* v;        // (b, b), ld = b: tile (i, k), factored in place, or V for the update kinds
  T* t;        // T factor (nb, b) of the elimination (τ in its first row for the reference)
  T* top;      // (b, ·), ld_top: tile (piv, k) for tsqrt/ttqrt, row piv of the target for tsmqr/ttmqr
  int ld_top;
  T* row;      // (b, cols), ld_row: row i of the target for ormqr/tsmqr/ttmqr
  int ld_row;
};

// Runs `kind` on `o`. The update kinds apply Qᵀ when `transpose`, else Q;
// they only read v and t.
template <typename T>
void run_host_kernel(TaskKind kind, bool reference, bool transpose, const HostOperands<T>& o) {
  const int b = o.b, nb = o.nb;
  const bool triangle = kind == TaskKind::ttqrt || kind == TaskKind::ttmqr;
  switch (kind) {
    case TaskKind::geqrt:
      if (reference) geqrt(b, b, o.v, b, o.t);
      else lapack_kernels::geqrt(b, b, nb, o.v, b, o.t, nb);
      break;
    case TaskKind::ormqr:
      if (reference) ormqr(transpose, b, o.cols, b, o.v, b, o.t, o.row, o.ld_row);
      else lapack_kernels::gemqrt(transpose, b, o.cols, b, nb, o.v, b, o.t, nb, o.row, o.ld_row);
      break;
    case TaskKind::tsqrt:
    case TaskKind::ttqrt:
      if (reference && triangle) ttqrt(b, b, o.top, o.ld_top, o.v, b, o.t);
      else if (reference) tsqrt(b, b, o.top, o.ld_top, o.v, b, o.t);
      else lapack_kernels::tpqrt(b, b, triangle ? b : 0, nb, o.top, o.ld_top, o.v, b, o.t, nb);
      break;
    case TaskKind::tsmqr:
    case TaskKind::ttmqr:
      if (reference && triangle) ttmqr(transpose, b, o.cols, b, o.v, b, o.t, o.top, o.ld_top, o.row, o.ld_row);
      else if (reference) tsmqr(transpose, b, o.cols, b, o.v, b, o.t, o.top, o.ld_top, o.row, o.ld_row);
      else
        lapack_kernels::tpmqrt(transpose, b, o.cols, b, triangle ? b : 0, nb, o.v, b, o.t, nb, o.top, o.ld_top,
                               o.row, o.ld_row);
      break;
  }
}

}  // namespace tiledqr::kernels
