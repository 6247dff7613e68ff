"""tiledqr: QR factorisation and least squares of NumPy arrays with the tile
algorithm of Buttari, Langou, Kurzak and Dongarra, on CPU threads or an
NVIDIA GPU.

    >>> import numpy, tiledqr
    >>> a = numpy.random.default_rng(1).standard_normal((500, 200))
    >>> q, r = tiledqr.qr(a)                    # as numpy.linalg.qr(a)
    >>> x = tiledqr.lstsq(a, numpy.ones(500))   # argmin ||a x - b||
    >>> f = tiledqr.factor(a); qtb = f.apply_qt(numpy.ones(500))
    >>> x = tiledqr.lstsq(a, numpy.ones(500), backend="gpu")  # where tiledqr.gpu_available()

Inputs are taken as numpy.linalg takes them: any strides (negative ones
too), either byte order, and for qr a stack (..., m, n) of matrices, which
are factored in parallel. float32 and float64 keep their precision;
integer, boolean and object arrays become float64. float16, long double and
complex arrays are refused: float16 and long double with TypeError, as
numpy.linalg does; complex with ValueError (tiledqr factors real matrices
only). Every function and method that takes an array checks it the same way.
Inputs are never modified. Empty matrices give NumPy's empty
results. Bad arguments raise ValueError, a rank-deficient least-squares
problem numpy.linalg.LinAlgError. The library releases the GIL while it
works.

tile=None (or 0) lets the library choose the tile size and inner block from
the shape and the thread count (a table measured on the CPU); a larger tile
than the matrix is cut to the matrix. threads=None (or 0) uses every CPU
this process may run on; more threads than that are cut to that number.
"""

import numpy as _np

from . import _tiledqr

__all__ = ["qr", "lstsq", "factor", "Factors", "gpu_available", "__version__"]
__version__ = _tiledqr.version()

_TREES = {None: 0, "auto": 0, "flat": 1, "binary": 2, "greedy": 3, "tsqr": 4}
_KERNELS = {"lapack": 0, "reference": 1}
_INT_MAX = 2**31 - 1  # the C interface's int options


class GpuAvailability:
    """What gpu_available() returns: true or false as a bool, and when false
    the reason (.reason, also its str()), e.g. no device, or a library built
    without CUDA or for other GPUs."""

    __slots__ = ("_available", "reason")

    def __init__(self, available, reason):
        self._available = bool(available)
        self.reason = reason

    def __bool__(self):
        return self._available

    def __eq__(self, other):
        if isinstance(other, (bool, GpuAvailability)):
            return self._available == bool(other)
        return NotImplemented

    def __hash__(self):
        return hash(self._available)

    def __str__(self):
        return "the GPU backend is available" if self._available else self.reason

    def __repr__(self):
        return "GpuAvailability(True)" if self._available else f"GpuAvailability(False, reason={self.reason!r})"


def gpu_available():
    """Whether backend='gpu' can run here (built with CUDA, a device with code
    for it): a GpuAvailability, true or false as a bool, whose .reason says
    why not when it is false."""
    status, message = _tiledqr.gpu_status()
    return GpuAvailability(status == 0, message or "")


def _checked_array(x, name, ndims):
    """The one check of an array argument, made by every public function and
    method that takes one, so that each refuses the same things in the same
    way. Returns x as a NumPy array and the precision it is computed in:
    float32 and float64 stay, integers, booleans and Python objects of real
    numbers become float64 (as numpy.linalg reads them). Raises ValueError
    when its number of dimensions is not one of `ndims` (an int: at least
    that many) or its entries are not real numbers (complex ones included),
    TypeError for float16 and long double (numpy.linalg's error)."""
    arr = _np.asarray(x)
    if isinstance(ndims, int):
        if arr.ndim < ndims:
            raise ValueError(f"{name} must be an array of at least {ndims} dimensions (..., m, n), got {arr.ndim}-D")
    elif arr.ndim not in ndims:
        raise ValueError(f"{name} must be a {' or '.join(f'{d}-D' for d in ndims)} array, got {arr.ndim}-D")
    kind = arr.dtype.kind
    if kind == "f":
        if arr.dtype.itemsize not in (4, 8):
            raise TypeError(f"{name} has dtype {arr.dtype}, which tiledqr does not factor (nor does numpy.linalg): "
                            f"convert it with .astype(numpy.float32) or .astype(numpy.float64)")
        return arr, _np.dtype(_np.float32 if arr.dtype.itemsize == 4 else _np.float64)
    if kind in "iub":
        return arr, _np.dtype(_np.float64)
    if kind == "O":  # converted here, so an entry that is not a real number is refused as a complex one is
        try:
            return arr.astype(_np.float64), _np.dtype(_np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name} must hold real numbers; an entry of its object array is not one ({error})") \
                from None
    raise ValueError(f"{name} must hold real numbers (float32, float64, integers or booleans), got dtype "
                     f"{arr.dtype}; complex matrices are not supported")


