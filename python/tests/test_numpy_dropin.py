# tiledqr.qr and tiledqr.lstsq as drop-ins for numpy.linalg.qr and
# numpy.linalg.lstsq: the cases of NumPy's own TestQR and TestLstsq
# (numpy/linalg/tests/test_linalg.py) — empty matrices, stacks, strided and
# reversed views, byte order, dtypes, right-hand-side shapes — each checked
# against numpy.linalg on the same input, and the argument checks.
# Random inputs come from TILEDQR_TEST_SEED (printed).
import inspect
import os

import numpy as np
import pytest

import tiledqr

SEED = int(os.environ.get("TILEDQR_TEST_SEED", "20261127"))
print(f"TILEDQR_TEST_SEED={SEED}")

# Pass rule of a factorisation: ||A - QR||_F / (||A||_F n eps) < 50 and
# ||I - Q^T Q||_F / (n eps) < 50 for each matrix, as the stage programs'.
TOL = 50
MODES = ["reduced", "complete", "r"]


def rng(salt):
    return np.random.default_rng(SEED * 1000003 + salt)


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def check_like_numpy(a, mode, **kwargs):
    """tiledqr.qr(a, mode) has numpy.linalg.qr's shapes and dtypes; each
    matrix's factors reproduce it (pass rule above), R is upper triangular and
    agrees with NumPy's up to the signs of its rows."""
    got = as_tuple(tiledqr.qr(a, mode=mode, **kwargs))
    want = as_tuple(np.linalg.qr(a, mode=mode))
    assert [g.shape for g in got] == [w.shape for w in want]
    assert [g.dtype for g in got] == [w.dtype for w in want]
    r, r_np = got[-1], want[-1]
    eps = np.finfo(r.dtype).eps
    m, n = a.shape[-2:]
    assert np.array_equal(r, np.triu(r))
    scale = max(m, n, 1) * eps * 100 * max(np.abs(r_np).max(initial=0.0), 1.0)
    assert np.allclose(np.abs(r), np.abs(r_np), rtol=0, atol=scale)
    if mode == "r":
        return got
    q = got[0]
    batch = int(np.prod(a.shape[:-2]))
    a64 = np.asarray(a, dtype=np.float64).reshape(batch, m, n)
    q64 = q.astype(np.float64).reshape(batch, m, q.shape[-1])
    r64 = r.astype(np.float64).reshape(batch, r.shape[-2], n)
    for i in range(batch):
        if m and n:
            norm_a = np.linalg.norm(a64[i])
            assert np.linalg.norm(a64[i] - q64[i] @ r64[i]) <= TOL * max(norm_a, np.finfo(float).tiny) * n * eps
        k = q64.shape[-1]
        assert np.linalg.norm(np.eye(k) - q64[i].T @ q64[i]) <= TOL * max(n, 1) * eps
    return got


# NumPy's TestQR.test_qr_empty: every mode on (3, 0), (0, 3), (0, 0); the
# complete Q of an m×0 matrix is the identity, as NumPy's.
@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0)])
@pytest.mark.parametrize("mode", MODES)
def test_empty(shape, mode):
    a = np.zeros(shape)
    got = check_like_numpy(a, mode)
    if mode == "complete":
        assert np.array_equal(got[0], np.eye(shape[0]))


