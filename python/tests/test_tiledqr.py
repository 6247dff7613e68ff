# pytest tests of the Python module tiledqr against numpy.linalg.qr and
# numpy.linalg.lstsq. Random inputs come from TILEDQR_TEST_SEED (printed);
# GPU tests skip where tiledqr.gpu_available() is false.
import os
import re
import threading

import numpy as np
import pytest

import tiledqr

SEED = int(os.environ.get("TILEDQR_TEST_SEED", "20261125"))
print(f"TILEDQR_TEST_SEED={SEED}")

# Pass rule for a factorisation: ||A - QR||_F / (||A||_F n eps) < 50 and
# ||I - Q^T Q||_F / (n eps) < 50, as the stage programs' check.
TOL = 50


def rng(salt):
    return np.random.default_rng(SEED * 1000003 + salt)


def assert_qr(a, q, r):
    a64 = a.astype(np.float64)
    eps = np.finfo(q.dtype).eps
    n = a.shape[1]
    assert np.linalg.norm(a64 - q.astype(np.float64) @ r) / (np.linalg.norm(a64) * n * eps) < TOL
    # Q's own order k (m for a complete Q) normalises its orthogonality, as
    # LAPACK's QR tests divide by M: a 1000 x 1000 Q of a 1000 x 1 matrix
    # carries rounding from all its 1000 columns.
    k = q.shape[1]
    assert np.linalg.norm(np.eye(k) - q.T.astype(np.float64) @ q) / (max(n, k, 1) * eps) < TOL
    assert np.array_equal(r, np.triu(r))


