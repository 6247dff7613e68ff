// ScaLAPACK p?geqrf timing (scalapack_peer.hpp).
#include "scalapack_peer.hpp"

#include <cblas.h>
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "errors.hpp"

extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* context, const int* lld, int* info);
void pdgeqrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desc,
              double* tau, double* work, const int* lwork, int* info);
void psgeqrf_(const int* m, const int* n, float* a, const int* ia, const int* ja, const int* desc,
              float* tau, float* work, const int* lwork, int* info);
}

namespace tiledqr::distributed {
namespace {

void geqrf(const int* m, const int* n, double* a, const int* desc, double* tau, double* work,
           const int* lwork, int* info) {
  const int one = 1;
  pdgeqrf_(m, n, a, &one, &one, desc, tau, work, lwork, info);
}

void geqrf(const int* m, const int* n, float* a, const int* desc, float* tau, float* work,
           const int* lwork, int* info) {
  const int one = 1;
  psgeqrf_(m, n, a, &one, &one, desc, tau, work, lwork, info);
}

}  // namespace

template <typename T>
PeerTiming time_scalapack_geqrf(int64_t m64, int64_t n64, const ProcessGrid& grid,
                                const std::vector<int>& blocks, int threads, const EntrySource& source) {
  if (m64 > std::numeric_limits<int>::max() || n64 > std::numeric_limits<int>::max())
    throw InputError("the ScaLAPACK peer takes sizes below 2^31");
  const int m = int(m64), n = int(n64), zero = 0;
  int context = 0;
  Cblacs_get(-1, 0, &context);
  Cblacs_gridinit(&context, "Row", grid.rows, grid.cols);
  int rows = 0, cols = 0, my_row = 0, my_col = 0;
  Cblacs_gridinfo(context, &rows, &cols, &my_row, &my_col);
  openblas_set_num_threads(threads);
  PeerTiming best;
  for (const int nb : blocks) {
    const int local_rows = numroc_(&m, &nb, &my_row, &zero, &grid.rows);
    const int local_cols = numroc_(&n, &nb, &my_col, &zero, &grid.cols);
    const int lld = std::max(1, local_rows);
    int desc[9], info = 0;
    descinit_(desc, &m, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
    std::vector<T> a(size_t(lld) * size_t(std::max(1, local_cols)), T(0));  // (lld, local_cols)
    double a_norm2 = 0;
    source([&](int64_t c) { return int(c / nb % grid.cols) == my_col; },
           [&](int64_t r, int64_t c, double x) {
             if (int(r / nb % grid.rows) != my_row) return;
             const int64_t lr = r / (int64_t(nb) * grid.rows) * nb + r % nb;
             const int64_t lc = c / (int64_t(nb) * grid.cols) * nb + c % nb;
             a[size_t(lr + lc * lld)] = T(x);
             a_norm2 += double(T(x)) * double(T(x));
           });
    std::vector<T> tau(size_t(std::max(1, local_cols)));
    T query = 0;
    const int minus_one = -1;
    geqrf(&m, &n, a.data(), desc, tau.data(), &query, &minus_one, &info);
    const int lwork = int(query) + 1;
    std::vector<T> work(static_cast<size_t>(lwork));
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    geqrf(&m, &n, a.data(), desc, tau.data(), work.data(), &lwork, &info);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (info != 0) throw std::runtime_error("p?geqrf returned info " + std::to_string(info));
    // ‖R‖_F = ‖A‖_F since Q is orthogonal: a check that the peer's R is real.
    double norms[2] = {a_norm2, 0};
    for (int64_t lc = 0; lc < local_cols; ++lc)
      for (int64_t lr = 0; lr < local_rows; ++lr) {
        const int64_t r = (lr / nb * grid.rows + my_row) * nb + lr % nb;
        const int64_t c = (lc / nb * grid.cols + my_col) * nb + lc % nb;
        if (r <= c) norms[1] += double(a[size_t(lr + lc * lld)]) * double(a[size_t(lr + lc * lld)]);
      }
    MPI_Allreduce(MPI_IN_PLACE, norms, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (best.block == 0 || seconds < best.seconds) {
      best.block = nb;
      best.seconds = seconds;
      best.norm_error = std::fabs(std::sqrt(norms[1]) - std::sqrt(norms[0])) / std::sqrt(norms[0]);
    }
  }
  Cblacs_gridexit(context);
  return best;
}

template PeerTiming time_scalapack_geqrf<float>(int64_t, int64_t, const ProcessGrid&,
                                                const std::vector<int>&, int, const EntrySource&);
template PeerTiming time_scalapack_geqrf<double>(int64_t, int64_t, const ProcessGrid&,
                                                 const std::vector<int>&, int, const EntrySource&);

}  // namespace tiledqr::distributed
