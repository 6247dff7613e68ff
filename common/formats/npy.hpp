// NumPy's .npy format, versions 1.0 and 2.0 (a magic string, a version, a little-endian header
// length, then a Python dict literal giving 'descr', 'fortran_order' and 'shape', padded with spaces
// to a multiple of 64 bytes and ended by '\n', then the raw array).
//
// Reader: dtypes '<f8' and '<f4' (little-endian float64 and float32; float32 is widened exactly),
// C or Fortran order, shape (rows, cols) or (rows,) (a column). The header is validated strictly:
// the three keys exactly once each, nothing else, the padding and the data length exactly as the
// header says. Anything else is an InputError "<path>: <problem>".
//
// Writer: version 1.0 (2.0 when the header would not fit), Fortran order, '<f8' for double and
// '<f4' for float, so numpy.load gives back the same bits.
#pragma once

#include <cstdint>
#include <string>

#include "dense_matrix.hpp"

namespace tiledqr {

// Reads the .npy file at `path` as a column-major double matrix. Sizes beyond physical memory are
// refused before anything is allocated.
DenseMatrix<double> read_npy(const std::string& path);

// Same as read_npy, from the file's bytes; `name` stands for the path in messages.
DenseMatrix<double> parse_npy(const std::string& bytes, const std::string& name);

// The bytes of a .npy file holding the rows x cols column-major matrix `a` (leading dimension lda).
template <typename T>
std::string format_npy(const T* a, int64_t rows, int64_t cols, int64_t lda);

// Writes format_npy's bytes to `path`, through "<path>.tmp" renamed into place once complete.
// Throws InputError naming the path and the errno text when the file cannot be written.
template <typename T>
void write_npy(const std::string& path, const T* a, int64_t rows, int64_t cols, int64_t lda);

// True when `path` ends in ".npy" (any letter case): the stage programs pick the format by it.
bool is_npy_path(const std::string& path);

}  // namespace tiledqr
