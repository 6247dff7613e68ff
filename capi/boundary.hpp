// The C interface's boundary (include/tiledqr/tiledqr.h): every C entry point
// runs its body through guarded(), which turns each exception into a
// tiledqr_status and keeps its message for tiledqr_last_error(). Included by
// libtiledqr and libtiledqr_gpu alike.
//
// Everything that throws or catches here is inline, so each shared library
// catches and translates the exceptions that reach its C entry points with
// its own code, and its argument checks throw and are caught within it.
// Nothing is rethrown across a library boundary: a rethrow in one library
// of an exception caught in another ends in std::terminate where the two do
// not share the C++ runtime's exception state. Only the record of the last
// error (fail, clear_error), which throws nothing, is one copy in
// libtiledqr.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "errors.hpp"
#include "factorization.hpp"
#include "options.hpp"
#include "tiledqr/tiledqr.h"

namespace tiledqr::capi {

// Records `message` as this thread's last error and returns `status`.
int fail(int status, const std::string& message);
// Clears this thread's last error (at the start of every C call).
void clear_error();

// A new handle owning `f` (libtiledqr_gpu hands over downloaded factors).
tiledqr_factors* make_factors(std::unique_ptr<Factorization<double>> f);
tiledqr_factors* make_factors(std::unique_ptr<Factorization<float>> f);

// The Tree of a tiledqr_options.tree value; TILEDQR_TREE_AUTO gives
// `automatic`. InputError for any other value.
inline Tree tree_option(int tree, Tree automatic) {
  switch (tree) {
    case TILEDQR_TREE_AUTO: return automatic;
    case TILEDQR_TREE_FLAT: return Tree::flat;
    case TILEDQR_TREE_BINARY: return Tree::binary;
    case TILEDQR_TREE_GREEDY: return Tree::greedy;
    case TILEDQR_TREE_TSQR: return Tree::tsqr;
    default:
      throw InputError("options.tree must be one of TILEDQR_TREE_AUTO/FLAT/BINARY/GREEDY/TSQR, got " +
                       std::to_string(tree));
  }
}

// The leading dimension's name of matrix `name`, as LAPACK spells it: A → lda, dA → ldda.
inline std::string ld_name(const std::string& name) {
  std::string ld = "ld" + name;
  std::transform(ld.begin(), ld.end(), ld.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ld;
}

// InputError unless A (m, n), lda is a matrix: m, n >= 1, lda >= m, not NULL.
inline void check_shape(int64_t m, int64_t n, const void* a, int64_t lda, const char* name) {
  if (m < 1 || n < 1)
    throw InputError("the matrix must be at least 1x1, got " + std::to_string(m) + "x" + std::to_string(n));
  if (lda < m) throw InputError(ld_name(name) + " (" + std::to_string(lda) + ") must be >= m (" + std::to_string(m) + ")");
  if (!a) throw InputError(std::string(name) + " is NULL");
}

// The matrix `name` (m, n), ld, checked as LAPACK does: m, n ≥ 0,
// ld ≥ max(1, m), not NULL unless empty.
inline void check_matrix(int64_t m, int64_t n, const void* a, int64_t ld, const std::string& name) {
  if (m < 0 || n < 0) throw InputError("m and n must be >= 0, got " + std::to_string(m) + "x" + std::to_string(n));
  if (ld < std::max<int64_t>(1, m))
    throw InputError(ld_name(name) + " (" + std::to_string(ld) + ") must be >= max(1, m) (m = " + std::to_string(m) +
                     ")");
  if (m > 0 && n > 0 && !a) throw InputError(name + " is NULL");
}

// A stack of `batch` matrices `name` (m, n), ld, matrix i at a + i·stride
// (the argument stride_x, x the matrix's letter: A, dA → stride_a).
inline void check_batch(int64_t batch, int64_t m, int64_t n, const void* a, int64_t ld, int64_t stride,
                        const std::string& name) {
  if (batch < 0) throw InputError("batch must be >= 0, got " + std::to_string(batch));
  check_matrix(m, n, batch > 0 ? a : &batch, ld, name);
  const char letter = char(std::tolower(static_cast<unsigned char>(name.back())));
  if (batch > 1 && m > 0 && n > 0 && stride < ld * n)
    throw InputError(std::string("stride_") + letter + " (" + std::to_string(stride) + ") must be >= " +
                     ld_name(name) + " * n (" + std::to_string(ld * n) + ")");
}

// InputError unless B (m, nrhs), ldb is a block of right-hand sides (or Q's
// columns): nrhs ≥ 0, ldb ≥ max(1, m), not NULL unless empty. `name` is B or Q
// (ldb, ldq), or dB (lddb).
inline void check_rhs(int64_t m, int64_t nrhs, const void* b, int64_t ldb, const char* name) {
  if (nrhs < 0) throw InputError("nrhs must be >= 0, got " + std::to_string(nrhs));
  std::string ld = "ld" + std::string(name);
  std::transform(ld.begin(), ld.end(), ld.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ldb < std::max<int64_t>(1, m))
    throw InputError(ld + " (" + std::to_string(ldb) + ") must be >= m (" + std::to_string(m) + ")");
  if (nrhs > 0 && !b) throw InputError(std::string(name) + " is NULL");
}

// ?gels' checks beyond A's own: m ≥ n (or m = 0), and B (max(m, n), nrhs), ldb.
inline void check_least_squares(int64_t m, int64_t n, int64_t nrhs, const void* b, int64_t ldb, const char* name) {
  if (m < n && m > 0)
    throw InputError("least squares needs m >= n (an underdetermined system has no unique solution here), got " +
                     std::to_string(m) + "x" + std::to_string(n));
  check_rhs(std::max(m, n), nrhs, b, ldb, name);
}

// ?gels' rank check on R's diagonal r_ii = diagonal[i·stride], i < n ≤ m:
// TILEDQR_RANK_DEFICIENT, with its message recorded, when some |r_ii| ≤
// max(m, n)·ε·max_j |r_jj| (LAPACK's usual scale); TILEDQR_SUCCESS otherwise.
template <typename T>
int rank_status(const T* diagonal, int64_t stride, int64_t m, int64_t n) {
  T largest = 0;
  for (int64_t j = 0; j < n; ++j) largest = std::max(largest, std::abs(diagonal[j * stride]));
  const T tolerance = T(std::max(m, n)) * std::numeric_limits<T>::epsilon() * largest;
  for (int64_t i = 0; i < n; ++i)
    if (std::abs(diagonal[i * stride]) <= tolerance)
      return fail(TILEDQR_RANK_DEFICIENT, "A is rank-deficient: |R(" + std::to_string(i + 1) + "," +
                                              std::to_string(i + 1) + ")| <= max(m,n)*eps*max|R(j,j)|");
  return TILEDQR_SUCCESS;
}

// Whether column x (m) holds only finite entries: x − x is 0 for a finite
// x and NaN otherwise, a branch-free scan the compiler vectorises.
template <typename T>
bool finite_column(const T* x, int64_t m) {
  int64_t bad = 0;
  for (int64_t i = 0; i < m; ++i) bad |= int64_t(x[i] - x[i] != T(0));
  return bad == 0;
}

// Whether A (m, n), col-major, lda holds only finite entries.
template <typename T>
bool all_finite(const T* a, int64_t m, int64_t n, int64_t lda) {
  for (int64_t j = 0; j < n; ++j)
    if (!finite_column(a + j * lda, m)) return false;
  return true;
}

// A NaN or infinity would spread through every later tile unnoticed:
// InputError naming the first one in A (m, n), col-major, lda.
template <typename T>
void check_finite(const T* a, int64_t m, int64_t n, int64_t lda, const char* name) {
  for (int64_t j = 0; j < n; ++j) {
    // The entry is looked for only when the scan finds one.
    const T* column = a + j * lda;
    if (finite_column(column, m)) continue;
    for (int64_t i = 0; i < m; ++i)
      if (!std::isfinite(column[i]))
        throw InputError(std::string(name) + "(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                         ") is not finite (NaN or infinity)");
  }
}

// body() returns a tiledqr_status; an exception becomes the status of its
// type, caught and translated here, in the library that instantiates this.
template <typename Body>
int guarded(Body&& body) noexcept {
  try {
    clear_error();
    return body();
  } catch (const InputError& e) {
    return fail(TILEDQR_ERR_INVALID_ARGUMENT, e.what());
  } catch (const StallError& e) {
    return fail(TILEDQR_ERR_STALLED, e.what());
  } catch (const GpuError& e) {
    return fail(TILEDQR_ERR_GPU, e.what());
  } catch (const std::bad_alloc&) {
    return fail(TILEDQR_ERR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return fail(TILEDQR_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(TILEDQR_ERR_INTERNAL, "an exception of unknown type");
  }
}

}  // namespace tiledqr::capi
