# Figure 4: FR2 thread scaling against OpenBLAS dgeqrf on as many threads.
load 'style.gp'
set title 'CPU thread scaling: FR2 against OpenBLAS dgeqrf (double)'
set xlabel 'threads'
set ylabel 'GFLOP/s  (2mn^2 − 2n^3/3 per second)'
set logscale x 2
# Room on both sides, so that the 16-thread tick and points are inside.
set xrange [0.8:20]
set xtics (1, 2, 4, 8, 16)
threads = data.'/fr2_cpu.csv'
at(stage, m, n) = is(col_stage, stage) && column(col_m) == m && column(col_n) == n
eval keep('$s1', threads, "at('fr2', 4096, 4096)", 'column(col_threads)', 'column(col_gflops)')
eval keep('$s2', threads, "at('lapack', 4096, 4096)", 'column(col_threads)', 'column(col_gflops)')
eval keep('$s3', threads, "at('fr2', 8192, 8192)", 'column(col_threads)', 'column(col_gflops)')
eval keep('$s4', threads, "at('lapack', 8192, 8192)", 'column(col_threads)', 'column(col_gflops)')
eval keep('$s5', threads, "at('fr2', 262144, 64) && is(col_tree, 'binary')", 'column(col_threads)', 'column(col_gflops)')
eval keep('$s6', threads, "at('lapack', 262144, 64)", 'column(col_threads)', 'column(col_gflops)')
plot \
  $s1 using 1:2 smooth unique w lp lt 2 t 'FR2 4096^2', \
  $s2 using 1:2 smooth unique w lp lt 9 t 'OpenBLAS 4096^2', \
  $s3 using 1:2 smooth unique w lp lt 2 dt 2 pt 4 t 'FR2 8192^2', \
  $s4 using 1:2 smooth unique w lp lt 9 dt 2 pt 4 t 'OpenBLAS 8192^2', \
  $s5 using 1:2 smooth unique w lp lt 5 t 'FR2 binary 262144×64', \
  $s6 using 1:2 smooth unique w lp lt 8 t 'OpenBLAS 262144×64'
