#!/usr/bin/env bash
# report/bench/trace_replay.py on a trace that FR1 writes (one worker). Pass
# rule: on one worker the replay takes the sum of the task times under every
# policy; on more workers than tasks, the critical path trace_summary.py
# finds; with every kind twice as slow, twice as long; with the updates
# free, no longer than the replay; with 2 µs of executor cost a task, on
# one worker 50 × 2 µs longer; bad --scale, --policy, --workers and
# --overhead-us values are refused with exit status 2.
set -euo pipefail
fr1=$1
replay=$2
summary=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$fr1" --m 300 --n 200 --tile 50 --no-check --trace "$scratch/trace.csv" > /dev/null
python3 "$replay" "$scratch/trace.csv" --json > "$scratch/one.json"
python3 "$replay" "$scratch/trace.csv" --workers 1000 --json > "$scratch/many.json"
python3 "$replay" "$scratch/trace.csv" --scale geqrt=2,tsqrt=2,ormqr=2,tsmqr=2 --json > "$scratch/slow.json"
python3 "$replay" "$scratch/trace.csv" --scale ormqr=0,tsmqr=0 --json > "$scratch/free.json"
python3 "$replay" "$scratch/trace.csv" --scale tsmqr=0.5 > /dev/null
python3 "$replay" "$scratch/trace.csv" --policy fifo --json > "$scratch/fifo.json"
python3 "$replay" "$scratch/trace.csv" --policy buckets:3 --json > "$scratch/buckets.json"
python3 "$replay" "$scratch/trace.csv" --policy fifo --overhead-us 2 --json > "$scratch/cost.json"
python3 "$summary" "$scratch/trace.csv" --json > "$scratch/summary.json"
python3 - "$scratch" <<'PY'
import csv, json, sys
d = sys.argv[1]
one, many, slow, free, summary, fifo, buckets, cost = (
    json.load(open(f"{d}/{n}.json")) for n in ("one", "many", "slow", "free", "summary", "fifo", "buckets", "cost"))
rows = list(csv.DictReader(open(f"{d}/trace.csv")))
total = sum(int(r["end_ns"]) - int(r["start_ns"]) for r in rows) / 1e6
assert one["workers"] == 1 and one["tasks"] == 50, one
for r in (one, fifo, buckets):
    assert abs(r["replay_ms"] - total) <= 1e-6 * total, (r["policy"], r["replay_ms"], total)
assert one["replay_ms"] <= one["wall_ms"] + 1e-9, one
path = summary["critical_path"]["ms"]
assert abs(many["replay_ms"] - path) <= 1e-6 * path, (many["replay_ms"], path)
assert abs(slow["scaled_ms"] - 2 * slow["replay_ms"]) <= 1e-6 * slow["replay_ms"], slow
assert free["scaled_ms"] <= free["replay_ms"] + 1e-9, free
assert abs(cost["replay_ms"] - (total + 50 * 0.002)) <= 1e-6 * total, (cost["replay_ms"], total)
print(f"trace replay: {total:.3f} ms of tasks on one worker, critical path {path:.3f} ms")
PY
for bad in "--scale tsmqr" "--scale gemm=2" "--scale tsmqr=-1" "--scale tsmqr=x" "--workers -3" "--policy lifo" \
           "--policy buckets:0" "--policy buckets:" "--overhead-us -1" "--overhead-us inf" "--overhead-us nan"; do
  status=0
  python3 "$replay" "$scratch/trace.csv" $bad 2> "$scratch/error.txt" || status=$?
  [ "$status" -eq 2 ] && grep -q "trace_replay:" "$scratch/error.txt" || { echo "FAIL: '$bad' gave status $status"; exit 1; }
done