# Stacks (NumPy's test_stacked_inputs): outer shapes including an empty
# stack, square, tall and wide matrices, both precisions, every mode.
@pytest.mark.parametrize("outer", [(2,), (3, 4), (0,), (1,), (50,)])
@pytest.mark.parametrize("size", [(3, 4), (4, 3), (4, 4), (3, 0), (0, 3), (20, 8), (8, 20)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
def test_stacked(outer, size, dtype, mode):
    a = rng(len(outer) * 100 + size[0] * 10 + size[1]).standard_normal(outer + size).astype(dtype)
    before = a.copy()
    check_like_numpy(a, mode)
    assert np.array_equal(a, before), "the input must not be modified"


# A stack of 1000 matrices 64×64 (spread over the workers, each matrix on
# one) and one of 3 matrices 300×200 (each on all workers) give each
# matrix's own factorisation: equal, to rounding, to factoring it alone.
@pytest.mark.parametrize("shape", [(1000, 64, 64), (3, 300, 200)])
def test_stack_matches_each_matrix(shape):
    a = rng(7).standard_normal(shape)
    q, r = check_like_numpy(a, "reduced")
    for i in (0, shape[0] // 2, shape[0] - 1):
        q1, r1 = tiledqr.qr(a[i])
        assert np.allclose(q[i] @ r[i], q1 @ r1, atol=1e-12 * shape[1])
        assert np.allclose(np.abs(r[i]), np.abs(r1), atol=1e-12 * shape[1])


# Views: every other row or column, reversed rows or columns (negative
# strides), a transpose, a slice of a stack; the result equals that of
# the same matrix as a fresh contiguous array.
VIEWS = {
    "rows_step": lambda x: x[::2, :],
    "cols_step": lambda x: x[:, ::3],
    "reversed_rows": lambda x: x[::-1, :],
    "reversed_both": lambda x: x[::-2, ::-1],
    "transposed": lambda x: x.T,
    "fortran": lambda x: np.asfortranarray(x),
}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("mode", MODES)
def test_strided_views(view, mode):
    base = rng(11).standard_normal((61, 37))
    a = VIEWS[view](base)
    got = check_like_numpy(a, mode)
    contiguous = as_tuple(tiledqr.qr(np.ascontiguousarray(a), mode=mode))
    for g, c in zip(got, contiguous):
        assert np.array_equal(g, c), "a view and its contiguous copy factor alike"


def test_strided_stack():
    base = rng(12).standard_normal((6, 30, 20))
    a = base[::-2, 1::2, ::-1]
    check_like_numpy(a, "reduced")
    check_like_numpy(np.moveaxis(base, 0, -1), "complete")


# Either byte order, as NumPy: the precision stays, the values are the same.
@pytest.mark.parametrize("dtype", [">f8", "<f8", ">f4", "<f4", ">i4", "<i8", ">u2"])
@pytest.mark.parametrize("mode", MODES)
def test_byte_orders(dtype, mode):
    native = rng(13).standard_normal((40, 25)) * 10
    a = native.astype(dtype)
    got = check_like_numpy(a, mode)
    same = as_tuple(tiledqr.qr(a.astype(a.dtype.newbyteorder("=")), mode=mode))
    for g, s in zip(got, same):
        assert g.dtype.isnative and np.array_equal(g, s)


# dtypes: float32 and float64 keep their precision; integers, booleans and
# objects become float64 as in NumPy; float16 and long double are refused
# with TypeError as NumPy refuses them; complex with ValueError (the
# docstring says so).
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int32, np.uint64, np.bool_, object])
def test_dtypes_like_numpy(dtype):
    a = (rng(17).standard_normal((9, 7)) * 4).astype(dtype)
    if dtype == np.bool_:
        a = a | np.eye(9, 7, dtype=bool)
    for mode in MODES:
        check_like_numpy(a, mode)


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble])
def test_float16_and_longdouble_refused_as_numpy(dtype):
    a = np.eye(4, dtype=dtype)
    with pytest.raises(TypeError):
        np.linalg.qr(a)
    with pytest.raises(TypeError, match=str(np.dtype(dtype))):
        tiledqr.qr(a)
    with pytest.raises(TypeError, match=str(np.dtype(dtype))):
        tiledqr.lstsq(a, np.ones(4))


