# Figure 5 (fr3_knobs.csv): FR3's knobs — the round-robin weight of the "double" tasks
# (tsqrt, tsmqr; seed 000 §II.D) and the number of executors per SM.
load 'style.gp'
gpu3 = data.'/fr3_knobs.csv'
set multiplot layout 1,2 title 'FR3 knobs (double, median time)'
set key inside top right
set ylabel 'time  [ms]'
set logscale y
knob(m, n) = is(col_stage, 'fr3') && column(col_m) == m && column(col_n) == n && is(col_precision, 'double')
set title 'weight of tsqrt/tsmqr (1 executor per SM)'
set xlabel 'weight'
plot \
  gpu3 using (knob(1024, 1024) && column(col_exec) == 1 ? column(col_weight) : 1/0):(1e3*column(col_median)) smooth unique w lp lt 3 t '1024 × 1024', \
  gpu3 using (knob(262144, 64) && column(col_exec) == 1 ? column(col_weight) : 1/0):(1e3*column(col_median)) smooth unique w lp lt 4 t '262144 × 64'
set title 'executors per SM (weight 2)'
set xlabel 'executors per SM'
set xtics 1
plot \
  gpu3 using (knob(1024, 1024) && column(col_weight) == 1 ? column(col_exec) : 1/0):(1e3*column(col_median)) smooth unique w lp lt 3 t '1024 × 1024', \
  gpu3 using (knob(262144, 64) && column(col_weight) == 1 ? column(col_exec) : 1/0):(1e3*column(col_median)) smooth unique w lp lt 4 t '262144 × 64'
unset multiplot
