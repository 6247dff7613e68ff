# Figure 1: time against size for square matrices, every stage and peer.
load 'style.gp'
set title 'Square matrices: factorisation time (double, median of repeats)'
set xlabel 'n  (matrix is n × n)'
set ylabel 'time  [s]'
set logscale xy
set xrange [96:48000]
set format y '10^{%L}'
cpu = data.'/fr1_cpu.csv'; threads = data.'/fr2_cpu.csv'
gpu3 = data.'/fr3_gpu.csv'; gpu4 = data.'/fr4_qr.csv'
stats threads using col_threads nooutput
most = STATS_max
sq(stage) = is(col_stage, stage) && column(col_m) == column(col_n) && is(col_precision, 'double')
n = 'column(col_n)'; t = 'column(col_median)'
eval keep('$fr1', cpu, "sq('fr1') && is(col_backend, 'lapack') && column(col_tile) == 32", n, t)
eval keep('$fr2', threads, "sq('fr2') && column(col_threads) == most", n, t)
eval keep('$lapack1', cpu, "sq('lapack')", n, t)
eval keep('$lapackall', threads, "sq('lapack') && column(col_threads) == most", n, t)
eval keep('$fr3', gpu3, "sq('fr3') && column(col_exec) == 1 && column(col_weight) == 1", n, t)
eval keep('$fr4', gpu4, "sq('fr4')", n, t)
eval keep('$cusolver', gpu4, "sq('cusolver')", n, t)
plot \
  $fr1 using 1:2 smooth unique w lp lt 1 t 'FR1 (1 thread, b = 32)', \
  $fr2 using 1:2 smooth unique w lp lt 2 t sprintf('FR2 (%d threads)', most), \
  $lapack1 using 1:2 smooth unique w lp lt 8 t 'LAPACK dgeqrf (1 thread)', \
  $lapackall using 1:2 smooth unique w lp lt 9 t sprintf('LAPACK dgeqrf (%d threads)', most), \
  $fr3 using 1:2 smooth unique w lp lt 3 t 'FR3 (GPU scheduler warp)', \
  $fr4 using 1:2 smooth unique w lp lt 4 t 'FR4 (tile chosen for the shape)', \
  $cusolver using 1:2 smooth unique w lp lt 7 t 'cuSOLVER dgeqrf'
