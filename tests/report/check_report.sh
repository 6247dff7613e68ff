#!/usr/bin/env bash
# Regenerates every figure from the committed CSVs into a scratch folder
# and checks (pass rule) that each expected SVG and PNG exists and is not
# empty, that report/REPORT.md shows every SVG of report/figures, and that
# each driver CSV has the documented columns. Exit 77
# (skipped) only when gnuplot is not installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v gnuplot >/dev/null || { echo "gnuplot not installed"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bash "$root/scripts/plots" "$root/report/data" "$scratch" > "$scratch/plots.log" 2>&1 || {
  cat "$scratch/plots.log"; echo "FAIL: scripts/plots failed"; exit 1; }
status=0
for name in time_square time_tall_skinny speedup_cusolver fr2_scaling fr3_knobs gantt_fr3 \
            gantt_fr4 fr4_overhead accuracy lcs_model enkf_scaling distributed gantt_distributed; do
  for ext in svg png; do
    if [ ! -s "$scratch/$name.$ext" ]; then echo "FAIL: $name.$ext missing or empty"; status=1; fi
  done
done
columns="machine,gpu,date,commit,stage,backend,tree,tile,inner_block,threads,executors_per_sm,weight,m,n,precision,repeats,seconds_median,seconds_min,seconds_max,gflops,residual,orthogonality"
for csv in fr1_cpu fr2_cpu fr2_cpu_2core fr3_gpu fr3_knobs fr4_qr quick; do
  file="$root/report/data/$csv.csv"
  header=$(awk '!/^#/ { print; exit }' "$file")
  # The batch column came later: CSVs written before it end at orthogonality.
  if [ "$header" != "$columns,batch" ] && [ "$header" != "$columns" ]; then echo "FAIL: $csv.csv columns: $header"; status=1; fi
  rows=$(awk '!/^#/ && NF { n++ } END { print n - 1 }' "$file")
  if [ "$rows" -lt 1 ]; then echo "FAIL: $csv.csv has no rows"; status=1; fi
done
dist_columns="machine,date,commit,m,n,precision,tile,inner_block,tree,inner_tree,grid,ranks,threads,seconds,gflops,peer,peer_block,peer_seconds,speedup_vs_peer,tile_messages,bytes_model"
for csv in distributed distributed_device; do
  header=$(awk '!/^#/ { print; exit }' "$root/report/data/$csv.csv")
  if [ "$header" != "$dist_columns" ]; then echo "FAIL: $csv.csv columns: $header"; status=1; fi
done
for trace in fr3_trace_1024 fr4_trace_1024 distributed_trace_768; do
  header=$(head -n 1 "$root/report/data/$trace.csv")
  if [ "$header" != "kind,k,i,j,piv,worker,start_ns,end_ns" ]; then echo "FAIL: $trace.csv header: $header"; status=1; fi
done
# The report shows every figure it ships.
for figure in "$root"/report/figures/*.svg; do
  name=$(basename "$figure")
  if ! grep -q "](figures/$name)" "$root/report/REPORT.md"; then
    echo "FAIL: report/REPORT.md does not show figures/$name"; status=1
  fi
done
[ $status -eq 0 ] && echo "report: all figures regenerated and shown, all CSV headers as documented"
exit $status
