# Figure 3: speed-up over cuSOLVER (its time / the stage's time, same run).
# The caller passes `speedups`, a folder made by scripts/plots holding
# square.dat and tall_M.dat (columns n, fr3, fr4 at the tile and tree it
# chooses), and `tall_ms`, the M values of the tall files. One line per
# stage and shape family: squares on the left, tall-skinny on the
# right (solid: the smaller m, dashed: the larger).
load 'style.gp'
# Taller than the others: two keys below the panels.
if (fmt eq 'png') {
  set terminal pngcairo size 1300,900 enhanced font 'DejaVu Sans,15' linewidth 1.5
} else {
  set terminal svg size 1300,900 dynamic enhanced font 'DejaVu Sans,15' linewidth 1.5
}
set output out
set datafile separator whitespace
set datafile missing '?'
set multiplot layout 1,2 title 'Speed-up over cuSOLVER dgeqrf (same process, same GPU; > 1 is faster)'
set logscale x 2
set logscale y
set format x '%.0f'
set ylabel 'speed-up  (cuSOLVER time / stage time)'
set yrange [0.0005:20]
set key outside below center horizontal maxrows 4 box opaque
set xtics rotate by -45 left
set bmargin 14  # the same in both panels, so that their plot areas line up
one = 'set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#444444"'
eval one
label(k) = k == 1 ? 'FR3' : 'FR4 (own tile, tree)'

set title 'square matrices, n × n'
set xlabel 'n'
set xrange [96:49152]
plot for [k=1:2] speedups.'/square.dat' using 1:(column(k + 1)) w lp lt (k + 2) t label(k)

set title 'tall-skinny matrices, m × n'
set xlabel 'n  (columns)'
set xrange [24:1536]
plot for [k=1:2] for [t=1:words(tall_ms)] speedups.'/tall_'.word(tall_ms, t).'.dat' \
  using 1:(column(k + 1)) w lp lt (k + 2) dt t t label(k).', m = '.word(tall_ms, t)
unset multiplot
