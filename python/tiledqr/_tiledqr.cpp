// _tiledqr: the compiled half of the Python module tiledqr — thin bindings of
// the C interface (include/tiledqr/tiledqr.h) on float32 and float64 NumPy
// arrays that tiledqr/__init__.py has already checked and copied: stacks of
// Fortran-ordered matrices for the batch calls, Fortran-ordered matrices
// for the others. The GIL is released while the library works; a failing status
// becomes ValueError, numpy.linalg.LinAlgError, MemoryError or RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tiledqr/tiledqr.h"
#ifdef TILEDQR_PYTHON_GPU
#include "tiledqr/tiledqr_gpu.h"
#endif

namespace py = pybind11;

namespace {

template <typename T>
using FortranArray = py::array_t<T, py::array::f_style>;
template <typename T>
using CArray = py::array_t<T, py::array::c_style>;

// Raises the Python exception of a failed status (with the GIL held).
void raise_on_failure(int status, const std::string& message) {
  if (status == TILEDQR_SUCCESS) return;
  const std::string text = std::string(tiledqr_strerror(status)) + (message.empty() ? "" : ": " + message);
  switch (status) {
    case TILEDQR_ERR_INVALID_ARGUMENT: throw py::value_error(text);
    case TILEDQR_ERR_OUT_OF_MEMORY: PyErr_SetString(PyExc_MemoryError, text.c_str()); throw py::error_already_set();
    case TILEDQR_RANK_DEFICIENT: {
      py::object linalg_error = py::module_::import("numpy.linalg").attr("LinAlgError");
      PyErr_SetString(linalg_error.ptr(), text.c_str());
      throw py::error_already_set();
    }
    default: throw std::runtime_error(text);
  }
}

// Runs `call` without the GIL and raises its status with the GIL back.
template <typename Call>
void run_released(Call&& call) {
  int status = 0;
  std::string message;
  {
    py::gil_scoped_release released;
    status = call();
    if (status != TILEDQR_SUCCESS) message = tiledqr_last_error();
  }
  raise_on_failure(status, message);
}

tiledqr_options make_options(int tile, int inner_block, int tree, int threads, int backend) {
  return tiledqr_options{tile, inner_block, tree, threads, backend};
}

// A host factorisation (tiledqr_factors) and its precision.
class Factors {
 public:
  Factors(tiledqr_factors* f, bool is_double) : f_(f), double_(is_double) {}
  ~Factors() { tiledqr_factors_free(f_); }
  Factors(const Factors&) = delete;
  Factors& operator=(const Factors&) = delete;

  int64_t rows() const { return tiledqr_factors_rows(f_); }
  tiledqr_factors* handle() const { return f_; }
  int64_t cols() const { return tiledqr_factors_cols(f_); }
  bool is_double() const { return double_; }

  // B (m, k) ← Qᵀ B ('T') or Q B ('N'), in place.
  template <typename T>
  void ormqr(char trans, FortranArray<T> b) {
    const int64_t m = b.shape(0), k = b.shape(1), ldb = std::max<int64_t>(1, m);
    T* data = b.mutable_data();
    run_released([&] {
      if constexpr (std::is_same_v<T, double>) return tiledqr_dormqr(trans, m, k, f_, data, ldb);
      else return tiledqr_sormqr(trans, m, k, f_, data, ldb);
    });
  }

  // The first k columns of Q.
  template <typename T>
  FortranArray<T> orgqr(int64_t k) {
    const int64_t m = rows(), ldq = std::max<int64_t>(1, m);
    FortranArray<T> q({m, k});
    T* data = q.mutable_data();
    run_released([&] {
      if constexpr (std::is_same_v<T, double>) return tiledqr_dorgqr(m, k, f_, data, ldq);
      else return tiledqr_sorgqr(m, k, f_, data, ldq);
    });
    return q;
  }