# Every public function and method that takes an array refuses the same
# inputs in the same way, whichever argument holds them and on either
# backend (the refusals come before the GPU is asked for): complex entries
# and objects that are not real numbers with ValueError, float16 and long
# double with TypeError, NaN or infinity with ValueError. The callables are
# found by walking tiledqr's public names, so a new one is checked too.
def public_callables():
    f = tiledqr.factor(np.eye(4) + 1)
    found = {name: getattr(tiledqr, name) for name in tiledqr.__all__
             if callable(getattr(tiledqr, name)) and not isinstance(getattr(tiledqr, name), type)}
    found.update({f"Factors.{name}": getattr(f, name) for name in dir(tiledqr.Factors)
                  if not name.startswith("_") and callable(getattr(f, name))})
    return found


def required_parameters(fn):
    return [p.name for p in inspect.signature(fn).parameters.values() if p.default is p.empty]


NO_ARRAY = {"gpu_available", "Factors.r", "Factors.q"}  # the public callables that take no array
VALID = {"a": np.eye(4) + 1, "b": np.arange(4.0) + 1}
REFUSED = {
    "complex128": (lambda x: x.astype(complex), ValueError, "complex"),
    "complex64": (lambda x: x.astype(np.complex64) * 1j, ValueError, "complex"),
    "object holding a complex": (lambda x: np.where(x == x.flat[0], 2j, x).astype(object), ValueError, "real numbers"),
    "float16": (lambda x: x.astype(np.float16), TypeError, "float16"),
    "long double": (lambda x: x.astype(np.longdouble), TypeError, str(np.dtype(np.longdouble))),
    "NaN": (lambda x: np.where(x == x.flat[-1], np.nan, x), ValueError, "NaN"),
    "infinity": (lambda x: np.where(x == x.flat[0], -np.inf, x).astype(np.float32), ValueError, "NaN or infinity"),
}


def test_every_public_callable_is_found():
    calls = public_callables()
    assert {name for name, fn in calls.items() if not required_parameters(fn)} == NO_ARRAY
    assert {"qr", "lstsq", "factor", "Factors.apply_qt", "Factors.apply_q"} <= set(calls)
    for name, fn in calls.items():
        assert set(required_parameters(fn)) <= set(VALID), f"{name} takes an argument this test does not know"


@pytest.mark.parametrize("refusal", sorted(REFUSED))
@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_every_array_argument_refused_alike(refusal, backend):
    make, error, text = REFUSED[refusal]
    walked = 0
    for name, fn in sorted(public_callables().items()):
        params = required_parameters(fn)
        kwargs = {"backend": backend} if "backend" in inspect.signature(fn).parameters else {}
        for bad in params:
            args = {p: VALID[p] for p in params}
            args[bad] = make(VALID[bad])
            with pytest.raises(error, match=text):
                fn(**args, **kwargs)
            walked += 1
    assert walked == 6  # qr(a), factor(a), lstsq(a, b), apply_q(b), apply_qt(b)


# NumPy's TestLstsq.test_empty_a_b and its right-hand-side shapes: X has
# NumPy's shape and is zero where A or B is empty; otherwise it is NumPy's
# solution to 100 n eps.
LSTSQ_SHAPES = [(4, 2, 2), (0, 4, 1), (0, 4, 2), (4, 0, 1), (4, 0, 2), (4, 2, 0), (0, 0, 0), (0, 0, 3), (30, 30, 1),
                (50, 7, 3), (2, 4, 1), (7, 50, 3), (30, 31, 2), (3, 5, 0)]
# (m, n, k, B 1-D): a 1-D right-hand side is one column.
LSTSQ_CASES = [(m, n, k, False) for m, n, k in LSTSQ_SHAPES] + [(m, n, k, True) for m, n, k in LSTSQ_SHAPES if k == 1]


