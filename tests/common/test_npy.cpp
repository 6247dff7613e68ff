// Tests for common/npy.{hpp,cpp}: headers exactly as numpy.save writes them, both orders and both
// dtypes, round trips through the writer, and one test per class of malformed header or data.
#include "npy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "errors.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

using testing::make_engine;

// A .npy file as numpy 1.x writes it: version 1.0, the dict padded with spaces to a 64-byte
// boundary, then `data`.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  const size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  header.append((preamble + header.size() + 1 + 63) / 64 * 64 - preamble - header.size() - 1, ' ');
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + char(major) + '\0';
  for (size_t k = 0; k < (major == 1 ? 2u : 4u); ++k) out += char((header.size() >> (8 * k)) & 0xff);
  return out + header + data;
}

template <typename T>
std::string raw(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// Passes when parsing `bytes` throws an InputError naming "t.npy" and containing `word`.
::testing::AssertionResult fails_with(const std::string& bytes, const std::string& word) {
  try {
    parse_npy(bytes, "t.npy");
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.rfind("t.npy: ", 0) == 0 && message.find(word) != std::string::npos)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message '" << message << "' lacks '" << word << "'";
  }
  return ::testing::AssertionFailure() << "no InputError";
}

// Pass: np.save(np.arange(6.).reshape(2, 3)) (C order, '<f8') reads as [[0 1 2]; [3 4 5]].
TEST(NpyReader, COrderFloat64) {
  const std::string file =
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", raw<double>({0, 1, 2, 3, 4, 5}));
  ASSERT_EQ(file.size(), 128u + 48u);  // numpy's own length for this array
  const DenseMatrix<double> a = parse_npy(file, "t.npy");
  ASSERT_EQ(a.rows, 2);
  ASSERT_EQ(a.cols, 3);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(a(i, j), double(3 * i + j));
}

// Pass: a Fortran-ordered float32 array (version 2.0 header) reads column by column, widened
// exactly; a 1-d shape (4,) is a 4 x 1 column.
TEST(NpyReader, FortranOrderFloat32AndColumns) {
  const std::vector<float> values = {0.1f, -2.5f, 3e-40f, 7.0f};
  const DenseMatrix<double> a = parse_npy(
      npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", raw(values), 2), "t.npy");
  ASSERT_EQ(a.rows, 2);
  for (size_t k = 0; k < values.size(); ++k) EXPECT_EQ(a.data[k], double(values[k]));
  const DenseMatrix<double> column =
      parse_npy(npy_file("{\"descr\": \"<f4\", \"shape\": (4,), \"fortran_order\": False}", raw(values)), "t.npy");
  EXPECT_EQ(column.rows, 4);
  EXPECT_EQ(column.cols, 1);
  EXPECT_EQ(column.data[2], double(values[2]));
}

// Pass: random doubles and floats (bit patterns, subnormals included) written by write_npy read
// back bit for bit through read_npy, from a matrix with lda > rows.
TEST(NpyWriter, RoundTripBitForBit) {
  std::mt19937_64 engine = make_engine(17);
  const int64_t rows = 37, cols = 11, lda = 40;
  std::vector<double> a(size_t(lda * cols));
  std::vector<float> f(a.size());
  for (size_t k = 0; k < a.size(); ++k) {
    const uint64_t bits = engine();
    std::memcpy(&a[k], &bits, 8);
    if (!std::isfinite(a[k])) a[k] = 0.5;
    const uint32_t fbits = uint32_t(bits >> 32);
    std::memcpy(&f[k], &fbits, 4);
    if (!std::isfinite(f[k])) f[k] = 0.25f;
  }
  char dir[] = "/tmp/test_npy.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/a.npy", fpath = std::string(dir) + "/f.NPY";
  write_npy(path, a.data(), rows, cols, lda);
  write_npy(fpath, f.data(), rows, cols, lda);
  const DenseMatrix<double> back = read_npy(path), fback = read_npy(fpath);
  std::remove(path.c_str());
  std::remove(fpath.c_str());
  rmdir(dir);
  ASSERT_EQ(back.rows, rows);
  ASSERT_EQ(fback.cols, cols);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) {
      const double d = a[size_t(i + j * lda)];
      EXPECT_EQ(std::memcmp(&back(i, j), &d, 8), 0) << i << "," << j;
      const float x = float(fback(i, j));
      EXPECT_EQ(std::memcmp(&x, &f[size_t(i + j * lda)], 4), 0) << i << "," << j;
    }
  EXPECT_TRUE(is_npy_path(fpath));
  EXPECT_FALSE(is_npy_path("a.mtx"));
}

// Pass: the writer's header is the one numpy writes for a Fortran array, 64-byte aligned.
TEST(NpyWriter, HeaderAsNumpyWritesIt) {
  const double a[6] = {1, 2, 3, 4, 5, 6};
  const std::string bytes = format_npy(a, 2, 3, 2);
  EXPECT_EQ(bytes, npy_file("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", raw<double>({1, 2, 3, 4, 5, 6})));
  EXPECT_EQ((bytes.size() - 48) % 64, 0u);
}

// Pass: every malformed header or data length is an InputError saying what is wrong.
TEST(NpyErrors, MalformedFilesNameTheProblem) {
  const std::string data = raw<double>({1, 2, 3, 4});
  const std::string ok = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
  EXPECT_TRUE(fails_with("%%MatrixMarket", "magic"));
  EXPECT_TRUE(fails_with(npy_file(ok, data).replace(6, 1, "\x03"), "version 3.0"));
  EXPECT_TRUE(fails_with(npy_file(ok, data).substr(0, 9), "preamble"));
  EXPECT_TRUE(fails_with(npy_file(ok, data).substr(0, 40), "inside the .npy header"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", data), "'>f8'"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", data), "dtype"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': 0, 'shape': (2, 2), }", data), "True or False"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 2), }", data), "3-d"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", data), "0-d"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 2), }", data), "non-negative"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': False, }", data), "lacks 'shape'"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)}", data), "twice"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", data), "unexpected key"));
  EXPECT_TRUE(fails_with(npy_file(ok + " junk", data), "must end"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 2), }", data), "64 bits"));
  EXPECT_TRUE(fails_with(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 4000000000), }", data), "GiB"));
  EXPECT_TRUE(fails_with(npy_file(ok, data.substr(0, 31)), "ends after 31 of the 32"));
  EXPECT_TRUE(fails_with(npy_file(ok, data + "x"), "1 bytes after the data"));
}

// Pass: read_npy names the path of a missing file and of a file that is not .npy.
TEST(NpyErrors, FilesThatCannotBeRead) {
  EXPECT_THROW(read_npy("/nonexistent/a.npy"), InputError);
  try {
    read_npy("/proc/self/status");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/self/status"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tiledqr
