# EnKF scaling: time of P_HT = [C o (e e^T)] H^T / (L - 1) against N, per
# method (enkf.csv, one run of fr4_enkf_bench: method,n,m,l,density,nnz,
# seconds_median,seconds_min,rel_error,reference,repeats,setup_s,
# auto_method). M = 32, L = 10, density 0.05 unless the CSV says otherwise.
# Lower is better; the dotted line marks 1 s (the target at N = 10^6).
load 'style.gp'
set title 'EnKF localised covariance product: time against state size N (median of repeats)'
set xlabel 'N  (state size; C is N × N Toeplitz, H is M × N sparse)'
set ylabel 'time  [s]'
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set key inside bottom right  # the corner no series reaches
set xrange [700:1.5e6]
enkf = data.'/enkf.csv'
col_n = 2; col_seconds = 7
# One method's rows, picked by the shell: rows of other methods between
# them would otherwise break the line.
rows(name) = '< grep -E "^'.name.'," '.enkf
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb '#999999'
plot \
  rows('cpu') using col_n:col_seconds smooth unique w lp lt 8 t 'CPU reference (1 thread)', \
  rows('dense') using col_n:col_seconds smooth unique w lp lt 7 t 'dense: C∘(ee^T) formed, cuBLAS dgemm', \
  rows('tiled') using col_n:col_seconds smooth unique w lp lt 4 t 'tiled: task graph on the GPU scheduler', \
  rows('fft') using col_n:col_seconds smooth unique w lp lt 3 t 'fft: circulant embedding, cuFFT'
