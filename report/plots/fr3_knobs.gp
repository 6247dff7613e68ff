# Figure 5 (fr3_knobs.csv): FR3's knobs — the round-robin weight of the "double" tasks
# (tsqrt, tsmqr; "Task-Based Scheduling Implementing Tiled Linear Algebra on
# GPUs", §II.D) and the number of executors per SM.
load 'style.gp'
gpu3 = data.'/fr3_knobs.csv'
knob(m, n) = is(col_stage, 'fr3') && column(col_m) == m && column(col_n) == n && is(col_precision, 'double')
eval keep('$w1', gpu3, "knob(1024, 1024) && column(col_exec) == 1", 'column(col_weight)', '1e3*column(col_median)')
eval keep('$w2', gpu3, "knob(262144, 64) && column(col_exec) == 1", 'column(col_weight)', '1e3*column(col_median)')
eval keep('$e1', gpu3, "knob(1024, 1024) && column(col_weight) == 1", 'column(col_exec)', '1e3*column(col_median)')
eval keep('$e2', gpu3, "knob(262144, 64) && column(col_weight) == 1", 'column(col_exec)', '1e3*column(col_median)')
set multiplot layout 1,2 title 'FR3 knobs (double, median time)'
# Below the panels, off the data; the same bottom margin keeps both plot areas level.
set key outside below center horizontal box opaque
set bmargin 7
set ylabel 'time  [ms]'
set logscale y
set yrange [5:50000]
set title 'weight of tsqrt/tsmqr (1 executor per SM)'
set xlabel 'weight'
set xrange [0.8:4.2]
plot \
  $w1 using 1:2 smooth unique w lp lt 3 t '1024 × 1024', \
  $w2 using 1:2 smooth unique w lp lt 4 t '262144 × 64'
set title 'executors per SM (weight 1)'
set xlabel 'executors per SM'
set xrange [0.8:4.2]
set xtics 1
plot \
  $e1 using 1:2 smooth unique w lp lt 3 t '1024 × 1024', \
  $e2 using 1:2 smooth unique w lp lt 4 t '262144 × 64'
unset multiplot