 private:
  tiledqr_factors* f_;
  bool double_;
};

// Python objects owning each handle, in order. The handles are owned by
// Factors objects before anything can throw, so none leaks.
py::list wrap_factors(const std::vector<tiledqr_factors*>& handles, bool is_double) {
  std::vector<std::unique_ptr<Factors>> owned;
  owned.reserve(handles.size());
  for (tiledqr_factors* h : handles) owned.push_back(std::make_unique<Factors>(h, is_double));
  py::list out;
  for (std::unique_ptr<Factors>& f : owned) out.append(py::cast(f.release(), py::return_value_policy::take_ownership));
  return out;
}

// Every matrix of a stack ← its R, in place, in parallel: `work` is
// (batch, n, m), C-ordered, so matrix i is column-major (m, n) with
// lda = m at i·m·n. Returns one Factors per matrix when `keep` is set.
template <typename T>
py::object geqrf_batch(CArray<T> work, bool keep, int tile, int inner_block, int tree, int threads, int backend) {
  const int64_t batch = work.shape(0), n = work.shape(1), m = work.shape(2), lda = std::max<int64_t>(1, m);
  const tiledqr_options opts = make_options(tile, inner_block, tree, threads, backend);
  T* data = work.mutable_data();
  std::vector<tiledqr_factors*> handles(keep ? size_t(batch) : 0, nullptr);
  run_released([&] {
    tiledqr_factors** out = keep ? handles.data() : nullptr;
    if constexpr (std::is_same_v<T, double>) return tiledqr_dgeqrf_batch(batch, m, n, data, lda, lda * n, out, &opts);
    else return tiledqr_sgeqrf_batch(batch, m, n, data, lda, lda * n, out, &opts);
  });
  if (!keep) return py::none();
  return wrap_factors(handles, std::is_same_v<T, double>);
}

// The first k columns of each matrix's Q, (batch, k, m) C-ordered: Q_i
// column-major (m, k), on `threads` threads.
template <typename T>
CArray<T> orgqr_batch(const std::vector<Factors*>& factors, int64_t m, int64_t k, int threads) {
  const int64_t batch = int64_t(factors.size()), ldq = std::max<int64_t>(1, m);
  std::vector<tiledqr_factors*> handles;
  for (const Factors* f : factors) handles.push_back(f->handle());
  CArray<T> q({batch, k, m});
  T* data = q.mutable_data();
  run_released([&] {
    if constexpr (std::is_same_v<T, double>)
      return tiledqr_dorgqr_batch(batch, m, k, handles.data(), data, ldq, ldq * k, threads);
    else return tiledqr_sorgqr_batch(batch, m, k, handles.data(), data, ldq, ldq * k, threads);
  });
  return q;
}

// Every matrix of a stack ← its R, in place, and the first k columns of
// its Q, (batch, k, m) C-ordered, in one pass (no handles): geqrf_batch then
// orgqr_batch, the same bits.
template <typename T>
CArray<T> qr_batch(CArray<T> work, int64_t k, int tile, int inner_block, int tree, int threads, int backend) {
  const int64_t batch = work.shape(0), n = work.shape(1), m = work.shape(2), lda = std::max<int64_t>(1, m);
  const tiledqr_options opts = make_options(tile, inner_block, tree, threads, backend);
  T* data = work.mutable_data();
  CArray<T> q({batch, k, m});
  T* q_data = q.mutable_data();
  run_released([&] {
    if constexpr (std::is_same_v<T, double>)
      return tiledqr_dqr_batch(batch, m, n, data, lda, lda * n, k, q_data, lda, lda * k, &opts);
    else return tiledqr_sqr_batch(batch, m, n, data, lda, lda * n, k, q_data, lda, lda * k, &opts);
  });
  return q;
}

// qr_batch reading the (batch, m, n) array `a` where it lies (its strides
// whole elements of T, as tiledqr/__init__.py checks): R of each matrix
// into `work`, (batch, n, m) C-ordered (matrix i column-major (m, n) with
// lda = m), and the first k columns of each Q returned, (batch, k, m).
template <typename T>
CArray<T> qr_batch_strided(py::array a, CArray<T> work, int64_t k, int tile, int inner_block, int tree, int threads,
                           int backend) {
  // Floats of T's size in this machine's byte order ('=', or its explicit '<' or '>').
  const uint16_t probe = 1;
  const char native = *reinterpret_cast<const char*>(&probe) == 1 ? '<' : '>';
  const py::dtype type = a.dtype();
  if (a.ndim() != 3 || type.kind() != 'f' || type.itemsize() != py::ssize_t(sizeof(T)) ||
      (type.byteorder() != '=' && type.byteorder() != native))
    throw py::value_error("qr_batch_strided: a (batch, m, n) array of the work array's dtype is needed");
  const int64_t batch = work.shape(0), n = work.shape(1), m = work.shape(2), lda = std::max<int64_t>(1, m);
  if (a.shape(0) != batch || a.shape(1) != m || a.shape(2) != n)
    throw py::value_error("qr_batch_strided: a and work describe different stacks");
  const auto stride = [&](int d) { return int64_t(a.strides(d)) / int64_t(sizeof(T)); };
  const int64_t stride_a = stride(0), row_stride = stride(1), col_stride = stride(2);
  const T* data = static_cast<const T*>(a.data());
  const tiledqr_options opts = make_options(tile, inner_block, tree, threads, backend);
  T* r = work.mutable_data();
  CArray<T> q({batch, k, m});
  T* q_data = q.mutable_data();
  run_released([&] {
    if constexpr (std::is_same_v<T, double>)
      return tiledqr_dqr_batch_strided(batch, m, n, data, stride_a, row_stride, col_stride, r, lda, lda * n, k,
                                       q_data, lda, lda * k, &opts);
    else
      return tiledqr_sqr_batch_strided(batch, m, n, data, stride_a, row_stride, col_stride, r, lda, lda * n, k,
                                       q_data, lda, lda * k, &opts);
  });
  return q;
}

// Where a least-squares problem is solved.
enum class Device { cpu, gpu };

// B (max(m, n), k) ← X in its first n rows; A ← R: tiledqr_?gels on the CPU,
// or tiledqr_gpu_?gels_host (m ≥ n ≥ 1) on the GPU.
template <typename T>
void gels(FortranArray<T> a, FortranArray<T> b, const tiledqr_options& opts, [[maybe_unused]] Device device) {
  const int64_t m = a.shape(0), n = a.shape(1), k = b.shape(1);
  const int64_t lda = std::max<int64_t>(1, m), ldb = std::max<int64_t>(1, b.shape(0));
  T* ad = a.mutable_data();
  T* bd = b.mutable_data();
  run_released([&] {
#ifdef TILEDQR_PYTHON_GPU
    if (device == Device::gpu) {
      if constexpr (std::is_same_v<T, double>) return tiledqr_gpu_dgels_host(m, n, k, ad, lda, bd, ldb, &opts);
      else return tiledqr_gpu_sgels_host(m, n, k, ad, lda, bd, ldb, &opts);
    }
#endif
    if constexpr (std::is_same_v<T, double>) return tiledqr_dgels(m, n, k, ad, lda, bd, ldb, &opts);
    else return tiledqr_sgels(m, n, k, ad, lda, bd, ldb, &opts);
  });
}

template <typename T>
void cpu_gels(FortranArray<T> a, FortranArray<T> b, int tile, int inner_block, int tree, int threads, int backend) {
  gels(a, b, make_options(tile, inner_block, tree, threads, backend), Device::cpu);
}

#ifdef TILEDQR_PYTHON_GPU
// Every matrix of a (batch, n, m) stack, as geqrf_batch, factored on the
// GPU; returns host factors (the GPU's reflectors downloaded) when `keep`
// is set. Several matrices that the GPU's table would factor at tile 32
// alone (tile 32 asked, or chosen: squares up to 4096, tall ones of up to
// 128 columns) go as one task graph (tiledqr_gpu_?geqrf_batch_host); one
// matrix, or larger ones, one after the other at the tile chosen for them.
template <typename T>
py::object gpu_geqrf_batch(CArray<T> work, bool keep, int tree, int tile) {
  const int64_t batch = work.shape(0), n = work.shape(1), m = work.shape(2), lda = std::max<int64_t>(1, m);
  tiledqr_options opts{};
  opts.tree = tree;
  opts.tile = tile;
  T* data = work.mutable_data();
  std::vector<tiledqr_factors*> handles(keep ? size_t(batch) : 0, nullptr);
  const bool small = std::max(m, n) <= 4096 || std::min(m, n) <= 128;
  const bool one_graph = batch > 1 && (tile == 32 || (tile == 0 && small));
  // The handles made before a failure are freed with it.
  const auto free_all = [&] {
    for (tiledqr_factors*& h : handles) tiledqr_factors_free(std::exchange(h, nullptr));
  };
  run_released([&] {
    if (one_graph) {
      tiledqr_factors** out = keep ? handles.data() : nullptr;
      if constexpr (std::is_same_v<T, double>) return tiledqr_gpu_dgeqrf_batch_host(batch, m, n, data, lda, lda * n, out, &opts);
      else return tiledqr_gpu_sgeqrf_batch_host(batch, m, n, data, lda, lda * n, out, &opts);
    }
    for (int64_t i = 0; i < batch; ++i) {
      tiledqr_factors** out = keep ? &handles[size_t(i)] : nullptr;
      T* a = data + i * lda * n;
      int status = 0;
      if constexpr (std::is_same_v<T, double>) status = tiledqr_gpu_dgeqrf_host(m, n, a, lda, out, &opts);
      else status = tiledqr_gpu_sgeqrf_host(m, n, a, lda, out, &opts);
      if (status != TILEDQR_SUCCESS) {
        free_all();
        return status;
      }
    }
    return int(TILEDQR_SUCCESS);
  });
  if (!keep) return py::none();
  return wrap_factors(handles, std::is_same_v<T, double>);
}

template <typename T>
void gpu_gels(FortranArray<T> a, FortranArray<T> b, int tree, int tile) {
  tiledqr_options opts{};
  opts.tree = tree;
  opts.tile = tile;
  gels(a, b, opts, Device::gpu);
}
#endif

}  // namespace

