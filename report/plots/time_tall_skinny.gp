# Figure 2: time against n for tall-skinny matrices (m = 262144).
load 'style.gp'
set title 'Tall-skinny matrices, m = 262144: factorisation time (double)'
set xlabel 'n  (columns)'
set ylabel 'time  [s]'
set logscale xy
set format y '10^{%L}'
set xtics (32, 64, 128, 256, 512, 1024)
set xrange [24:1400]
cpu = data.'/fr1_cpu.csv'; threads = data.'/fr2_cpu.csv'
gpu3 = data.'/fr3_gpu.csv'; gpu4 = data.'/fr4_qr.csv'
stats threads using col_threads nooutput
most = STATS_max
ts(stage) = is(col_stage, stage) && column(col_m) == 262144 && is(col_precision, 'double')
n = 'column(col_n)'; t = 'column(col_median)'
eval keep('$fr1', cpu, "ts('fr1') && is(col_backend, 'lapack') && column(col_tile) == 32", n, t)
eval keep('$fr2', threads, "ts('fr2') && is(col_tree, 'binary') && column(col_threads) == most", n, t)
eval keep('$lapackall', threads, "ts('lapack') && column(col_threads) == most", n, t)
eval keep('$fr3', gpu3, "ts('fr3') && column(col_exec) == 1 && column(col_weight) == 1", n, t)
eval keep('$fr4', gpu4, "ts('fr4')", n, t)
eval keep('$cusolver', gpu4, "ts('cusolver')", n, t)
plot \
  $fr1 using 1:2 smooth unique w lp lt 1 t 'FR1 (1 thread, b = 32)', \
  $fr2 using 1:2 smooth unique w lp lt 2 t sprintf('FR2 binary tree (%d threads)', most), \
  $lapackall using 1:2 smooth unique w lp lt 9 t sprintf('LAPACK dgeqrf (%d threads)', most), \
  $fr3 using 1:2 smooth unique w lp lt 3 t 'FR3 (flat tree)', \
  $fr4 using 1:2 smooth unique w lp lt 5 t 'FR4 (tile and tree chosen for the shape)', \
  $cusolver using 1:2 smooth unique w lp lt 7 t 'cuSOLVER dgeqrf'