def _stack(arr, dtype):
    """A checked (..., m, n) as a writable (batch, n, m) C-ordered array of
    `dtype`: each matrix Fortran-ordered, the stack flattened, the input
    copied (whatever its strides and byte order) and never modified."""
    *lead, m, n = arr.shape
    lead = tuple(lead)
    work = _np.empty((int(_np.prod(lead, dtype=_np.int64)), n, m), dtype=dtype)
    work.reshape(lead + (n, m))[...] = arr.swapaxes(-1, -2)
    return work, lead, m, n


def _stack_as_it_lies(arr):
    """A checked, nonempty (..., m, n) stack of float32 or float64 in this
    machine's byte order, with strides of whole elements, as a (batch, m, n)
    view that the library reads where it lies (a copy only where the
    leading dimensions cannot be flattened into one); None for anything
    else, which _stack copies."""
    if arr.size == 0 or arr.dtype not in (_np.dtype(_np.float64), _np.dtype(_np.float32)):
        return None
    if not arr.dtype.isnative:
        return None
    *lead, m, n = arr.shape
    flat = arr.reshape((-1, m, n))
    if any(stride % arr.itemsize for stride in flat.strides):
        return None
    return flat, tuple(lead), m, n


def _matrix(arr, dtype):
    """A checked (m, n) (or (m,)) as a writable Fortran-ordered copy of `dtype`."""
    out = _np.empty(arr.shape, dtype=dtype, order="F")
    out[...] = arr
    return out


def _int_option(value, name, least):
    """None or an integer in [least, 2**31 - 1] (the C interface's int)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, _np.integer)):
        raise ValueError(f"{name} must be an integer or None, got {type(value).__name__}")
    if value < least or value > _INT_MAX:
        raise ValueError(f"{name} must be None or an integer in [{least}, {_INT_MAX}], got {value}")
    return int(value)


def _options(tree, tile, threads, kernels="lapack", inner_block=None):
    if tree not in _TREES:
        raise ValueError(f"tree must be one of 'flat', 'binary', 'greedy', 'tsqr' or None, got {tree!r}")
    if kernels not in _KERNELS:
        raise ValueError(f"kernels must be 'lapack' or 'reference', got {kernels!r}")
    return dict(tile=_int_option(tile, "tile", 0), inner_block=_int_option(inner_block, "inner_block", 0),
                tree=_TREES[tree], threads=_int_option(threads, "threads", 0), backend=_KERNELS[kernels])


def _backend_options(backend, tree, tile, threads, arrays):
    """The options of a call on `backend`, checked: for 'cpu' all of them;
    for 'gpu' the tree and tile (the GPU library says which tiles it runs),
    threads must be None, the checked `arrays` ({name: array}) finite, and
    then the GPU available (RuntimeError, with the reason, where it is not),
    so that a bad argument is a ValueError with or without a GPU. (On the
    CPU the library finds a NaN as it copies the matrix.)"""
    if backend == "cpu":
        return _options(tree, tile, threads)
    if backend != "gpu":
        raise ValueError(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    if threads is not None:
        raise ValueError("threads applies to backend='cpu' only")
    opts = _options(tree, tile, None)
    for name, arr in arrays.items():
        _check_finite(arr, name)
    available = gpu_available()
    if not available:
        raise RuntimeError(f"backend='gpu' is not available: {available.reason}")
    return dict(tree=opts["tree"], tile=opts["tile"])


def _check_finite(arr, name):
    # min and max carry a NaN through, and show an infinity, without a
    # temporary as large as the input.
    if arr.size and arr.dtype.kind == "f" and not (_np.isfinite(arr.min()) and _np.isfinite(arr.max())):
        raise ValueError(f"{name} contains NaN or infinity")


def _double(dtype):
    return dtype == _np.float64


class Factors:
    """The factorisation A = Q R of one matrix: R, and Q kept as reflectors.

    Made by tiledqr.factor(); Q is applied without being formed.
    """

    def __init__(self, handle, r, dtype):
        self._f = handle
        self._r = r
        self.dtype = dtype
        self.shape = (handle.rows, handle.cols)

    def r(self):
        """R, (min(m, n), n), upper triangular."""
        return self._r.copy()

    def _apply(self, b, trans):
        arr, _ = _checked_array(b, "B", (1, 2))
        vector = arr.ndim == 1
        mat = _matrix(arr, self.dtype)  # in the factors' precision
        if vector:
            mat = mat.reshape(-1, 1, order="F")
        if mat.shape[0] != self.shape[0]:
            raise ValueError(f"B has {mat.shape[0]} rows, the factored matrix {self.shape[0]}")
        _check_finite(mat, "B")
        (self._f.dormqr if _double(self.dtype) else self._f.sormqr)(trans, mat)
        return mat[:, 0] if vector else mat

    def apply_qt(self, b):
        """Q^T B as a new array (B: (m,) or (m, k)), in the factors' precision."""
        return self._apply(b, "T")

    def apply_q(self, b):
        """Q B as a new array (B: (m,) or (m, k)), in the factors' precision."""
        return self._apply(b, "N")

    def q(self, mode="reduced"):
        """Q: (m, min(m, n)) for mode 'reduced', (m, m) for 'complete'."""
        m, n = self.shape
        if mode not in ("reduced", "complete"):
            raise ValueError(f"mode must be 'reduced' or 'complete', got {mode!r}")
        k = min(m, n) if mode == "reduced" else m
        return (self._f.dorgqr if _double(self.dtype) else self._f.sorgqr)(k)