PYBIND11_MODULE(_tiledqr, m) {
  m.doc() = "Bindings of tiledqr's C interface; use the tiledqr package, not this module.";
  // noconvert: the arrays are written in place, so a converted copy would
  // lose the result; tiledqr/__init__.py passes the exact dtype and order.
  const auto inout = [](const char* name) { return py::arg(name).noconvert(); };
  py::class_<Factors>(m, "Factors")
      .def_property_readonly("rows", &Factors::rows)
      .def_property_readonly("cols", &Factors::cols)
      .def_property_readonly("is_double", &Factors::is_double)
      .def("dormqr", &Factors::ormqr<double>, py::arg("trans"), inout("b"))
      .def("sormqr", &Factors::ormqr<float>, py::arg("trans"), inout("b"))
      .def("dorgqr", &Factors::orgqr<double>)
      .def("sorgqr", &Factors::orgqr<float>);
  const auto options = [](auto... leading) {
    return std::make_tuple(leading..., py::arg("tile"), py::arg("inner_block"), py::arg("tree"), py::arg("threads"),
                           py::arg("backend"));
  };
  std::apply([&](auto... a) { m.def("dgeqrf_batch", &geqrf_batch<double>, a...); }, options(inout("work"), py::arg("keep")));
  std::apply([&](auto... a) { m.def("sgeqrf_batch", &geqrf_batch<float>, a...); }, options(inout("work"), py::arg("keep")));
  m.def("dqr_batch", &qr_batch<double>, py::arg("work"), py::arg("k"), py::arg("tile"), py::arg("inner_block"),
        py::arg("tree"), py::arg("threads"), py::arg("backend"));
  m.def("sqr_batch", &qr_batch<float>, py::arg("work"), py::arg("k"), py::arg("tile"), py::arg("inner_block"),
        py::arg("tree"), py::arg("threads"), py::arg("backend"));
  m.def("dqr_batch_strided", &qr_batch_strided<double>, py::arg("a"), inout("work"), py::arg("k"), py::arg("tile"),
        py::arg("inner_block"), py::arg("tree"), py::arg("threads"), py::arg("backend"));
  m.def("sqr_batch_strided", &qr_batch_strided<float>, py::arg("a"), inout("work"), py::arg("k"), py::arg("tile"),
        py::arg("inner_block"), py::arg("tree"), py::arg("threads"), py::arg("backend"));
  m.def("dorgqr_batch", &orgqr_batch<double>, py::arg("factors"), py::arg("m"), py::arg("k"), py::arg("threads"));
  m.def("sorgqr_batch", &orgqr_batch<float>, py::arg("factors"), py::arg("m"), py::arg("k"), py::arg("threads"));
  std::apply([&](auto... a) { m.def("dgels", &cpu_gels<double>, a...); }, options(inout("a"), inout("b")));
  std::apply([&](auto... a) { m.def("sgels", &cpu_gels<float>, a...); }, options(inout("a"), inout("b")));
  m.def("version", [] { return std::string(tiledqr_version()); });
#ifdef TILEDQR_PYTHON_GPU
  m.def("dgpu_geqrf_batch", &gpu_geqrf_batch<double>, inout("work"), py::arg("keep"), py::arg("tree"), py::arg("tile"));
  m.def("sgpu_geqrf_batch", &gpu_geqrf_batch<float>, inout("work"), py::arg("keep"), py::arg("tree"), py::arg("tile"));
  m.def("dgpu_gels", &gpu_gels<double>, inout("a"), inout("b"), py::arg("tree"), py::arg("tile"));
  m.def("sgpu_gels", &gpu_gels<float>, inout("a"), inout("b"), py::arg("tree"), py::arg("tile"));
  m.def("gpu_status", [] {
    const int status = tiledqr_gpu_check_device();
    return py::make_tuple(status, std::string(status == TILEDQR_SUCCESS ? "" : tiledqr_last_error()));
  });
#else
  m.def("gpu_status", [] {
    return py::make_tuple(int(TILEDQR_ERR_NO_GPU), std::string("this tiledqr was built without CUDA"));
  });
#endif
}