@pytest.mark.parametrize("m,n,k,vector", LSTSQ_CASES)
def test_lstsq_shapes_like_numpy(m, n, k, vector):
    g = rng(m * 100 + n * 10 + k)
    a = g.standard_normal((m, n))
    b = g.standard_normal((m,) if vector else (m, k))
    x = tiledqr.lstsq(a, b)
    x_np = np.linalg.lstsq(a, b, rcond=None)[0]
    assert x.shape == x_np.shape and x.dtype == x_np.dtype
    if m == 0 or n == 0 or k == 0:
        assert not x.any()
    else:
        assert np.linalg.norm(x - x_np) <= 100 * n * np.finfo(float).eps * np.linalg.norm(x_np)


# The same cases with backend='gpu', both precisions: NumPy's shapes and
# dtypes, X of zeros where A or B is empty, otherwise NumPy's solution (in
# float64) to 100·max(m, n)·ε·(κ + κ²·‖r‖/(‖A‖·‖X‖))·‖X‖, the least-squares
# perturbation bound (κ = cond(A), r = B − A X; Golub and Van Loan §5.3).
# Skipped without a GPU.
gpu = pytest.mark.skipif(not tiledqr.gpu_available(), reason=f"GPU backend: {tiledqr.gpu_available()}")


@gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m,n,k,vector", LSTSQ_CASES + [(300, 64, 3, False), (1000, 200, 1, True), (64, 300, 2, False)])
def test_lstsq_gpu_like_numpy(m, n, k, vector, dtype):
    g = rng(m * 100 + n * 10 + k + 7)
    a = g.standard_normal((m, n)).astype(dtype)
    b = g.standard_normal((m,) if vector else (m, k)).astype(dtype)
    before = (a.copy(), b.copy())
    x = tiledqr.lstsq(a, b, backend="gpu")
    x_np = np.linalg.lstsq(a, b, rcond=None)[0]
    assert x.shape == x_np.shape and x.dtype == x_np.dtype == dtype
    assert np.array_equal(a, before[0]) and np.array_equal(b, before[1]), "the inputs must not be modified"
    if m == 0 or n == 0 or k == 0:
        assert not x.any()
        return
    x64 = np.linalg.lstsq(a.astype(np.float64), b.astype(np.float64), rcond=None)[0]
    kappa = np.linalg.cond(a.astype(np.float64))
    residual = np.linalg.norm(b - a.astype(np.float64) @ x64)
    norm_x = np.linalg.norm(x64)
    bound = 100 * max(m, n) * np.finfo(dtype).eps * (kappa + kappa**2 * residual / (np.linalg.norm(a, 2) * norm_x))
    assert np.linalg.norm(x - x64) <= bound * norm_x


@gpu
def test_lstsq_gpu_options_and_errors():
    g = rng(31)
    a = g.standard_normal((200, 50))
    b = g.standard_normal((200, 2))
    x_np = np.linalg.lstsq(a, b, rcond=None)[0]
    for kwargs in ({"tile": 32}, {"tile": 64, "tree": "binary"}, {"tile": 128, "tree": "greedy"}, {"tree": "flat"}):
        x = tiledqr.lstsq(a, b, backend="gpu", **kwargs)
        assert np.linalg.norm(x - x_np) <= 1e-12 * np.linalg.norm(x_np), kwargs
    with pytest.raises(ValueError, match="tiles of 32, 64, 128 or 256"):
        tiledqr.lstsq(a, b, backend="gpu", tile=48)
    deficient = a.copy()
    deficient[:, 7] = deficient[:, 3]
    with pytest.raises(np.linalg.LinAlgError, match="rank-deficient"):
        tiledqr.lstsq(deficient, b, backend="gpu")
    with pytest.raises(np.linalg.LinAlgError, match="rank-deficient"):
        tiledqr.lstsq(deficient.T[:, :100], b[:50], backend="gpu")  # underdetermined, A^T factored on the GPU