def _geqrf(work, keep, backend, opts):
    """Factors each matrix of the (batch, n, m) stack in place (R on and
    above the diagonal, zeros below) with checked options; returns the
    binding's factors, one per matrix, when `keep`."""
    if backend == "gpu" and work.size:
        return (_tiledqr.dgpu_geqrf_batch if _double(work.dtype) else _tiledqr.sgpu_geqrf_batch)(work, keep, **opts)
    if backend == "gpu":  # an empty matrix or stack: nothing for the GPU to do, the CPU's empty factors
        opts = _options(None, None, None)
    return (_tiledqr.dgeqrf_batch if _double(work.dtype) else _tiledqr.sgeqrf_batch)(work, keep, **opts)


def factor(a, backend="cpu", tree=None, tile=None, threads=None):
    """Factors A (m, n) = Q R and returns a Factors object.

    backend 'cpu' runs CPU threads (threads=None: every CPU of this process,
    more than that cut to it), 'gpu' the GPU task scheduler (tile 32, 64, 128
    or 256; the reflectors come back to the host for Factors' methods).
    tree: 'flat', 'binary', 'greedy', 'tsqr' or None (chosen from the shape:
    'tsqr' for a tall matrix, m >= 8n, on several threads). 'tsqr' (CPU
    only) cuts the matrix into one row block per thread, factors each whole
    with LAPACK and merges their R by a tree; its results are the same bits
    from run to run for a given thread count, not those of the tile trees.
    tile: the tile size (None: chosen from the shape and threads; at most
    the matrix).
    """
    arr, dtype = _checked_array(a, "A", (2,))
    opts = _backend_options(backend, tree, tile, threads, {"A": arr})
    work, _, m, n = _stack(arr, dtype)
    handle = _geqrf(work, True, backend, opts)[0]
    k = min(m, n)
    return Factors(handle, _np.ascontiguousarray(work[0, :, :k].T), work.dtype)


def qr(a, mode="reduced", backend="cpu", tree=None, tile=None, threads=None):
    """QR factorisation of A (..., m, n), as numpy.linalg.qr.

    mode 'reduced': (Q (..., m, k), R (..., k, n)) with k = min(m, n);
    'complete': (Q (..., m, m), R (..., m, n)); 'r': R (..., k, n) only
    (NumPy's 'raw' is not offered). A stack of matrices is factored in
    parallel, each matrix on one thread when there are at least as many
    matrices as threads. Other arguments as factor().
    """
    arr, dtype = _checked_array(a, "A", 2)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    opts = _backend_options(backend, tree, tile, threads, {"A": arr})
    in_place = _stack_as_it_lies(arr) if backend == "cpu" else None
    if in_place is not None:
        flat, lead, m, n = in_place
        work = _np.empty((flat.shape[0], n, m), dtype=flat.dtype)
    else:
        work, lead, m, n = _stack(arr, dtype)
    k = min(m, n)
    cols = k if mode == "reduced" else m
    if in_place is not None and mode == "r":  # R only: no columns of Q
        (_tiledqr.dqr_batch_strided if _double(dtype) else _tiledqr.sqr_batch_strided)(flat, work, 0, **opts)
    elif in_place is not None:
        # R and Q together, no handles; each matrix is read where it lies and
        # copied into `work` by the thread that factors it.
        q = (_tiledqr.dqr_batch_strided if _double(dtype) else _tiledqr.sqr_batch_strided)(flat, work, cols, **opts)
    elif backend == "cpu" and mode != "r":  # R and Q together, matrix by matrix, no handles
        q = (_tiledqr.dqr_batch if _double(dtype) else _tiledqr.sqr_batch)(work, cols, **opts)
    else:
        handles = _geqrf(work, mode != "r", backend, opts)
        if mode != "r":
            q = (_tiledqr.dorgqr_batch if _double(dtype) else _tiledqr.sorgqr_batch)(handles, m, cols, 0)
    # The library leaves R, zeros below, in the stack's (Fortran-ordered)
    # matrices: R is a view of them where it is all of each, a copy of its
    # rows where it is a small part (k < m) that should not hold the rest.
    r = work.swapaxes(-1, -2)
    if mode != "complete" and k < m:
        r = _np.ascontiguousarray(r[:, :k, :])
    r = r.reshape(lead + r.shape[1:])
    if mode == "r":
        return r
    return q.swapaxes(-1, -2).reshape(lead + (m, cols)), r


