#!/usr/bin/env bash
# report/bench/trace_summary.py on a trace that FR1 writes. Pass rule: the
# summary counts the flat tree's tasks of a 6 × 4 tile grid kind by kind
# (geqrt 4, tsqrt 14, ormqr 6, tsmqr 26), the one worker's busy share is at
# most 1, the critical path lies between the longest task and the run's
# time, the path the run took splits the run's time exactly into task time
# and waits (none negative), the worker's 49 gaps between tasks each follow
# a task whose successor was already ready and add up to its idle time at
# most, and a file that is not a trace is refused with exit status 2.
set -euo pipefail
fr1=$1
script=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$fr1" --m 300 --n 200 --tile 50 --no-check --trace "$scratch/trace.csv" > /dev/null
python3 "$script" "$scratch/trace.csv" --json > "$scratch/summary.json"
python3 "$script" "$scratch/trace.csv" > /dev/null
python3 - "$scratch/summary.json" "$scratch/trace.csv" <<'PY'
import csv, json, sys
s = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
expected = {"geqrt": 4, "tsqrt": 14, "ormqr": 6, "tsmqr": 26}
counts = {k: v["count"] for k, v in s["kinds"].items()}
assert counts == expected, f"task counts {counts}, expected {expected}"
assert s["tasks"] == 50 and s["workers"] == 1, s
assert 0 < s["busy_fraction"] <= 1 + 1e-9, s["busy_fraction"]
longest = max(int(r["end_ns"]) - int(r["start_ns"]) for r in rows) / 1e6
path = s["critical_path"]["ms"]
assert longest - 1e-9 <= path <= s["wall_ms"] + 1e-9, (longest, path, s["wall_ms"])
assert sum(v["count"] for v in s["critical_path"]["kinds"].values()) == s["critical_path"]["tasks"]
a = s["as_run_path"]
assert abs(a["task_ms"] + a["wait_ms"] - s["wall_ms"]) <= 1e-6, (a, s["wall_ms"])
assert a["wait_ms"] >= 0 and all(v >= 0 for v in s["wait_mean_us"].values()), a
assert sum(v["count"] for v in a["kinds"].values()) == a["tasks"] <= 50, a
assert set(s["wait_mean_us"]) == set(expected), s["wait_mean_us"]
g = s["ready_gaps"]
# One worker runs the 50 tasks one after another, each ready (FR1's order is
# a topological one) by the time the one before it ended.
assert g["count"] == 49 and 0 <= g["median_us"] <= g["p90_us"], g
assert 0 <= g["total_ms"] <= s["wall_ms"] * (1 - s["busy_fraction"]) + 1e-6, (g, s)
print(f"trace summary: 50 tasks, path {path:.3f} ms of {s['wall_ms']:.3f} ms")
PY
printf 'a,b\n1,2\n' > "$scratch/other.csv"
status=0
python3 "$script" "$scratch/other.csv" 2> "$scratch/error.txt" || status=$?
[ "$status" -eq 2 ] && grep -q "not a task trace" "$scratch/error.txt" || { echo "FAIL: a non-trace CSV gave status $status"; exit 1; }
