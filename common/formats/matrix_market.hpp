// Matrix Market input and output (https://math.nist.gov/MatrixMarket/formats.html).
//
// Reader: object `matrix`; formats `array` and `coordinate`; fields `real` and
// `integer` (integers are converted to double, so magnitudes above 2^53 are
// rounded); symmetry `general`, `symmetric` and `skew-symmetric`, expanded to
// the full matrix. Banner keywords are case-insensitive. "nan" and "inf" are
// accepted as values: rejecting non-finite input is the program's job, which
// can name the position. Anything else is an InputError whose message is
// "<path>:<line>: <problem>" with a 1-based line number.
//
// Writer: always `array real general`, each value in the shortest text that
// reads back to the same value bit for bit (std::to_chars).
//
// Numbers are parsed with std::from_chars and printed with std::to_chars,
// which ignore the locale; the rare forms from_chars refuses (a leading '+',
// hexadecimal, values that underflow) go to strtod and strtoll, which assume
// the "C" locale (the default unless a program calls setlocale). A general
// real array file (a regular file: one read from a pipe is parsed line by
// line) is parsed, and every file written, by as many threads as the
// process has CPUs (available_cpus).
#pragma once

#include <cstdint>
#include <string>

#include "dense_matrix.hpp"
#include "output_file.hpp"

namespace tiledqr {

// Reads the Matrix Market file at `path`. Throws InputError for a file that
// cannot be opened or read and for any unsupported or malformed content. A
// declared size whose storage (rows*cols doubles) exceeds the machine's
// physical memory is rejected before anything is allocated, and so is a line
// longer than 1 MiB (a file without line breaks is never read whole).
DenseMatrix<double> read_matrix_market(const std::string& path);

// Same as read_matrix_market, from a string holding the file's contents;
// `name` stands for the path in messages. Used by tests and by a fuzzer.
DenseMatrix<double> parse_matrix_market(const std::string& text, const std::string& name);

// Writes the rows x cols column-major matrix `a` (leading dimension lda) as
// `array real general`: the shortest round-trip text of each double or
// float (a float's text read as a double converts back to the same float). The file is written as output_file.hpp says: through a unique
// temporary renamed in only once complete (a device or FIFO in place), so a
// failed write leaves `path` as it was and no temporary behind. Throws
// InputError, naming the path and the errno text, when the file cannot be
// written, and for a negative size or lda < max(1, rows). Instantiated for
// float and double.
template <typename T>
void write_matrix_market(const std::string& path, const T* a, int64_t rows, int64_t cols,
                         int64_t lda);

// The same text written to an open output, one of a set that a program
// writes all or none (write_outputs).
template <typename T>
void write_matrix_market(OutputFile& out, const T* a, int64_t rows, int64_t cols, int64_t lda);

}  // namespace tiledqr
