# Figure 8: accuracy of every stage and peer against size (square, double):
# residual ‖A − QR‖_F/(‖A‖_F·n·ε) and orthogonality ‖I − QᵀQ‖_F/(n·ε).
load 'style.gp'
cpu = data.'/fr1_cpu.csv'; threads = data.'/fr2_cpu.csv'
gpu3 = data.'/fr3_gpu.csv'; gpu4 = data.'/fr4_qr_tile32_h200.csv'  # the FR4 run with residuals (tile 32)
stats threads using col_threads nooutput
most = STATS_max
set multiplot layout 1,2 title 'Accuracy (square matrices, double; the bound is 50)'
set logscale xy
set xlabel 'n'
# Below the panels, off the data and off the bound; the same bottom margin
# keeps both plot areas level.
set key outside below center horizontal maxrows 2 box opaque
set bmargin 8
sq(stage) = is(col_stage, stage) && column(col_m) == column(col_n) && is(col_precision, 'double')
do for [measure in 'residual orthogonality'] {
  c = measure eq 'residual' ? col_residual : col_orthogonality
  set title measure eq 'residual' ? '‖A − QR‖_F / (‖A‖_F n ε)' : '‖I − Q^TQ‖_F / (n ε)'
  set ylabel measure
  eval keep('$a1', cpu, "sq('fr1') && is(col_backend, 'reference')", 'column(col_n)', 'column(c)')
  eval keep('$a2', threads, "sq('fr2') && column(col_threads) == most", 'column(col_n)', 'column(c)')
  eval keep('$a3', cpu, "sq('lapack')", 'column(col_n)', 'column(c)')
  eval keep('$a4', gpu3, "sq('fr3') && column(col_exec) == 1 && column(col_weight) == 1", 'column(col_n)', 'column(c)')
  eval keep('$a5', gpu4, "sq('fr4') && is(col_tree, 'flat')", 'column(col_n)', 'column(c)')
  eval keep('$a6', gpu4, "sq('cusolver')", 'column(col_n)', 'column(c)')
  plot [][1e-3:100] \
    $a1 using 1:2 smooth unique w lp lt 1 t 'FR1 reference', \
    $a2 using 1:2 smooth unique w lp lt 2 t 'FR2', \
    $a3 using 1:2 smooth unique w lp lt 8 t 'LAPACK', \
    $a4 using 1:2 smooth unique w lp lt 3 t 'FR3', \
    $a5 using 1:2 smooth unique w lp lt 4 t 'FR4 (tile 32)', \
    $a6 using 1:2 smooth unique w lp lt 7 t 'cuSOLVER', \
    50 w l dt 2 lc rgb '#444444' t 'bound 50'
}
unset multiplot
