# Figure 1: time against size for square matrices, every stage and peer.
load 'style.gp'
set title 'Square matrices: factorisation time (double, median of repeats)'
set xlabel 'n  (matrix is n × n)'
set ylabel 'time  [s]'
set logscale xy
set xrange [96:12000]
set format y '10^{%L}'
cpu = data.'/fr1_cpu.csv'; threads = data.'/fr2_cpu.csv'
gpu3 = data.'/fr3_gpu.csv'; gpu4 = data.'/fr4_qr.csv'
stats threads using col_threads nooutput
most = STATS_max
sq(stage) = is(col_stage, stage) && column(col_m) == column(col_n) && is(col_precision, 'double')
plot \
  cpu using (sq('fr1') && is(col_backend, 'lapack') && column(col_tile) == 32 ? column(col_n) : 1/0):col_median smooth unique w lp lt 1 t 'FR1 (1 thread, b = 32)', \
  threads using (sq('fr2') && column(col_threads) == most ? column(col_n) : 1/0):col_median smooth unique w lp lt 2 t sprintf('FR2 (%d threads)', most), \
  cpu using (sq('lapack') ? column(col_n) : 1/0):col_median smooth unique w lp lt 8 t 'LAPACK dgeqrf (1 thread)', \
  threads using (sq('lapack') && column(col_threads) == most ? column(col_n) : 1/0):col_median smooth unique w lp lt 9 t sprintf('LAPACK dgeqrf (%d threads)', most), \
  gpu3 using (sq('fr3') && column(col_exec) == 1 && column(col_weight) == 1 ? column(col_n) : 1/0):col_median smooth unique w lp lt 3 t 'FR3 (GPU scheduler warp)', \
  gpu4 using (sq('fr4') && is(col_tree, 'flat') ? column(col_n) : 1/0):col_median smooth unique w lp lt 4 t 'FR4 flat tree', \
  gpu4 using (sq('cusolver') ? column(col_n) : 1/0):col_median smooth unique w lp lt 7 t 'cuSOLVER dgeqrf'