# The argument checks of lstsq(backend='gpu') are the CPU's and come before
# the GPU is asked for, so these hold with or without one.
@pytest.mark.parametrize(
    "kwargs,error,text",
    [({"a": np.ones((2, 3, 3))}, ValueError, "2-D"), ({"b": np.ones((4, 1, 1))}, ValueError, "1-D or 2-D"),
     ({"b": np.ones(5)}, ValueError, "rows"), ({"tree": "star"}, ValueError, "tree"),
     ({"tile": -1}, ValueError, "tile"), ({"tile": 2**31}, ValueError, "tile"), ({"threads": 2}, ValueError, "threads"),
     ({"backend": "tpu"}, ValueError, "backend"), ({"b": np.array([1.0, np.inf, 0, 0])}, ValueError, "NaN")],
)
def test_lstsq_gpu_bad_arguments(kwargs, error, text):
    args = {"a": np.eye(4) + 1, "b": np.ones(4), "backend": "gpu"}
    args.update(kwargs)
    with pytest.raises(error, match=text):
        tiledqr.lstsq(**args)


def test_lstsq_views_and_byte_order():
    g = rng(23)
    base = g.standard_normal((90, 20))
    b = g.standard_normal((90, 2))
    x = tiledqr.lstsq(base[::-1], b[::-1])
    x_np = np.linalg.lstsq(base[::-1], b[::-1], rcond=None)[0]
    assert np.allclose(x, x_np, rtol=0, atol=1e-12)
    x_be = tiledqr.lstsq(base.astype(">f8"), b.astype(">f4"))
    assert x_be.dtype == np.float64
    assert np.allclose(x_be, np.linalg.lstsq(base, b.astype(np.float32), rcond=None)[0], rtol=0, atol=1e-6)


# Arguments: tile 0 or None lets the library choose; a tile larger than the
# matrix is cut to it (fast: the 300×200 matrix with tile 8192 took 26 s and
# 552 MB before); threads beyond the CPUs are cut to them; integers outside
# the C interface's range are ValueErrors naming the argument, without the
# array in the message.
def test_tile_and_threads_are_cut_to_fit():
    a = rng(29).standard_normal((300, 200))
    for kwargs in ({"tile": 0}, {"tile": None}, {"tile": 8192}, {"tile": 2**31 - 1}, {"threads": 100000},
                   {"threads": 2**31 - 1, "tile": 4096}):
        check_like_numpy(a, "reduced", **kwargs)
    check_like_numpy(rng(30).standard_normal((5, 3)), "complete", tile=4096)


@pytest.mark.parametrize(
    "kwargs,name",
    [({"tile": 2**63}, "tile"), ({"tile": 2**31}, "tile"), ({"tile": -1}, "tile"), ({"threads": 2**31}, "threads"),
     ({"threads": -2}, "threads"), ({"tile": 3.0}, "tile"), ({"threads": "2"}, "threads"), ({"tile": True}, "tile")],
)
@pytest.mark.parametrize("call", ["qr", "lstsq", "factor"])
def test_out_of_range_arguments(kwargs, name, call):
    a = np.full((40, 30), 7.0) + np.eye(40, 30)
    fn = {"qr": lambda: tiledqr.qr(a, **kwargs), "lstsq": lambda: tiledqr.lstsq(a, np.ones(40), **kwargs),
          "factor": lambda: tiledqr.factor(a, **kwargs)}[call]
    with pytest.raises(ValueError, match=name) as error:
        fn()
    assert "7." not in str(error.value), "the message must not print the array"


def test_qr_mode_raw_and_bad_shapes():
    with pytest.raises(ValueError, match="mode"):
        tiledqr.qr(np.eye(3), mode="raw")
    with pytest.raises(ValueError, match="2 dimensions"):
        tiledqr.qr(np.ones(3))
    with pytest.raises(ValueError, match="2-D"):
        tiledqr.lstsq(np.ones((2, 3, 3)), np.ones(3))
    with pytest.raises(ValueError, match="NaN"):
        tiledqr.qr(np.stack([np.eye(3), np.full((3, 3), np.inf)]))
