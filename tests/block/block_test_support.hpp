// What the block-kernel tests share (tests/block): device arrays, LAPACK's
// tile routines by precision, norms and the checks on untouched entries.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/block/compact_wy_apply.cuh"
#include "random_values.hpp"
#include "test_support.hpp"

namespace tiledqr::block_tests {

namespace block = kernels::block;

inline void cuda_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// A device copy of a host vector, copied back by download().
template <typename T>
struct DeviceArray {
  T* data = nullptr;
  std::size_t count = 0;
  explicit DeviceArray(const std::vector<T>& host) : count(host.size()) {
    cuda_ok(cudaMalloc(&data, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc");
    cuda_ok(cudaMemcpy(data, host.data(), count * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(data); }
  std::vector<T> download() const {
    std::vector<T> host(count);
    cuda_ok(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }
};

// LAPACK's routines by precision (the _work forms: no NaN scan of inputs).
inline lapack_int tpqrt(int m, int n, int ib, double* a, int lda, double* b, int ldb, double* t, int ldt,
                        int l = 0) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt, work.data());
}
inline lapack_int tpqrt(int m, int n, int ib, float* a, int lda, float* b, int ldb, float* t, int ldt,
                        int l = 0) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt, work.data());
}
inline lapack_int tpmqrt(char trans, int m, int n, int k, int ib, const double* v, int ldv,
                         const double* t, int ldt, double* a, int lda, double* b, int ldb, int l = 0) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, work.data());
}
inline lapack_int tpmqrt(char trans, int m, int n, int k, int ib, const float* v, int ldv,
                         const float* t, int ldt, float* a, int lda, float* b, int ldb, int l = 0) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, work.data());
}
inline lapack_int geqrt(int m, int n, int ib, double* a, int lda, double* t, int ldt) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, work.data());
}
inline lapack_int geqrt(int m, int n, int ib, float* a, int lda, float* t, int ldt) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, work.data());
}
inline lapack_int gemqrt(char trans, int m, int n, int k, int ib, const double* v, int ldv, const double* t,
                  int ldt, double* c, int ldc) {
  std::vector<double> work(std::size_t(ib) * n);
  return LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc,
                              work.data());
}
inline lapack_int gemqrt(char trans, int m, int n, int k, int ib, const float* v, int ldv, const float* t,
                  int ldt, float* c, int ldc) {
  std::vector<float> work(std::size_t(ib) * n);
  return LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc,
                              work.data());
}

// ‖x − y‖_F over the (rows, cols) part of two col-major arrays of leading
// dimension ld, and ‖x‖_F.
template <typename T>
double difference(int rows, int cols, int ld, const std::vector<T>& x, const std::vector<T>& y) {
  double sum = 0;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) {
      const double d = double(x[std::size_t(c) * ld + r]) - double(y[std::size_t(c) * ld + r]);
      sum += d * d;
    }
  return std::sqrt(sum);
}

template <typename T>
double norm(int rows, int cols, int ld, const std::vector<T>& x) {
  return difference(rows, cols, ld, x, std::vector<T>(x.size(), T(0)));
}

// True when every entry outside (rows, cols) is bit for bit the same.
template <typename T>
bool padding_unchanged(int rows, int ld, const std::vector<T>& before, const std::vector<T>& after) {
  for (std::size_t i = 0; i < before.size(); ++i)
    if (int(i % ld) >= rows && std::memcmp(&before[i], &after[i], sizeof(T)) != 0) return false;
  return true;
}

template <typename T>
double epsilon() {
  return std::numeric_limits<T>::epsilon() / 2;
}

// Each T_b's strict lower part (and rows past the last block's width) → NaN.
template <typename T>
void poison_t(int ib, int k, int ldt, std::vector<T>& t) {
  for (int j = 0; j < k; ++j) {
    const int jj = j % ib;
    const int kb = std::min(ib, k - (j - jj));
    for (int i = 0; i < ib; ++i)
      if (i > jj || i >= kb) t[std::size_t(j) * ldt + i] = std::numeric_limits<T>::quiet_NaN();
  }
}



// The smallest even number ≥ x.
inline int even_above(int x) { return x + (x & 1); }

// Tile shapes of the checks: full and ragged (m, n below NB; k not a
// multiple of IB).
struct Shape {
  int m, n, k;
};

template <int NB>
std::vector<Shape> shapes() {
  return {{NB, NB, NB}, {NB - 13, NB, NB}, {NB, NB - 21, NB - 5}, {NB / 2 + 3, 7, NB / 2 - 1}, {1, 1, 1}};
}

// The square root of the sum of value(at)² over the entries (r, c),
// r < rows, c < cols, where keep(r, c); at = c·ld + r.
template <typename Keep, typename Value>
double root_sum_of_squares(int rows, int cols, int ld, Keep keep, Value value) {
  double sum = 0;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      if (keep(r, c)) {
        const double d = value(std::size_t(c) * ld + r);
        sum += d * d;
      }
  return std::sqrt(sum);
}

// ‖x − y‖_F and ‖x‖_F over the entries (r, c) where keep(r, c).
template <typename T, typename Keep>
double difference_where(int rows, int cols, int ld, const std::vector<T>& x, const std::vector<T>& y, Keep keep) {
  return root_sum_of_squares(rows, cols, ld, keep, [&](std::size_t at) { return double(x[at]) - double(y[at]); });
}

template <typename T, typename Keep>
double norm_where(int rows, int cols, int ld, const std::vector<T>& x, Keep keep) {
  return root_sum_of_squares(rows, cols, ld, keep, [&](std::size_t at) { return double(x[at]); });
}

}  // namespace tiledqr::block_tests
