# tiledqr_mpi against ScaLAPACK pdgeqrf in the same run (distributed.csv,
# scripts/bench-distributed; scripts/plots passes the median run of each
# configuration as `dist`): speed-up = pdgeqrf time / tiledqr_mpi time
# per run, labelled shape, grid, threads per rank and the tree inside a
# rank; above 1 tiledqr_mpi is faster. Dotted lines: the targets (1× on
# squares, 2× on tall-skinny).
load 'style.gp'
set title 'tiledqr\_mpi (StarPU-MPI) against ScaLAPACK pdgeqrf, same ranks, same run'
set ylabel 'speed-up over pdgeqrf  (pdgeqrf time / tiledqr\_mpi time)'
set style fill solid 0.7 border -1
set boxwidth 0.6
set key off
set xtics rotate by -35 font ',11' nomirror
set bmargin 9
set yrange [0:*]
if (!exists('dist')) dist = data.'/distributed.csv'
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb '#555555'
set arrow from graph 0, first 2 to graph 1, first 2 nohead dt 3 lc rgb '#aaaaaa'
label(m, n, grid, threads, tree, inner, machine) = sprintf('%s×%s %s×%s %s (%s)', m, n, grid, threads, \
  tree eq 'tsqr' ? 'tsqr' : inner, machine[strlen(machine)-2:])
plot dist every ::1 using 0:19:xtic(label(strcol(4), strcol(5), strcol(11), strcol(13), strcol(9), strcol(10), strcol(1))) \
  w boxes lt 2
