#!/usr/bin/env python3
"""Summarises a task trace (the CSV of any stage's --trace): time per kind,
how busy the workers were, and the critical path the run actually took.

The critical path is the longest chain of dependent tasks, each taking the
time it took in the run: the floor of the run's time with unlimited workers
and no scheduling cost. The dependencies are the tile rules of
docs/design.md §4: a task waits for the previous writer of every tile it
writes and, for the update kinds, for the factor task that made its
reflectors. A path near the run's time says the chain of factor and update
tasks bounds it; a short one, that the work per worker does. The path the
run took (back from the last task through the predecessor each task waited
for) splits the run's time into task time and waits, and each kind's mean
wait from ready to start says what the scheduler adds. The gaps a worker
leaves between one task's end and the start of its next, when that next
one was ready by then, are what the executor itself costs a task (taking
it, loading its header and arguments, starting its team).

    python3 report/bench/trace_summary.py trace.csv [--json]
"""
import argparse
import csv
import json
import sys
from collections import defaultdict

FACTOR = {"geqrt", "tsqrt", "ttqrt"}
# The factor kind whose reflectors an update kind applies.
MADE_BY = {"ormqr": "geqrt", "tsmqr": "tsqrt", "ttmqr": "ttqrt"}
KINDS = FACTOR | set(MADE_BY)


def written_tiles(kind, k, i, j, piv):
    """Tiles (row, column) a task writes."""
    if kind == "geqrt":
        return [(i, k)]
    if kind == "ormqr":
        return [(i, j)]
    if kind in ("tsqrt", "ttqrt"):
        return [(piv, k), (i, k)]
    if kind in ("tsmqr", "ttmqr"):
        return [(piv, j), (i, j)]
    raise ValueError(f"unknown task kind {kind!r}")


def kind_values(text, option, allowed, what):
    """'kind=value,...' as {kind: value}, each kind one of `allowed` and
    given once, each value a finite number of at least 0; ValueError naming
    `option` (and `what` a value is) for anything else."""
    values = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, sep, value = item.partition("=")
        if not sep or kind not in allowed or kind in values:
            raise ValueError(f"{option}: '{item}' is not KIND={what} with a new kind of {', '.join(sorted(allowed))}")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{option}: '{value}' is not a number") from None
        if not number >= 0 or number == float("inf"):
            raise ValueError(f"{option}: the {what.lower()} of {kind} must be finite and at least 0, got {value}")
        values[kind] = number
    return values


def read_trace(path):
    tasks = []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        needed = {"kind", "k", "i", "j", "piv", "worker", "start_ns", "end_ns"}
        if reader.fieldnames is None or not needed <= set(reader.fieldnames):
            raise ValueError(f"{path}: not a task trace (columns {sorted(needed)} expected)")
        for row in reader:
            tasks.append({
                "kind": row["kind"], "k": int(row["k"]), "i": int(row["i"]), "j": int(row["j"]),
                "piv": int(row["piv"]), "worker": int(row["worker"]),
                "start": int(row["start_ns"]), "end": int(row["end_ns"]),
            })
    if not tasks:
        raise ValueError(f"{path}: the trace has no tasks")
    return tasks


def predecessors(tasks):
    """The tasks in start order (a topological order: a task starts after its
    predecessors end) and each task's predecessors: the previous writer of
    each tile it writes (writers of a tile are ordered, so start order is
    their order) and the factor task whose reflectors an update applies."""
    order = sorted(range(len(tasks)), key=lambda x: (tasks[x]["start"], tasks[x]["end"]))
    last_writer = {}
    factor_of = {}
    preds = [[] for _ in tasks]
    for x in order:
        t = tasks[x]
        if t["kind"] in MADE_BY:
            maker = factor_of.get((MADE_BY[t["kind"]], t["k"], t["i"], t["piv"] if t["kind"] != "ormqr" else t["i"]))
            if maker is not None:
                preds[x].append(maker)
        for tile in written_tiles(t["kind"], t["k"], t["i"], t["j"], t["piv"]):
            if tile in last_writer:
                preds[x].append(last_writer[tile])
            last_writer[tile] = x
        if t["kind"] in FACTOR:
            factor_of[(t["kind"], t["k"], t["i"], t["piv"] if t["kind"] != "geqrt" else t["i"])] = x
    return order, preds


