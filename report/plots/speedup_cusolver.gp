# Figure 3: speed-up over cuSOLVER (its time / the stage's time, same run),
# per shape. The caller passes `speedups`, a table made by scripts/plots:
# label, fr3, fr4 flat, fr4 binary, fr4 greedy (blank where not measured).
load 'style.gp'
set datafile separator whitespace
set title 'Speed-up over cuSOLVER dgeqrf (same process, same GPU; > 1 is faster)'
set xlabel 'matrix shape  (m × n)'
set ylabel 'cuSOLVER time / stage time'
set logscale y
set xtics rotate by -40 left
set bmargin 6
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#444444'
plot \
  speedups using 0:2:xtic(1) w lp lt 3 t 'FR3', \
  '' using 0:3 w lp lt 4 t 'FR4 flat', \
  '' using 0:4 w lp lt 5 t 'FR4 binary', \
  '' using 0:5 w lp lt 6 t 'FR4 greedy'
