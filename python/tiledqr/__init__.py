"""tiledqr: QR factorisation and least squares of NumPy arrays with the tile
algorithm of Buttari, Langou, Kurzak and Dongarra, on CPU threads or an
NVIDIA GPU.

    >>> import numpy, tiledqr
    >>> a = numpy.random.default_rng(1).standard_normal((500, 200))
    >>> q, r = tiledqr.qr(a)                    # as numpy.linalg.qr(a)
    >>> x = tiledqr.lstsq(a, numpy.ones(500))   # argmin ||a x - b||
    >>> f = tiledqr.factor(a); qtb = f.apply_qt(numpy.ones(500))

Inputs are taken as numpy.linalg takes them: any strides (negative ones
too), either byte order, and for qr a stack (..., m, n) of matrices, which
are factored in parallel. float32 and float64 keep their precision;
integer, boolean and object arrays become float64. float16, long double and
complex arrays are refused: float16 and long double with TypeError, as
numpy.linalg does; complex with ValueError (tiledqr factors real matrices
only). Inputs are never modified. Empty matrices give NumPy's empty
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


def gpu_available():
    """True when the GPU backend can run here (built with CUDA, a device with code for it)."""
    return _tiledqr.gpu_status()[0] == 0


def _real_dtype(arr, name):
    """The precision an array is factored in: float32 and float64 stay, other
    real numbers become float64; the rest is refused."""
    kind = arr.dtype.kind
    if kind == "f":
        if arr.dtype.itemsize in (4, 8):
            return _np.dtype(_np.float32 if arr.dtype.itemsize == 4 else _np.float64)
        raise TypeError(f"{name} has dtype {arr.dtype}, which tiledqr does not factor (nor does numpy.linalg): "
                        f"convert it with .astype(numpy.float32) or .astype(numpy.float64)")
    if kind in "iubO":  # as numpy.linalg: integers, booleans and Python objects are read as float64
        return _np.dtype(_np.float64)
    raise ValueError(f"{name} must hold real numbers (float32, float64, integers or booleans), got dtype "
                     f"{arr.dtype}; complex matrices are not supported")


def _stack(a, name, dtype=None):
    """A (..., m, n) as a writable (batch, n, m) C-ordered array of float32 or
    float64: each matrix Fortran-ordered, the stack flattened, the input
    copied (whatever its strides and byte order) and never modified."""
    arr = _np.asarray(a)
    if arr.ndim < 2:
        raise ValueError(f"{name} must be an array of at least 2 dimensions (..., m, n), got {arr.ndim}-D")
    dtype = dtype or _real_dtype(arr, name)
    *lead, m, n = arr.shape
    lead = tuple(lead)
    work = _np.empty((int(_np.prod(lead, dtype=_np.int64)), n, m), dtype=dtype)
    work.reshape(lead + (n, m))[...] = arr.swapaxes(-1, -2)
    return work, lead, m, n


def _stack_as_it_lies(a):
    """A nonempty (..., m, n) stack of float32 or float64 in this machine's
    byte order, with strides of whole elements, as a (batch, m, n) view that
    the library reads where it lies (a copy only where the leading
    dimensions cannot be flattened into one); None for anything else, which
    _stack copies."""
    arr = _np.asarray(a)
    if arr.ndim < 2 or arr.size == 0 or arr.dtype not in (_np.dtype(_np.float64), _np.dtype(_np.float32)):
        return None
    if not arr.dtype.isnative:
        return None
    *lead, m, n = arr.shape
    flat = arr.reshape((-1, m, n))
    if any(stride % arr.itemsize for stride in flat.strides):
        return None
    return flat, tuple(lead), m, n


def _matrix(a, name, ndim=(2,), dtype=None):
    """A (m, n) (or (m,), read as a column, where ndim allows) as a writable
    Fortran-ordered copy."""
    arr = _np.asarray(a)
    if arr.ndim not in ndim:
        raise ValueError(f"{name} must be a {' or '.join(f'{d}-D' for d in ndim)} array, got {arr.ndim}-D")
    dtype = dtype or _real_dtype(arr, name)
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


def _check_finite(work, name):
    # min and max carry a NaN through, and show an infinity, without a
    # temporary as large as the input.
    if work.size and not (_np.isfinite(work.min()) and _np.isfinite(work.max())):
        raise ValueError(f"{name} contains NaN or infinity")


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
        arr = _np.asarray(b)
        vector = arr.ndim == 1
        mat = _matrix(arr, "B", ndim=(1, 2), dtype=self.dtype)
        if vector:
            mat = mat.reshape(-1, 1, order="F")
        if mat.shape[0] != self.shape[0]:
            raise ValueError(f"B has {mat.shape[0]} rows, the factored matrix {self.shape[0]}")
        _check_finite(mat, "B")
        (self._f.dormqr if self.dtype == _np.float64 else self._f.sormqr)(trans, mat)
        return mat[:, 0] if vector else mat

    def apply_qt(self, b):
        """Q^T B as a new array (B: (m,) or (m, k))."""
        return self._apply(b, "T")

    def apply_q(self, b):
        """Q B as a new array (B: (m,) or (m, k))."""
        return self._apply(b, "N")

    def q(self, mode="reduced"):
        """Q: (m, min(m, n)) for mode 'reduced', (m, m) for 'complete'."""
        m, n = self.shape
        if mode not in ("reduced", "complete"):
            raise ValueError(f"mode must be 'reduced' or 'complete', got {mode!r}")
        k = min(m, n) if mode == "reduced" else m
        return (self._f.dorgqr if self.dtype == _np.float64 else self._f.sorgqr)(k)


def _check_backend(backend):
    if backend not in ("cpu", "gpu"):
        raise ValueError(f"backend must be 'cpu' or 'gpu', got {backend!r}")


def _geqrf(work, keep, backend, tree, tile, threads):
    """Factors each matrix of the (batch, n, m) stack in place (R on and
    above the diagonal, zeros below); returns the binding's factors, one
    per matrix, when `keep`."""
    _check_backend(backend)
    if backend == "gpu":
        return _gpu_geqrf(work, keep, tree, tile, threads)
    opts = _options(tree, tile, threads)
    return (_tiledqr.dgeqrf_batch if work.dtype == _np.float64 else _tiledqr.sgeqrf_batch)(work, keep, **opts)


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
    arr = _np.asarray(a)
    if arr.ndim != 2:
        raise ValueError(f"A must be a 2-D array, got {arr.ndim}-D")
    work, _, m, n = _stack(arr, "A")
    handle = _geqrf(work, True, backend, tree, tile, threads)[0]
    k = min(m, n)
    return Factors(handle, _np.ascontiguousarray(work[0, :, :k].T), work.dtype)


def _gpu_geqrf(work, keep, tree, tile, threads):
    status, message = _tiledqr.gpu_status()
    if status != 0:
        raise RuntimeError(f"backend='gpu' is not available: {message}")
    if threads is not None:
        raise ValueError("threads applies to backend='cpu' only")
    opts = _options(tree, tile, None)  # the GPU library says which tiles it runs
    return (_tiledqr.dgpu_geqrf_batch if work.dtype == _np.float64 else _tiledqr.sgpu_geqrf_batch)(
        work, keep, opts["tree"], opts["tile"])


def qr(a, mode="reduced", backend="cpu", tree=None, tile=None, threads=None):
    """QR factorisation of A (..., m, n), as numpy.linalg.qr.

    mode 'reduced': (Q (..., m, k), R (..., k, n)) with k = min(m, n);
    'complete': (Q (..., m, m), R (..., m, n)); 'r': R (..., k, n) only
    (NumPy's 'raw' is not offered). A stack of matrices is factored in
    parallel, each matrix on one thread when there are at least as many
    matrices as threads. Other arguments as factor().
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    _check_backend(backend)
    in_place = _stack_as_it_lies(a) if backend == "cpu" else None
    if in_place is not None:
        flat, lead, m, n = in_place
        work = _np.empty((flat.shape[0], n, m), dtype=flat.dtype)
    else:
        work, lead, m, n = _stack(a, "A")
    k = min(m, n)
    cols = k if mode == "reduced" else m
    if in_place is not None and mode == "r":  # R only: no columns of Q
        (_tiledqr.dqr_batch_strided if work.dtype == _np.float64 else _tiledqr.sqr_batch_strided)(
            flat, work, 0, **_options(tree, tile, threads))
    elif in_place is not None:
        # R and Q together, no handles; each matrix is read where it lies and
        # copied into `work` by the thread that factors it.
        q = (_tiledqr.dqr_batch_strided if work.dtype == _np.float64 else _tiledqr.sqr_batch_strided)(
            flat, work, cols, **_options(tree, tile, threads))
    elif backend == "cpu" and mode != "r":  # R and Q together, matrix by matrix, no handles
        q = (_tiledqr.dqr_batch if work.dtype == _np.float64 else _tiledqr.sqr_batch)(
            work, cols, **_options(tree, tile, threads))
    else:
        handles = _geqrf(work, mode != "r", backend, tree, tile, threads)
        if mode != "r":
            q = (_tiledqr.dorgqr_batch if work.dtype == _np.float64 else _tiledqr.sorgqr_batch)(handles, m, cols, 0)
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


def lstsq(a, b, tree=None, tile=None, threads=None):
    """X = argmin ||A X - B|| for A (m, n) of full rank; B (m,) or (m, k).

    Returns X only ((n,) or (n, k)), numpy.linalg.lstsq's first result. For
    m >= n, X comes from A = Q R (R X = Q^T B); for m < n (underdetermined)
    it is the solution of least norm, as NumPy's, from A^T = Q R: X = Q Y
    with R^T Y = B. An empty A (m or n of 0) or B (k = 0) gives X of zeros,
    as NumPy. Raises numpy.linalg.LinAlgError when some |R_ii| <=
    max(m, n) * eps * max_j |R_jj| (A not of full rank), where NumPy would
    return a solution of its own choosing.
    """
    arr_a, arr_b = _np.asarray(a), _np.asarray(b)
    if arr_a.ndim != 2:
        raise ValueError(f"A must be a 2-D array, got {arr_a.ndim}-D")
    if arr_b.ndim not in (1, 2):
        raise ValueError(f"B must be a 1-D or 2-D array, got {arr_b.ndim}-D")
    dtype = _np.result_type(_real_dtype(arr_a, "A"), _real_dtype(arr_b, "B"))
    m, n = arr_a.shape
    vector = arr_b.ndim == 1
    if arr_b.shape[0] != m:
        raise ValueError(f"B has {arr_b.shape[0]} rows, A has {m}")
    if 0 < m < n:
        if arr_b.ndim == 2 and arr_b.shape[1] == 0:
            return _np.zeros((n, 0), dtype=dtype)
        return _least_norm(arr_a, arr_b, dtype, tree, tile, threads)
    mat = _matrix(arr_a, "A", dtype=dtype)
    nrhs = 1 if vector else arr_b.shape[1]
    # B's rows: max(m, n), as LAPACK's ?gels (n > m only when m = 0).
    rhs = _np.empty((max(m, n), nrhs), dtype=dtype, order="F")
    rhs[:m, :] = arr_b.reshape(m, nrhs)
    rhs[m:, :] = 0
    opts = _options(tree, tile, threads)
    (_tiledqr.dgels if dtype == _np.float64 else _tiledqr.sgels)(mat, rhs, **opts)
    x = rhs[:n, :].copy()
    return x[:, 0] if vector else x


def _least_norm(a, b, dtype, tree, tile, threads):
    """X of least norm with A X = B, A (m, n) of rank m < n: A^T = Q R, then
    R^T Y = B and X = Q [Y; 0]."""
    m, n = a.shape
    rhs = _matrix(b, "B", ndim=(1, 2), dtype=dtype)
    _check_finite(rhs, "B")
    f = factor(_np.asarray(a, dtype=dtype).T, tree=tree, tile=tile, threads=threads)
    r = f.r()
    diagonal = _np.abs(_np.diag(r))
    if not (diagonal > max(m, n) * _np.finfo(dtype).eps * diagonal.max()).all():
        raise _np.linalg.LinAlgError(f"A ({m}x{n}) is rank-deficient: some |R_ii| <= max(m, n) * eps * "
                                     "max_j |R_jj| in the QR factorisation of its transpose")
    y = _np.zeros((n,) + rhs.shape[1:], dtype=dtype)
    y[:m] = _np.linalg.solve(r.T, rhs)  # R^T is lower triangular and nonsingular
    return f.apply_q(y)
