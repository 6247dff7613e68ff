#!/usr/bin/env python3
"""Replays a task trace (the CSV of any stage's --trace) on a model of its
workers, with some task kinds made faster or slower: what a run would take
if, say, the update kinds ran 30 % faster, before anyone writes the kernel.

The tasks keep the durations they had in the run, each multiplied by its
kind's factor (--scale tsmqr=0.7,tsqrt=0.5), and the dependencies that
trace_summary.py reads from the tile rules of docs/design.md §4. They are
list-scheduled on --workers workers (default: as many as the trace used):
whenever a worker is free it takes the ready task with the longest chain of
work still behind it. The model has no scheduling cost, so the first line,
the replay with every factor 1, says how far the run itself was from it.

    python3 report/bench/trace_replay.py trace.csv [--scale KIND=F,...] [--workers N] [--json]
"""
import argparse
import heapq
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import KINDS, predecessors, read_trace  # noqa: E402


def parse_scale(text):
    """'tsmqr=0.7,tsqrt=0.5' as {kind: factor}; ValueError for anything else."""
    scale = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, sep, value = item.partition("=")
        if not sep or kind not in KINDS:
            raise ValueError(f"--scale: '{item}' is not KIND=FACTOR with a kind of {', '.join(sorted(KINDS))}")
        try:
            factor = float(value)
        except ValueError:
            raise ValueError(f"--scale: '{value}' is not a number") from None
        if not factor >= 0 or factor == float("inf"):
            raise ValueError(f"--scale: the factor of {kind} must be finite and at least 0, got {value}")
        scale[kind] = factor
    return scale


def replay(tasks, preds, order, scale, workers):
    """The makespan in ns of the tasks, durations scaled by kind, list-scheduled
    on `workers` workers by longest remaining chain first."""
    duration = [(t["end"] - t["start"]) * scale.get(t["kind"], 1.0) for t in tasks]
    succ = [[] for _ in tasks]
    waiting = [len(p) for p in preds]
    for x, ps in enumerate(preds):
        for p in ps:
            succ[p].append(x)
    below = [0.0] * len(tasks)  # the longest chain from a task's start to the end
    for x in reversed(order):
        below[x] = duration[x] + max((below[s] for s in succ[x]), default=0.0)
    ready = [(-below[x], x) for x in range(len(tasks)) if waiting[x] == 0]
    heapq.heapify(ready)
    running = []  # (end, task)
    now, free, done = 0.0, workers, 0
    while done < len(tasks):
        while free > 0 and ready:
            _, x = heapq.heappop(ready)
            heapq.heappush(running, (now + duration[x], x))
            free -= 1
        now, x = heapq.heappop(running)
        free += 1
        done += 1
        for s in succ[x]:
            waiting[s] -= 1
            if waiting[s] == 0:
                heapq.heappush(ready, (-below[s], s))
    return now


def main(argv):
    parser = argparse.ArgumentParser(description="Replay a task trace with some task kinds made faster or slower.")
    parser.add_argument("trace", help="the trace CSV")
    parser.add_argument("--scale", default="", help="KIND=FACTOR,... multiplies the durations of a kind's tasks")
    parser.add_argument("--workers", type=int, default=0, help="workers of the model (default: the trace's)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        scale = parse_scale(args.scale)
        if args.workers < 0:
            raise ValueError(f"--workers must be at least 1 (or 0: as many as the trace used), got {args.workers}")
        tasks = read_trace(args.trace)
    except (OSError, ValueError) as e:
        print(f"trace_replay: {e}", file=sys.stderr)
        return 2
    workers = args.workers or len({t["worker"] for t in tasks})
    order, preds = predecessors(tasks)
    wall = max(t["end"] for t in tasks) - min(t["start"] for t in tasks)
    as_run = replay(tasks, preds, order, {}, workers)
    scaled = replay(tasks, preds, order, scale, workers)
    result = {"tasks": len(tasks), "workers": workers, "wall_ms": wall / 1e6, "replay_ms": as_run / 1e6,
              "scale": scale, "scaled_ms": scaled / 1e6}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{len(tasks)} tasks on {workers} workers: the run {wall / 1e6:.3f} ms, its replay {as_run / 1e6:.3f} ms")
    if scale:
        what = ", ".join(f"{k} x{v:g}" for k, v in sorted(scale.items()))
        print(f"with {what}: {scaled / 1e6:.3f} ms ({scaled / as_run:.3f} of the replay)" if as_run > 0 else
              f"with {what}: {scaled / 1e6:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
