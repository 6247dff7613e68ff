"""tiledqr: QR factorisation and least squares of NumPy arrays with the tile
algorithm of Buttari, Langou, Kurzak and Dongarra, on CPU threads or an
NVIDIA GPU.

    >>> import numpy, tiledqr
    >>> a = numpy.random.default_rng(1).standard_normal((500, 200))
    >>> q, r = tiledqr.qr(a)                    # as numpy.linalg.qr(a)
    >>> x = tiledqr.lstsq(a, numpy.ones(500))   # argmin ||a x - b||
    >>> f = tiledqr.factor(a); qtb = f.apply_qt(numpy.ones(500))

float32 and float64 arrays keep their precision (other real arrays become
float64); C- and Fortran-ordered inputs both work and are never modified.
Bad input raises ValueError; a rank-deficient least-squares problem raises
numpy.linalg.LinAlgError. The library releases the GIL while it works.
"""

import numpy as _np

from . import _tiledqr

__all__ = ["qr", "lstsq", "factor", "Factors", "gpu_available", "__version__"]
__version__ = _tiledqr.version()

_TREES = {None: 0, "auto": 0, "flat": 1, "binary": 2, "greedy": 3}
_KERNELS = {"lapack": 0, "reference": 1}


def gpu_available():
    """True when the GPU backend can run here (built with CUDA, a device with code for it)."""
    return _tiledqr.gpu_status()[0] == 0


def _as_matrix(a, name, ndim=(2,)):
    """A writable Fortran-ordered float32/float64 copy of `a`, checked."""
    arr = _np.asarray(a)
    if arr.ndim not in ndim:
        raise ValueError(f"{name} must be a {' or '.join(f'{d}-D' for d in ndim)} array, got {arr.ndim}-D")
    if arr.dtype == _np.float32 or arr.dtype == _np.float64:
        dtype = arr.dtype
    elif _np.issubdtype(arr.dtype, _np.integer) or arr.dtype == _np.bool_:
        dtype = _np.float64
    else:
        raise ValueError(f"{name} must hold real numbers (float32, float64 or integers), got dtype {arr.dtype}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    out = _np.array(arr, dtype=dtype, order="F", copy=True)
    if not _np.isfinite(out).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return out


def _int_option(value, name, default=0):
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, _np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    return int(value)


def _options(tree, tile, threads, kernels="lapack", inner_block=None):
    if tree not in _TREES:
        raise ValueError(f"tree must be one of 'flat', 'binary', 'greedy' or None, got {tree!r}")
    if kernels not in _KERNELS:
        raise ValueError(f"kernels must be 'lapack' or 'reference', got {kernels!r}")
    return dict(tile=_int_option(tile, "tile"), inner_block=_int_option(inner_block, "inner_block"),
                tree=_TREES[tree], threads=_int_option(threads, "threads"), backend=_KERNELS[kernels])


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
        mat = _as_matrix(arr, "B", ndim=(1, 2)).astype(self.dtype, order="F", copy=False)
        if vector:
            mat = mat.reshape(-1, 1, order="F")
        if mat.shape[0] != self.shape[0]:
            raise ValueError(f"B has {mat.shape[0]} rows, the factored matrix {self.shape[0]}")
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


def factor(a, backend="cpu", tree=None, tile=None, threads=None):
    """Factors A (m, n) = Q R and returns a Factors object.

    backend 'cpu' runs CPU threads (threads=None: every CPU of this process),
    'gpu' the GPU task scheduler (tile 32; the reflectors come back to the
    host for Factors' methods). tree: 'flat', 'binary', 'greedy' or None
    (chosen from the shape). tile: the tile size (None: 32).
    """
    mat = _as_matrix(a, "A")
    if backend == "cpu":
        opts = _options(tree, tile, threads)
        handle = (_tiledqr.dgeqrf if mat.dtype == _np.float64 else _tiledqr.sgeqrf)(mat, True, **opts)
    elif backend == "gpu":
        handle = _gpu_geqrf(mat, True, tree, tile, threads)
    else:
        raise ValueError(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    k = min(mat.shape)
    return Factors(handle, _np.triu(mat[:k, :]), mat.dtype)


def _gpu_geqrf(mat, keep, tree, tile, threads):
    status, message = _tiledqr.gpu_status()
    if status != 0:
        raise RuntimeError(f"backend='gpu' is not available: {message}")
    if tile not in (None, 32):
        raise ValueError(f"the GPU backend runs tile 32 only, got tile={tile!r}")
    if threads is not None:
        raise ValueError("threads applies to backend='cpu' only")
    _options(tree, None, None)  # checks the tree's name
    return (_tiledqr.dgpu_geqrf if mat.dtype == _np.float64 else _tiledqr.sgpu_geqrf)(mat, keep, _TREES[tree])


def qr(a, mode="reduced", backend="cpu", tree=None, tile=None, threads=None):
    """QR factorisation of A (m, n), as numpy.linalg.qr.

    mode 'reduced': (Q (m, k), R (k, n)) with k = min(m, n); 'complete':
    (Q (m, m), R (m, n)); 'r': R (k, n) only. Other arguments as factor().
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    if mode == "r":
        mat = _as_matrix(a, "A")
        if backend == "cpu":
            opts = _options(tree, tile, threads)
            (_tiledqr.dgeqrf if mat.dtype == _np.float64 else _tiledqr.sgeqrf)(mat, False, **opts)
        elif backend == "gpu":
            _gpu_geqrf(mat, False, tree, tile, threads)
        else:
            raise ValueError(f"backend must be 'cpu' or 'gpu', got {backend!r}")
        return _np.triu(mat[: min(mat.shape), :])
    f = factor(a, backend=backend, tree=tree, tile=tile, threads=threads)
    r = f.r()
    if mode == "complete" and f.shape[0] > f.shape[1]:
        r = _np.vstack([r, _np.zeros((f.shape[0] - r.shape[0], r.shape[1]), dtype=r.dtype)])
    return f.q(mode), r


def lstsq(a, b, tree=None, tile=None, threads=None):
    """X = argmin ||A X - B|| for A (m, n), m >= n, of full rank; B (m,) or (m, k).

    Returns X only ((n,) or (n, k)). Raises numpy.linalg.LinAlgError when
    some |R_ii| <= max(m, n) * eps * max_j |R_jj| (rank-deficient A).
    """
    mat = _as_matrix(a, "A")
    arr = _np.asarray(b)
    vector = arr.ndim == 1
    rhs = _as_matrix(arr, "B", ndim=(1, 2))
    dtype = _np.result_type(mat.dtype, rhs.dtype)
    mat = mat.astype(dtype, order="F", copy=False)
    rhs = rhs.astype(dtype, order="F", copy=False)
    if vector:
        rhs = rhs.reshape(-1, 1, order="F")
    m, n = mat.shape
    if rhs.shape[0] != m:
        raise ValueError(f"B has {rhs.shape[0]} rows, A has {m}")
    if m < n:
        raise ValueError(f"lstsq needs m >= n (A is {m}x{n}: underdetermined)")
    opts = _options(tree, tile, threads)
    (_tiledqr.dgels if dtype == _np.float64 else _tiledqr.sgels)(mat, rhs, **opts)
    x = rhs[:n, :].copy()
    return x[:, 0] if vector else x
