# Figure 6: a Gantt chart of one traced run: a bar per task from its start
# to its end on its worker's row, coloured by kind. The caller sets `trace`
# (a --trace CSV: kind,k,i,j,piv,worker,start_ns,end_ns) and `label`.
load 'style.gp'
set title label
set xlabel 'time since the first task  [µs]'
set ylabel 'worker'
set key outside right top
kind(s) = s eq 'geqrt' ? 1 : s eq 'ormqr' ? 2 : s eq 'tsqrt' ? 3 : s eq 'tsmqr' ? 4 : s eq 'ttqrt' ? 5 : 6
set linetype 11 lc rgb '#d62728'
set linetype 12 lc rgb '#1f77b4'
set linetype 13 lc rgb '#ff7f0e'
set linetype 14 lc rgb '#2ca02c'
set linetype 15 lc rgb '#9467bd'
set linetype 16 lc rgb '#8c564b'
stats trace using 7 nooutput
t0 = STATS_min
plot \
  trace using (($7 - t0)/1e3):6:(($8 - $7)/1e3):(0):(10 + kind(strcol(1))) every ::1 w vectors nohead lw 3 lc variable notitle, \
  NaN w l lt 11 lw 6 t 'geqrt', NaN w l lt 12 lw 6 t 'ormqr', NaN w l lt 13 lw 6 t 'tsqrt', \
  NaN w l lt 14 lw 6 t 'tsmqr', NaN w l lt 15 lw 6 t 'ttqrt', NaN w l lt 16 lw 6 t 'ttmqr'