def lstsq(a, b, backend="cpu", tree=None, tile=None, threads=None):
    """X = argmin ||A X - B|| for A (m, n) of full rank; B (m,) or (m, k).

    Returns X only ((n,) or (n, k)), numpy.linalg.lstsq's first result. For
    m >= n, X comes from A = Q R (R X = Q^T B); for m < n (underdetermined)
    it is the solution of least norm, as NumPy's, from A^T = Q R: X = Q Y
    with R^T Y = B. An empty A (m or n of 0) or B (k = 0) gives X of zeros,
    as NumPy. Raises numpy.linalg.LinAlgError when some |R_ii| <=
    max(m, n) * eps * max_j |R_jj| (A not of full rank), where NumPy would
    return a solution of its own choosing.

    backend 'gpu': for m >= n the factorisation, Q^T B and the triangular
    solve run on the GPU; for m < n the factorisation of A^T runs there and
    the small triangular solve and Q Y on the host. The same arguments and
    errors as on the CPU; threads must be None, tile 0, 32, 64, 128 or 256.
    Other arguments as factor().
    """
    arr_a, dtype_a = _checked_array(a, "A", (2,))
    arr_b, dtype_b = _checked_array(b, "B", (1, 2))
    dtype = _np.result_type(dtype_a, dtype_b)
    m, n = arr_a.shape
    vector = arr_b.ndim == 1
    if arr_b.shape[0] != m:
        raise ValueError(f"B has {arr_b.shape[0]} rows, A has {m}")
    opts = _backend_options(backend, tree, tile, threads, {"A": arr_a, "B": arr_b})
    nrhs = 1 if vector else arr_b.shape[1]
    if 0 < m < n:
        if nrhs == 0:
            return _np.zeros((n, 0), dtype=dtype)
        return _least_norm(arr_a, arr_b, dtype, backend, tree, tile, threads)
    mat = _matrix(arr_a, dtype)
    # B's rows: max(m, n), as LAPACK's ?gels (n > m only when m = 0).
    rhs = _np.empty((max(m, n), nrhs), dtype=dtype, order="F")
    rhs[:m, :] = arr_b.reshape(m, nrhs)
    rhs[m:, :] = 0
    if backend == "gpu" and m and n:
        (_tiledqr.dgpu_gels if _double(dtype) else _tiledqr.sgpu_gels)(mat, rhs, **opts)
    else:  # the CPU, or the quick return of an empty A (X = 0), which the GPU library does not take
        if backend == "gpu":
            opts = _options(None, None, None)
        (_tiledqr.dgels if _double(dtype) else _tiledqr.sgels)(mat, rhs, **opts)
    x = rhs[:n, :].copy()
    return x[:, 0] if vector else x


def _least_norm(a, b, dtype, backend, tree, tile, threads):
    """X of least norm with A X = B, A (m, n) of rank m < n (both checked):
    A^T = Q R, then R^T Y = B and X = Q [Y; 0]."""
    m, n = a.shape
    rhs = _matrix(b, dtype)
    _check_finite(rhs, "B")
    f = factor(_np.asarray(a, dtype=dtype).T, backend=backend, tree=tree, tile=tile, threads=threads)
    r = f.r()
    diagonal = _np.abs(_np.diag(r))
    if not (diagonal > max(m, n) * _np.finfo(dtype).eps * diagonal.max()).all():
        raise _np.linalg.LinAlgError(f"A ({m}x{n}) is rank-deficient: some |R_ii| <= max(m, n) * eps * "
                                     "max_j |R_jj| in the QR factorisation of its transpose")
    y = _np.zeros((n,) + rhs.shape[1:], dtype=dtype)
    y[:m] = _np.linalg.solve(r.T, rhs)  # R^T is lower triangular and nonsingular
    return f.apply_q(y)