SHAPES = [(1, 1), (7, 3), (3, 7), (64, 64), (130, 45), (45, 130), (300, 33)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_reduced_matches_numpy(dtype, shape, order):
    a = np.asarray(rng(shape[0] * 7 + shape[1]).standard_normal(shape), dtype=dtype, order=order)
    before = a.copy()
    q, r = tiledqr.qr(a)
    assert q.dtype == dtype and r.dtype == dtype
    k = min(shape)
    assert q.shape == (shape[0], k) and r.shape == (k, shape[1])
    assert_qr(a, q, r)
    assert np.array_equal(a, before), "the input must not be modified"
    # R agrees with LAPACK's up to the signs of its rows.
    r_np = np.linalg.qr(a.astype(np.float64), mode="r")
    scale = np.linalg.norm(r_np) * np.finfo(dtype).eps * 100 * max(shape)
    assert np.linalg.norm(np.abs(r.astype(np.float64)) - np.abs(r_np)) <= scale


@pytest.mark.parametrize("shape", [(40, 15), (15, 40), (33, 33)])
def test_complete_and_r_modes(shape):
    a = rng(3).standard_normal(shape)
    q, r = tiledqr.qr(a, mode="complete")
    q_np, r_np = np.linalg.qr(a, mode="complete")
    assert q.shape == q_np.shape and r.shape == r_np.shape
    assert_qr(a, q, r)
    r_only = tiledqr.qr(a, mode="r")
    assert r_only.shape == np.linalg.qr(a, mode="r").shape
    assert np.allclose(np.abs(r_only), np.abs(r[: min(shape)]), rtol=0, atol=1e-12 * np.abs(r).max())


@pytest.mark.parametrize("tree", ["flat", "binary", "greedy", None])
@pytest.mark.parametrize("tile,threads", [(8, 1), (16, 3), (None, None)])
def test_options(tree, tile, threads):
    a = rng(5).standard_normal((200, 60))
    q, r = tiledqr.qr(a, tree=tree, tile=tile, threads=threads)
    assert_qr(a, q, r)


@pytest.mark.parametrize("view", ["C", "F", "reversed rows", "every other matrix", "transposed"])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_stack_read_where_it_lies(view, mode):
    """A stack in native byte order is read where it lies (each matrix
    copied by the thread that factors it): the same bits as a big-endian
    copy of it, which goes through the copying path."""
    base = rng(19).standard_normal((6, 30, 30))
    a = {"C": base, "F": np.asfortranarray(base), "reversed rows": base[:, ::-1, :],
         "every other matrix": base[::2], "transposed": base.swapaxes(-1, -2)}[view][:, :, :20]
    q, r = tiledqr.qr(a, mode=mode)
    q_copy, r_copy = tiledqr.qr(a.astype(">f8"), mode=mode)
    assert np.array_equal(q, q_copy) and np.array_equal(r, r_copy)
    assert_qr(a[1], q[1], r[1])
    # R alone: the bits of R from the same call with Q.
    assert np.array_equal(tiledqr.qr(a, mode="r"), r[:, :20, :])


TSQR_SHAPES = [(1000, 1), (38, 37), (2053, 64), (7, 3), (3, 7), (641, 40)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", TSQR_SHAPES)
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_tsqr_matches_numpy(dtype, shape, threads):
    """The tsqr tree: accurate in every mode, R as LAPACK's up to row signs,
    and the same bits from run to run for a given thread count."""
    a = np.asarray(rng(shape[0] + 17 * shape[1]).standard_normal(shape), dtype=dtype)
    q, r = tiledqr.qr(a, tree="tsqr", threads=threads)
    assert_qr(a, q, r)
    r_np = np.linalg.qr(a.astype(np.float64), mode="r")
    scale = np.linalg.norm(r_np) * np.finfo(dtype).eps * 100 * max(shape)
    assert np.linalg.norm(np.abs(r.astype(np.float64)) - np.abs(r_np)) <= scale
    q2, r2 = tiledqr.qr(a, tree="tsqr", threads=threads)
    assert np.array_equal(q, q2) and np.array_equal(r, r2)
    qc, rc = tiledqr.qr(a, mode="complete", tree="tsqr", threads=threads)
    assert qc.shape == (shape[0], shape[0])
    assert_qr(a, qc, rc)
    assert np.array_equal(tiledqr.qr(a, mode="r", tree="tsqr", threads=threads), r)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tall_matrix_takes_tsqr(dtype):
    """A tall matrix (m >= 8n, narrow side up to 90) on two threads takes
    the tsqr tree when the library chooses: the same bits as asking for it."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two threads need two CPUs (more threads than CPUs are cut to them)")
    a = np.asarray(rng(21).standard_normal((4000, 50)), dtype=dtype)
    q, r = tiledqr.qr(a, threads=2)
    q_tsqr, r_tsqr = tiledqr.qr(a, tree="tsqr", threads=2)
    assert np.array_equal(q, q_tsqr) and np.array_equal(r, r_tsqr)
    q_flat, r_flat = tiledqr.qr(a, tree="flat", threads=2)
    assert not np.array_equal(r, r_flat)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_tsqr_lstsq_and_factors(threads):
    g = rng(15)
    a = g.standard_normal((1500, 20))
    b = g.standard_normal((1500, 3))
    x = tiledqr.lstsq(a, b, tree="tsqr", threads=threads)
    x_np = np.linalg.lstsq(a, b, rcond=None)[0]
    assert np.linalg.norm(x - x_np) / np.linalg.norm(x_np) < 100 * 20 * np.finfo(float).eps
    f = tiledqr.factor(a, tree="tsqr", threads=threads)
    q = f.q("reduced")
    assert np.allclose(f.apply_qt(b)[:20], q.T @ b, atol=1e-12 * 1500)
    assert np.allclose(f.apply_q(f.apply_qt(b)), b, atol=1e-12 * 1500)
    assert np.allclose(np.abs(f.r()), np.abs(np.linalg.qr(a, mode="r")), atol=1e-12 * 1500)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lstsq_matches_numpy(dtype):
    g = rng(9)
    a = g.standard_normal((150, 40)).astype(dtype)
    b = g.standard_normal((150, 3)).astype(dtype)
    x = tiledqr.lstsq(a, b)
    x_np = np.linalg.lstsq(a.astype(np.float64), b.astype(np.float64), rcond=None)[0]
    assert x.shape == (40, 3) and x.dtype == dtype
    assert np.linalg.norm(x - x_np) / np.linalg.norm(x_np) < 100 * 40 * np.finfo(dtype).eps
    x1 = tiledqr.lstsq(a, b[:, 0])
    assert x1.shape == (40,)
    assert np.allclose(x1, x[:, 0], rtol=0, atol=10 * np.finfo(dtype).eps * np.abs(x).max())


def test_lstsq_rank_deficient_raises_linalgerror():
    a = rng(11).standard_normal((30, 6))
    a[:, 4] = a[:, 1]
    with pytest.raises(np.linalg.LinAlgError, match="rank-deficient"):
        tiledqr.lstsq(a, np.ones(30))


def test_factors_apply():
    g = rng(13)
    a = g.standard_normal((90, 30))
    b = g.standard_normal((90, 4))
    f = tiledqr.factor(a, tree="binary", tile=16)
    q = f.q("complete")
    assert np.allclose(f.apply_qt(b), q.T @ b, atol=1e-12 * 90)
    assert np.allclose(f.apply_q(f.apply_qt(b)), b, atol=1e-12 * 90)
    assert f.apply_qt(b[:, 0]).shape == (90,)
    assert f.shape == (90, 30) and f.dtype == np.float64
    assert np.allclose(np.abs(f.r()), np.abs(np.linalg.qr(a, mode="r")), atol=1e-12 * 90)


def test_integer_input_becomes_float64():
    q, r = tiledqr.qr(np.arange(12).reshape(4, 3) + np.eye(4, 3, dtype=int))
    assert q.dtype == np.float64


@pytest.mark.parametrize(
    "call,error,text",
    [
        (lambda: tiledqr.qr(np.ones(5)), ValueError, "2 dimensions"),
        (lambda: tiledqr.qr(np.ones((3, 3), dtype=complex)), ValueError, "real numbers"),
        (lambda: tiledqr.factor(np.ones((2, 3, 3))), ValueError, "2-D"),
        (lambda: tiledqr.qr(np.array([[1.0, np.nan]])), ValueError, "NaN"),
        (lambda: tiledqr.qr(np.ones((3, 3)), mode="economic"), ValueError, "mode"),
        (lambda: tiledqr.qr(np.ones((3, 3)), backend="tpu"), ValueError, "backend"),
        (lambda: tiledqr.qr(np.ones((3, 3)), tree="star"), ValueError, "tree"),
        (lambda: tiledqr.qr(np.ones((3, 3)), tile=-1), ValueError, "tile"),
        (lambda: tiledqr.qr(np.ones((3, 3)), threads=-2), ValueError, "threads"),
        (lambda: tiledqr.lstsq(np.ones((3, 5)), np.ones(3)), np.linalg.LinAlgError, "rank-deficient"),
        (lambda: tiledqr.lstsq(np.eye(4), np.ones(5)), ValueError, "rows"),
        (lambda: tiledqr.factor(np.eye(4)).apply_qt(np.ones(3)), ValueError, "rows"),
    ],
)
def test_bad_input(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_gil_released():
    # Another Python thread keeps running while a factorisation works.
    a = rng(17).standard_normal((1200, 600))
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    try:
        before = len(ticks)
        tiledqr.qr(a, mode="r", threads=1)
        during = len(ticks) - before
    finally:
        done.set()
        t.join()
    assert during > 100, f"the counting thread ran only {during} times during the factorisation"


gpu = pytest.mark.skipif(not tiledqr.gpu_available(), reason="no usable GPU (or built without CUDA)")


@gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("tree", ["flat", "binary"])
def test_gpu_matches_numpy(dtype, tree):
    a = rng(19).standard_normal((257, 100)).astype(dtype)
    q, r = tiledqr.qr(a, backend="gpu", tree=tree)
    assert_qr(a, q, r)
    r_only = tiledqr.qr(a, mode="r", backend="gpu")
    assert np.allclose(np.abs(r_only), np.abs(r), atol=100 * np.finfo(dtype).eps * np.abs(r).max())


# A stack on the GPU, factored as one task graph (tiles of 32), with
# NumPy's stacked semantics, every mode, ragged and tall shapes.
@gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gpu_stack_matches_numpy(dtype):
    for shape in [(2, 3, 40, 33), (50, 16, 16), (4, 300, 20), (3, 7, 1)]:
        a = rng(23).standard_normal(shape).astype(dtype)
        for mode in ("reduced", "complete", "r"):
            got = tiledqr.qr(a, mode=mode, backend="gpu")
            want = np.linalg.qr(a, mode=mode)
            if mode == "r":
                assert got.shape == want.shape and got.dtype == want.dtype
                assert np.allclose(np.abs(got), np.abs(want), atol=100 * np.finfo(dtype).eps * np.abs(want).max())
                continue
            q, r = got
            assert q.shape == want[0].shape and r.shape == want[1].shape and q.dtype == dtype
            for index in np.ndindex(shape[:-2]):
                assert_qr(a[index], q[index], r[index])


def test_gpu_unavailable_is_clear():
    available = tiledqr.gpu_available()
    assert bool(available) == (tiledqr._tiledqr.gpu_status()[0] == 0)
    assert (available == True) == bool(available) and (available == False) != bool(available)  # noqa: E712
    if available:
        with pytest.raises(ValueError, match="tiles of 32, 64, 128 or 256"):
            tiledqr.qr(np.eye(4), backend="gpu", tile=48)
        return
    # False, and why: the reason is its str() and repr() and the error's message.
    assert available.reason and str(available) == available.reason and available.reason in repr(available)
    for call in (lambda: tiledqr.qr(np.eye(4), backend="gpu"), lambda: tiledqr.factor(np.eye(4), backend="gpu"),
                 lambda: tiledqr.lstsq(np.eye(4), np.ones(4), backend="gpu")):
        with pytest.raises(RuntimeError, match="not available: " + re.escape(available.reason)):
            call()


# Empty matrices and stacks on the GPU: NumPy's empty results (nothing
# for the GPU to do), as on the CPU.
@gpu
@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 4, 4)])
def test_gpu_empty(shape):
    a = np.zeros(shape)
    for mode in ("reduced", "complete", "r"):
        got = tiledqr.qr(a, mode=mode, backend="gpu")
        want = np.linalg.qr(a, mode=mode)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert g.shape == w.shape and g.dtype == w.dtype
    if len(shape) == 2:
        assert tiledqr.lstsq(a, np.ones(shape[0]), backend="gpu").shape == (shape[1],)
        assert tiledqr.factor(a, backend="gpu").r().shape == (0, shape[1])