def summarise(tasks):
    origin = min(t["start"] for t in tasks)
    wall = max(t["end"] for t in tasks) - origin
    workers = len({t["worker"] for t in tasks})
    by_kind = defaultdict(lambda: {"count": 0, "ns": 0})
    for t in tasks:
        by_kind[t["kind"]]["count"] += 1
        by_kind[t["kind"]]["ns"] += t["end"] - t["start"]

    order, preds = predecessors(tasks)

    # The longest chain of dependent tasks with their measured durations:
    # the run's floor with unlimited workers (start order is a topological
    # order, since a task starts after its predecessors end).
    finish = [0] * len(tasks)
    via = [None] * len(tasks)
    for x in order:
        ready = 0
        for p in preds[x]:
            if finish[p] > ready:
                ready, via[x] = finish[p], p
        finish[x] = ready + tasks[x]["end"] - tasks[x]["start"]
    path_kind = defaultdict(lambda: {"count": 0, "ns": 0})
    x = max(range(len(tasks)), key=lambda y: finish[y])
    floor = finish[x]
    length = 0
    while x is not None:
        t = tasks[x]
        path_kind[t["kind"]]["count"] += 1
        path_kind[t["kind"]]["ns"] += t["end"] - t["start"]
        length += 1
        x = via[x]
    # How the run spent its time: from the task that ended last, back
    # through the predecessor each task waited for (the one that ended last
    # before it started), each step split into the task's own time and the
    # wait between that end and its start: the dependence's release and the
    # pick of a worker, which faster kernels do not shorten. A task's ready
    # time is its last predecessor's end (the run's start for the first).
    ready = [origin] * len(tasks)
    for x in range(len(tasks)):
        for p in preds[x]:
            ready[x] = max(ready[x], tasks[p]["end"])
    wait_kind = defaultdict(int)
    for x, t in enumerate(tasks):
        wait_kind[t["kind"]] += max(0, t["start"] - ready[x])
    run_kind = defaultdict(lambda: {"count": 0, "ns": 0, "wait_ns": 0})
    x = max(range(len(tasks)), key=lambda y: tasks[y]["end"])
    run_tasks = run_ns = run_wait = 0
    while x is not None:
        t = tasks[x]
        before = max(preds[x], key=lambda p: tasks[p]["end"]) if preds[x] else None
        wait = max(0, t["start"] - (tasks[before]["end"] if before is not None else origin))
        run_kind[t["kind"]]["count"] += 1
        run_kind[t["kind"]]["ns"] += t["end"] - t["start"]
        run_kind[t["kind"]]["wait_ns"] += wait
        run_tasks += 1
        run_ns += t["end"] - t["start"]
        run_wait += wait
        x = before
    # Each worker's gaps from one task's end to its next start, where the
    # next was ready by that end: no dependence held it, only the executor.
    by_worker = defaultdict(list)
    for x, t in enumerate(tasks):
        by_worker[t["worker"]].append(x)
    gaps = []
    for xs in by_worker.values():
        xs.sort(key=lambda y: tasks[y]["start"])
        for before, after in zip(xs, xs[1:]):
            if ready[after] <= tasks[before]["end"]:
                gaps.append(max(0, tasks[after]["start"] - tasks[before]["end"]))
    gaps.sort()
    busy = sum(v["ns"] for v in by_kind.values())
    return {
        "tasks": len(tasks),
        "workers": workers,
        "wall_ms": wall / 1e6,
        "busy_fraction": busy / (workers * wall) if wall > 0 else 0.0,
        "kinds": {k: {"count": v["count"], "mean_us": v["ns"] / v["count"] / 1e3, "total_ms": v["ns"] / 1e6}
                  for k, v in sorted(by_kind.items())},
        "critical_path": {
            "tasks": length,
            "ms": floor / 1e6,
            "kinds": {k: {"count": v["count"], "ms": v["ns"] / 1e6} for k, v in sorted(path_kind.items())},
        },
        "wait_mean_us": {k: wait_kind[k] / by_kind[k]["count"] / 1e3 for k in sorted(by_kind)},
        "as_run_path": {
            "tasks": run_tasks,
            "task_ms": run_ns / 1e6,
            "wait_ms": run_wait / 1e6,
            "kinds": {k: {"count": v["count"], "ms": v["ns"] / 1e6, "wait_ms": v["wait_ns"] / 1e6}
                      for k, v in sorted(run_kind.items())},
        },
        "ready_gaps": {
            "count": len(gaps),
            "median_us": gaps[len(gaps) // 2] / 1e3 if gaps else 0.0,
            "p90_us": gaps[(9 * len(gaps)) // 10] / 1e3 if gaps else 0.0,
            "total_ms": sum(gaps) / 1e6,
        },
    }


def main(argv):
    parser = argparse.ArgumentParser(description="Summarise a task trace CSV (a stage's --trace output).")
    parser.add_argument("trace", help="the trace CSV")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        s = summarise(read_trace(args.trace))
    except (OSError, ValueError) as e:
        print(f"trace_summary: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(s, indent=1))
        return 0
    print(f"{s['tasks']} tasks on {s['workers']} workers, {s['wall_ms']:.3f} ms, "
          f"workers busy {100 * s['busy_fraction']:.1f} %")
    for k, v in s["kinds"].items():
        print(f"  {k:6s} {v['count']:8d} tasks, mean {v['mean_us']:9.2f} us, total {v['total_ms']:10.3f} ms")
    c = s["critical_path"]
    print(f"critical path: {c['tasks']} tasks, {c['ms']:.3f} ms of task time ({100 * c['ms'] / s['wall_ms']:.1f} % "
          f"of the run)")
    for k, v in c["kinds"].items():
        print(f"  {k:6s} {v['count']:8d} tasks, {v['ms']:10.3f} ms")
    a = s["as_run_path"]
    print(f"as run: {a['tasks']} tasks from the first start to the last end, {a['task_ms']:.3f} ms in them, "
          f"{a['wait_ms']:.3f} ms from a predecessor's end to the next start")
    for k, v in a["kinds"].items():
        print(f"  {k:6s} {v['count']:8d} tasks, {v['ms']:10.3f} ms, waited {v['wait_ms']:10.3f} ms")
    print("ready to start, mean: " + ", ".join(f"{k} {v:.2f} us" for k, v in s["wait_mean_us"].items()))
    g = s["ready_gaps"]
    print(f"a worker's next task ready at its last one's end: {g['count']} times, gap median {g['median_us']:.2f} us, "
          f"90th percentile {g['p90_us']:.2f} us, total {g['total_ms']:.3f} ms "
          f"({g['total_ms'] / s['workers']:.3f} ms a worker)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
