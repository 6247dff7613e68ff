#!/usr/bin/env python3
"""Writes the trace of a tiled QR that never ran: the flat tree's tasks on
p x q tiles, one after another on one worker, each kind taking the time it
is given. trace_replay.py then schedules it on as many workers as a GPU
has, so that a shape too large to trace cheaply (or a kernel not yet
written) can be modelled from the mean task times of another run's
trace_summary.py.

The tasks come in the order of the single-thread factorisation (FR1), a
topological order of the dependencies trace_summary.py reads from the tile
rules of docs/design.md §4: for each panel k, geqrt, its ormqr's, then for
each row below its tsqrt and that row's tsmqr's. --first-tsqrt gives the
first tsqrt of each panel (the one on the chain of panels) a time of its
own.

    python3 report/bench/synthetic_trace.py --tiles P,Q --us geqrt=116,tsqrt=104,ormqr=10.3,tsmqr=10.1 \\
        [--first-tsqrt US] --out trace.csv
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import kind_values  # noqa: E402

KINDS = ("geqrt", "ormqr", "tsqrt", "tsmqr")


def parse_tiles(text):
    """'P,Q' with P, Q ≥ 1 as (P, Q); ValueError for anything else."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"--tiles: '{text}' is not P,Q with tile counts of at least 1")
    return int(parts[0]), int(parts[1])


def parse_times(text):
    """'geqrt=116,tsqrt=104,...' as {kind: microseconds}, every kind of the
    flat tree given once, each finite and at least 0; ValueError else."""
    times = kind_values(text, "--us", KINDS, "MICROSECONDS")
    missing = [k for k in KINDS if k not in times]
    if missing:
        raise ValueError(f"--us: no time for {', '.join(missing)}")
    return times


def tasks(p, q, times, first_tsqrt):
    """The flat tree's tasks as (kind, k, i, j, piv, microseconds), in FR1's
    order."""
    for k in range(min(p, q)):
        yield "geqrt", k, k, k, k, times["geqrt"]
        for j in range(k + 1, q):
            yield "ormqr", k, k, j, k, times["ormqr"]
        for i in range(k + 1, p):
            yield "tsqrt", k, i, k, k, first_tsqrt if i == k + 1 else times["tsqrt"]
            for j in range(k + 1, q):
                yield "tsmqr", k, i, j, k, times["tsmqr"]


def main(argv):
    parser = argparse.ArgumentParser(description="Write the flat tree's task trace on p x q tiles from given task times.")
    parser.add_argument("--tiles", required=True, help="P,Q: tile rows and columns")
    parser.add_argument("--us", required=True, help="KIND=MICROSECONDS for geqrt, ormqr, tsqrt and tsmqr")
    parser.add_argument("--first-tsqrt", default=None, help="microseconds of each panel's first tsqrt")
    parser.add_argument("--out", required=True, help="the trace CSV to write")
    args = parser.parse_args(argv)
    try:
        p, q = parse_tiles(args.tiles)
        times = parse_times(args.us)
        first = (times["tsqrt"] if args.first_tsqrt is None else
                 kind_values(f"tsqrt={args.first_tsqrt}", "--first-tsqrt", KINDS, "MICROSECONDS")["tsqrt"])
    except ValueError as e:
        print(f"synthetic_trace: {e}", file=sys.stderr)
        return 2
    # Complete or absent: written beside the target, then renamed onto it.
    partial = args.out + ".partial"
    try:
        with open(partial, "w") as f:
            f.write("kind,k,i,j,piv,worker,start_ns,end_ns\n")
            clock = 0
            for kind, k, i, j, piv, us in tasks(p, q, times, first):
                ns = round(us * 1000)
                f.write(f"{kind},{k},{i},{j},{piv},0,{clock},{clock + ns}\n")
                clock += ns + 1  # strictly after: start order is the order written
        os.replace(partial, args.out)
    except OSError as e:
        print(f"synthetic_trace: {e}", file=sys.stderr)
        try:
            os.remove(partial)
        except OSError:
            pass
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
