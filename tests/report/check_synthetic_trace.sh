#!/usr/bin/env bash
# report/bench/synthetic_trace.py against a trace FR1 writes. Pass rule: on
# 6 × 4 tiles it writes the same tasks as FR1's flat tree (kind, panel, row,
# column and pivot row, as a set), each kind taking the time it was given,
# which trace_summary.py reads back; its replay on one worker takes the sum
# of the times; and bad arguments give exit status 2 and no file.
set -euo pipefail
fr1=$1
script=$2
summary=$3
replay=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$fr1" --m 300 --n 200 --tile 50 --no-check --trace "$scratch/fr1.csv" > /dev/null
python3 "$script" --tiles 6,4 --us geqrt=7,tsqrt=5,ormqr=3,tsmqr=2 --first-tsqrt 11 --out "$scratch/synthetic.csv"
python3 "$summary" "$scratch/synthetic.csv" --json > "$scratch/summary.json"
python3 "$replay" "$scratch/synthetic.csv" --workers 1 --policy fifo --json > "$scratch/replay.json"
python3 - "$scratch/fr1.csv" "$scratch/synthetic.csv" "$scratch/summary.json" "$scratch/replay.json" <<'PY'
import csv, json, sys
key = lambda r: (r["kind"], int(r["k"]), int(r["i"]), int(r["j"]), int(r["piv"]))
fr1 = list(csv.DictReader(open(sys.argv[1])))
synthetic = list(csv.DictReader(open(sys.argv[2])))
assert sorted(map(key, fr1)) == sorted(map(key, synthetic)), "the tasks differ from FR1's"
given = {"geqrt": 7, "tsqrt": 5, "ormqr": 3, "tsmqr": 2}
for r in synthetic:
    us = (int(r["end_ns"]) - int(r["start_ns"])) / 1e3
    first = r["kind"] == "tsqrt" and int(r["i"]) == int(r["k"]) + 1
    assert us == (11 if first else given[r["kind"]]), r
s = json.load(open(sys.argv[3]))
assert {k: v["count"] for k, v in s["kinds"].items()} == {"geqrt": 4, "tsqrt": 14, "ormqr": 6, "tsmqr": 26}, s["kinds"]
total_ms = sum(int(r["end_ns"]) - int(r["start_ns"]) for r in synthetic) / 1e6
assert abs(json.load(open(sys.argv[4]))["replay_ms"] - total_ms) <= 1e-9, total_ms
print(f"synthetic trace: FR1's 50 tasks, {total_ms:.3f} ms of task time")
PY
for bad in "--tiles 0,4" "--tiles 6" "--us geqrt=1,tsqrt=1,ormqr=1" "--us geqrt=-1,tsqrt=1,ormqr=1,tsmqr=1" "--first-tsqrt x"; do
  set -- $bad
  args=(--tiles 6,4 --us geqrt=1,tsqrt=1,ormqr=1,tsmqr=1 --out "$scratch/bad.csv")
  [ "$1" = "--tiles" ] && args[1]=$2
  [ "$1" = "--us" ] && args[3]=$2
  [ "$1" = "--first-tsqrt" ] && args+=(--first-tsqrt "$2")
  status=0
  python3 "$script" "${args[@]}" 2> "$scratch/error.txt" || status=$?
  [ "$status" -eq 2 ] && [ ! -e "$scratch/bad.csv" ] && grep -q "synthetic_trace:" "$scratch/error.txt" ||
    { echo "FAIL: '$bad' gave status $status"; exit 1; }
done
