// _tiledqr: the compiled half of the Python module tiledqr — thin bindings of
// the C interface (include/tiledqr/tiledqr.h) on Fortran-ordered float32 and
// float64 NumPy arrays that tiledqr/__init__.py has already checked and
// copied. The GIL is released while the library works; a failing status
// becomes ValueError, numpy.linalg.LinAlgError, MemoryError or RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "tiledqr/tiledqr.h"
#ifdef TILEDQR_PYTHON_GPU
#include "tiledqr/tiledqr_gpu.h"
#endif

namespace py = pybind11;

namespace {

template <typename T>
using FortranArray = py::array_t<T, py::array::f_style>;

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
    const int64_t m = rows();
    FortranArray<T> q({m, k});
    T* data = q.mutable_data();
    run_released([&] {
      if constexpr (std::is_same_v<T, double>) return tiledqr_dorgqr(m, k, f_, data, m);
      else return tiledqr_sorgqr(m, k, f_, data, m);
    });
    return q;
  }

 private:
  tiledqr_factors* f_;
  bool double_;
};

// A (m, n) ← R in place; returns the factors when `keep` is set.
template <typename T>
py::object geqrf(FortranArray<T> a, bool keep, int tile, int inner_block, int tree, int threads, int backend) {
  const int64_t m = a.shape(0), n = a.shape(1);
  const tiledqr_options opts = make_options(tile, inner_block, tree, threads, backend);
  T* data = a.mutable_data();
  tiledqr_factors* f = nullptr;
  tiledqr_factors** out = keep ? &f : nullptr;
  run_released([&] {
    if constexpr (std::is_same_v<T, double>) return tiledqr_dgeqrf(m, n, data, m, out, &opts);
    else return tiledqr_sgeqrf(m, n, data, m, out, &opts);
  });
  if (!keep) return py::none();
  return py::cast(new Factors(f, std::is_same_v<T, double>), py::return_value_policy::take_ownership);
}

// B (m, k) ← X in its first n rows; A ← R.
template <typename T>
void gels(FortranArray<T> a, FortranArray<T> b, int tile, int inner_block, int tree, int threads, int backend) {
  const int64_t m = a.shape(0), n = a.shape(1), k = b.shape(1);
  const tiledqr_options opts = make_options(tile, inner_block, tree, threads, backend);
  T* ad = a.mutable_data();
  T* bd = b.mutable_data();
  run_released([&] {
    if constexpr (std::is_same_v<T, double>) return tiledqr_dgels(m, n, k, ad, m, bd, m, &opts);
    else return tiledqr_sgels(m, n, k, ad, m, bd, m, &opts);
  });
}

#ifdef TILEDQR_PYTHON_GPU
// A (m, n) on the host ← R, factored on the GPU; returns host factors (the
// GPU's reflectors downloaded) when `keep` is set.
template <typename T>
py::object gpu_geqrf(FortranArray<T> a, bool keep, int tree) {
  const int64_t m = a.shape(0), n = a.shape(1);
  tiledqr_options opts{};
  opts.tree = tree;
  T* data = a.mutable_data();
  tiledqr_factors* f = nullptr;
  run_released([&] {
    if constexpr (std::is_same_v<T, double>) return tiledqr_gpu_dgeqrf_host(m, n, data, m, keep ? &f : nullptr, &opts);
    else return tiledqr_gpu_sgeqrf_host(m, n, data, m, keep ? &f : nullptr, &opts);
  });
  if (!keep) return py::none();
  return py::cast(new Factors(f, std::is_same_v<T, double>), py::return_value_policy::take_ownership);
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
  std::apply([&](auto... a) { m.def("dgeqrf", &geqrf<double>, a...); }, options(inout("a"), py::arg("keep")));
  std::apply([&](auto... a) { m.def("sgeqrf", &geqrf<float>, a...); }, options(inout("a"), py::arg("keep")));
  std::apply([&](auto... a) { m.def("dgels", &gels<double>, a...); }, options(inout("a"), inout("b")));
  std::apply([&](auto... a) { m.def("sgels", &gels<float>, a...); }, options(inout("a"), inout("b")));
  m.def("version", [] { return std::string(tiledqr_version()); });
#ifdef TILEDQR_PYTHON_GPU
  m.def("dgpu_geqrf", &gpu_geqrf<double>, inout("a"), py::arg("keep"), py::arg("tree"));
  m.def("sgpu_geqrf", &gpu_geqrf<float>, inout("a"), py::arg("keep"), py::arg("tree"));
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
