# Figure: the LCS tile sweep on FR4 (lcs.csv, one run of `fr4_lcs --bench`):
# measured median time (points) against the run-time model of "Supernode
# transformation on GPGPUs" (lines), calibrated
# on the sweep's narrowest and widest tiles, for each square size M = N.
# Columns: method,m,n,alphabet,tile_w,tile_h,seconds_median,gcups,
# predicted_seconds,lcs_length,seconds_min,repeats,workers. Lower is better.
load 'style.gp'
lcs = data.'/lcs.csv'
set title 'LCS on FR4: tile width sweep, model (lines) against measurement (points)'
set xlabel 'tile width w  (columns of b per tile; tile height h = 2048 rows of a)'
set ylabel 'time  [ms]'
set logscale xy
set logscale x 2
set format x '2^{%L}'
set xrange [24:11000]  # a margin, so that the end points are not cut by the border
set key inside top center
fr4(size) = is(1, 'fr4') && column(2) == size && column(3) == size
plot \
  lcs using (fr4(4096) ? column(5) : 1/0):(1e3*column(7)) w p lt 1 t 'measured, 4096^2', \
  lcs using (fr4(4096) ? column(5) : 1/0):(1e3*column(9)) smooth unique w l lt 1 dt 2 t 'model, 4096^2', \
  lcs using (fr4(16384) ? column(5) : 1/0):(1e3*column(7)) w p lt 2 t 'measured, 16384^2', \
  lcs using (fr4(16384) ? column(5) : 1/0):(1e3*column(9)) smooth unique w l lt 2 dt 2 t 'model, 16384^2', \
  lcs using (fr4(65536) ? column(5) : 1/0):(1e3*column(7)) w p lt 4 t 'measured, 65536^2', \
  lcs using (fr4(65536) ? column(5) : 1/0):(1e3*column(9)) smooth unique w l lt 4 dt 2 t 'model, 65536^2'
