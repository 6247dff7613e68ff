#!/usr/bin/env python3
"""Replays a task trace (the CSV of any stage's --trace) on a model of its
workers, with some task kinds made faster or slower: what a run would take
if, say, the update kinds ran 30 % faster, before anyone writes the kernel.

The tasks keep the durations they had in the run, each multiplied by its
kind's factor (--scale tsmqr=0.7,tsqrt=0.5), and the dependencies that
trace_summary.py reads from the tile rules of docs/design.md §4. They are
list-scheduled on --workers workers (default: as many as the trace used),
with no scheduling cost, by one of these policies (--policy):
  longest    whenever a worker is free it takes the ready task with the
             longest chain of work (time) still behind it;
  fifo       the task-graph executor's (fr4_scheduler/taskgraph/
             scheduler_core.hpp): one first-in first-out ready queue, the
             roots first; a finished task's newly ready successors, sorted
             by the number of tasks on their longest chain, go to the
             queue but the first, which the same worker runs next;
  buckets:N  as fifo, with N queues instead of one: a task goes to the
             queue of its chain of time (the longest chains to the first),
             and a free worker takes from the first queue that has a task.
--overhead-us adds the executor's own cost to every task: each then holds
its worker that many microseconds longer (the pick, the header and argument
loads, the team's start; trace_summary.py's gaps before a ready task
measure it). The first line, the replay with every factor 1, says how far
the run was from its policy's model.

    python3 report/bench/trace_replay.py trace.csv [--scale KIND=F,...] [--policy P] [--workers N]
        [--overhead-us US] [--json]
"""
import argparse
import collections
import heapq
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import KINDS, kind_values, predecessors, read_trace  # noqa: E402


def parse_scale(text):
    """'tsmqr=0.7,tsqrt=0.5' as {kind: factor}; ValueError for anything else."""
    return kind_values(text, "--scale", KINDS, "FACTOR")


def parse_policy(text):
    """'longest', 'fifo' or 'buckets:N' (N ≥ 1) as (name, queues); ValueError else."""
    if text in ("longest", "fifo"):
        return text, 1
    name, sep, count = text.partition(":")
    if name == "buckets" and sep and count.isdigit() and int(count) >= 1:
        return name, int(count)
    raise ValueError(f"--policy: '{text}' is not longest, fifo or buckets:N with N >= 1")


class LongestFirst:
    """Ready tasks, the longest remaining chain of time first."""

    def __init__(self, chain):
        self.chain, self.heap = chain, []

    def push(self, x):
        heapq.heappush(self.heap, (-self.chain[x], x))

    def pop(self):
        return heapq.heappop(self.heap)[1] if self.heap else None


class FirstInFirstOut:
    """Ready tasks in `queues` first-in first-out queues: a task joins the one
    of its remaining chain of time (the longest chains the first), a worker
    takes from the first that has a task."""

    def __init__(self, chain, queues):
        self.chain, self.top = chain, max(chain, default=0.0)
        self.queues = [collections.deque() for _ in range(queues)]

    def push(self, x):
        n = len(self.queues)
        q = 0 if self.top <= 0 else min(n - 1, int(n * (self.top - self.chain[x]) / self.top))
        self.queues[q].append(x)

    def pop(self):
        for q in self.queues:
            if q:
                return q.popleft()
        return None


def replay(tasks, preds, order, scale, workers, policy=("longest", 1), overhead_ns=0.0):
    """The makespan in ns of the tasks, durations scaled by kind and each
    `overhead_ns` longer, list-scheduled on `workers` workers by `policy`
    (parse_policy's)."""
    duration = [(t["end"] - t["start"]) * scale.get(t["kind"], 1.0) + overhead_ns for t in tasks]
    succ = [[] for _ in tasks]
    waiting = [len(p) for p in preds]
    for x, ps in enumerate(preds):
        for p in ps:
            succ[p].append(x)
    below = [0.0] * len(tasks)  # the longest chain of time from a task's start to the end
    count = [0] * len(tasks)    # … and of tasks
    for x in reversed(order):
        below[x] = duration[x] + max((below[s] for s in succ[x]), default=0.0)
        count[x] = 1 + max((count[s] for s in succ[x]), default=0)
    name, queues = policy
    ready = LongestFirst(below) if name == "longest" else FirstInFirstOut(below, queues)
    rank = count if name == "fifo" else below  # how a finished task's successors are ranked
    for x in sorted((x for x in range(len(tasks)) if waiting[x] == 0), key=lambda y: -rank[y]):
        ready.push(x)
    running = []  # (end, task)
    now, free, done = 0.0, workers, 0
    while done < len(tasks):
        while free > 0:
            x = ready.pop()
            if x is None:
                break
            heapq.heappush(running, (now + duration[x], x))
            free -= 1
        now, x = heapq.heappop(running)
        done += 1
        newly = []
        for s in succ[x]:
            waiting[s] -= 1
            if waiting[s] == 0:
                newly.append(s)
        if name != "longest" and newly:  # the worker runs the first itself
            newly.sort(key=lambda y: -rank[y])
            heapq.heappush(running, (now + duration[newly[0]], newly[0]))
            newly = newly[1:]
        else:
            free += 1
        for s in newly:
            ready.push(s)
    return now


def main(argv):
    parser = argparse.ArgumentParser(description="Replay a task trace with some task kinds made faster or slower.")
    parser.add_argument("trace", help="the trace CSV")
    parser.add_argument("--scale", default="", help="KIND=FACTOR,... multiplies the durations of a kind's tasks")
    parser.add_argument("--policy", default="longest", help="longest (default), fifo or buckets:N")
    parser.add_argument("--workers", type=int, default=0, help="workers of the model (default: the trace's)")
    parser.add_argument("--overhead-us", type=float, default=0.0,
                        help="microseconds every task holds its worker beyond its own time (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        scale = parse_scale(args.scale)
        policy = parse_policy(args.policy)
        if args.workers < 0:
            raise ValueError(f"--workers must be at least 1 (or 0: as many as the trace used), got {args.workers}")
        if not 0 <= args.overhead_us < float("inf"):
            raise ValueError(f"--overhead-us must be finite and at least 0, got {args.overhead_us}")
        tasks = read_trace(args.trace)
    except (OSError, ValueError) as e:
        print(f"trace_replay: {e}", file=sys.stderr)
        return 2
    workers = args.workers or len({t["worker"] for t in tasks})
    order, preds = predecessors(tasks)
    wall = max(t["end"] for t in tasks) - min(t["start"] for t in tasks)
    overhead = args.overhead_us * 1e3
    as_run = replay(tasks, preds, order, {}, workers, policy, overhead)
    scaled = replay(tasks, preds, order, scale, workers, policy, overhead)
    result = {"tasks": len(tasks), "workers": workers, "policy": args.policy, "overhead_us": args.overhead_us,
              "wall_ms": wall / 1e6, "replay_ms": as_run / 1e6, "scale": scale, "scaled_ms": scaled / 1e6}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    cost = f", {args.overhead_us:g} us a task" if args.overhead_us > 0 else ""
    print(f"{len(tasks)} tasks on {workers} workers: the run {wall / 1e6:.3f} ms, its replay ({args.policy}{cost}) "
          f"{as_run / 1e6:.3f} ms")
    if scale:
        what = ", ".join(f"{k} x{v:g}" for k, v in sorted(scale.items()))
        print(f"with {what}: {scaled / 1e6:.3f} ms ({scaled / as_run:.3f} of the replay)" if as_run > 0 else
              f"with {what}: {scaled / 1e6:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
