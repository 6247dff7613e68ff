#!/usr/bin/env python3
"""numpy_peer.py - tiledqr.qr against numpy.linalg.qr, the Python user's peer.

Both run in this one process on the same matrix, alternately, `--repeats`
times each; a row of the CSV holds both times (best and median) and their
ratio, tiledqr / numpy. Both use every CPU of the process: NumPy through its
BLAS's threads, tiledqr through its worker threads (threads=None, tile
chosen by the library). R of each tiledqr run is compared with NumPy's
(up to the signs of its rows) so that no wrong answer is timed.

    PYTHONPATH=build/python python3 report/bench/numpy_peer.py --out report/data/numpy_peer.csv

Cases are MxN or BxMxN (a stack of B matrices), each timed in the modes
'r' and 'reduced' (--modes). The file is written whole at the end, or not
at all; '#' lines record the command, the machine (lscpu's model name), the
commit, NumPy and its BLAS.
"""

import argparse
import ctypes
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import tiledqr

DEFAULT_CASES = "4000x4000,200000x64,1000x64x64"
COLUMNS = ["machine", "cpus", "date", "commit", "numpy", "case", "mode", "repeats", "numpy_best_s", "tiledqr_best_s",
           "ratio_best", "numpy_median_s", "tiledqr_median_s", "load_before", "load_after", "r_max_deviation"]


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown cpu"


def commit_of(path):
    try:
        return subprocess.run(["git", "-C", path, "describe", "--always", "--dirty"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def blas_of_numpy():
    """The BLAS loaded in this process: OpenBLAS's own configuration line
    where it is OpenBLAS (NumPy's and tiledqr's are then the same one)."""
    with open("/proc/self/maps") as maps:
        paths = sorted({line.split()[-1] for line in maps if "blas" in line and line.strip().endswith(".so.0")
                        or "blas" in line and ".so" in line.split()[-1]})
    for path in paths:
        try:
            library = ctypes.CDLL(path)
            library.openblas_get_config.restype = ctypes.c_char_p
            return "OpenBLAS " + library.openblas_get_config().decode()
        except (OSError, AttributeError):
            continue
    return "BLAS " + (" ".join(paths) or "unknown")


def parse_case(text):
    dims = tuple(int(x) for x in text.lower().split("x"))
    if len(dims) not in (2, 3) or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"a case is MxN or BxMxN with positive sizes, got {text!r}")
    return dims


def r_deviation(r, r_np):
    """max | |R| - |R_numpy| | / max |R_numpy|: R is unique up to the signs of its rows."""
    scale = np.abs(r_np).max(initial=0.0) or 1.0
    return float(np.abs(np.abs(r) - np.abs(r_np)).max(initial=0.0) / scale)


def time_case(a, mode, repeats):
    """Alternate numpy and tiledqr, `repeats` runs each, after one warm-up of each."""
    last_r = np.linalg.qr(a, mode=mode)
    tiledqr.qr(a, mode=mode)
    times_np, times_tq, deviation = [], [], 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        np.linalg.qr(a, mode=mode)
        times_np.append(time.perf_counter() - start)
        start = time.perf_counter()
        result = tiledqr.qr(a, mode=mode)
        times_tq.append(time.perf_counter() - start)
        r = result if mode == "r" else result[1]
        r_np = last_r if mode == "r" else last_r[1]
        deviation = max(deviation, r_deviation(r, r_np))
        del result
    return times_np, times_tq, deviation


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="CSV file to write")
    parser.add_argument("--cases", default=DEFAULT_CASES, help=f"comma list of MxN or BxMxN (default {DEFAULT_CASES})")
    parser.add_argument("--modes", default="r,reduced", help="comma list of r, reduced, complete (default r,reduced)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each, the best counts (default 3)")
    parser.add_argument("--seed", type=int, default=42, help="seed of the random matrices (default 42)")
    parser.add_argument("--force", action="store_true", help="replace an existing CSV")
    args = parser.parse_args(argv)
    cases = [parse_case(c) for c in args.cases.split(",")]
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in ("r", "reduced", "complete"):
            parser.error(f"unknown mode {mode!r}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if os.path.exists(args.out) and not args.force:
        parser.error(f"{args.out} exists (--force replaces it)")

    machine = cpu_model()
    cpus = len(os.sched_getaffinity(0))
    commit = commit_of(os.path.dirname(os.path.abspath(__file__)))
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [f"# {' '.join(['numpy_peer.py'] + list(argv))}",
             f"# machine {machine}, {cpus} CPUs; numpy {np.__version__} ({blas_of_numpy()}); "
             f"tiledqr {tiledqr.__version__}; python {platform.python_version()}; "
             f"both on every CPU, same process, alternating; seed {args.seed}",
             ",".join(COLUMNS)]
    rng = np.random.default_rng(args.seed)
    for dims in cases:
        a = rng.standard_normal(dims)
        for mode in modes:
            load_before = os.getloadavg()[0]
            times_np, times_tq, deviation = time_case(a, mode, args.repeats)
            load_after = os.getloadavg()[0]
            if deviation > 1e-8:
                raise SystemExit(f"numpy_peer: tiledqr's R differs from NumPy's by {deviation:.3g} on "
                                 f"{'x'.join(map(str, dims))} mode {mode}")
            best_np, best_tq = min(times_np), min(times_tq)
            row = [machine, cpus, date, commit, np.__version__, "x".join(map(str, dims)), mode, args.repeats,
                   f"{best_np:.6g}", f"{best_tq:.6g}", f"{best_tq / best_np:.4g}",
                   f"{statistics.median(times_np):.6g}", f"{statistics.median(times_tq):.6g}",
                   f"{load_before:.2f}", f"{load_after:.2f}", f"{deviation:.3g}"]
            lines.append(",".join(f'"{v}"' if "," in str(v) else str(v) for v in row))
            print(f"{'x'.join(map(str, dims))} {mode}: numpy {best_np:.4f} s, tiledqr {best_tq:.4f} s, "
                  f"ratio {best_tq / best_np:.3f} (load {load_before:.1f} -> {load_after:.1f})", file=sys.stderr)
    # Written whole or not at all: a temporary file in the same folder, renamed.
    folder = os.path.dirname(os.path.abspath(args.out))
    fd, temporary = tempfile.mkstemp(prefix=".numpy_peer.", dir=folder)
    try:
        with os.fdopen(fd, "w") as out:
            out.write("\n".join(lines) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, args.out)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
