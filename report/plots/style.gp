# Shared look of every figure. The caller sets: fmt ('svg' or 'png'),
# out (output file), data (folder of the CSVs).
if (fmt eq 'png') {
  set terminal pngcairo size 1200,760 enhanced font 'DejaVu Sans,15' linewidth 1.5
} else {
  set terminal svg size 1200,760 dynamic enhanced font 'DejaVu Sans,15' linewidth 1.5
}
set output out
set datafile separator ','
set datafile missing ''
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key outside right top box opaque
set border lw 1
set tics nomirror

# The driver's CSV columns (report/bench/csv_log.cpp).
col_stage = 5; col_backend = 6; col_tree = 7; col_tile = 8; col_threads = 10
col_exec = 11; col_weight = 12; col_m = 13; col_n = 14; col_precision = 15
col_median = 17; col_min = 18; col_max = 19; col_gflops = 20
col_residual = 21; col_orthogonality = 22

# One colour per stage or peer, the same in every figure.
set linetype 1 lc rgb '#1f77b4' pt 7 ps 1.2   # FR1
set linetype 2 lc rgb '#2ca02c' pt 5 ps 1.2   # FR2
set linetype 3 lc rgb '#d62728' pt 9 ps 1.4   # FR3
set linetype 4 lc rgb '#9467bd' pt 11 ps 1.4  # FR4 flat
set linetype 5 lc rgb '#e377c2' pt 13 ps 1.4  # FR4 binary
set linetype 6 lc rgb '#8c564b' pt 15 ps 1.4  # FR4 greedy
set linetype 7 lc rgb '#000000' pt 4 ps 1.3   # cuSOLVER
set linetype 8 lc rgb '#ff7f0e' pt 6 ps 1.3   # LAPACK 1 thread
set linetype 9 lc rgb '#7f7f7f' pt 8 ps 1.3   # LAPACK all threads

is(c, text) = strcol(c) eq text

# keep(name, file, condition, x, y): a command (for eval) that fills the
# datablock `name` with (x, y) of the rows of `file` where `condition`
# holds. A series plotted from its own block is one contiguous line; rows
# filtered out with 1/0 would break it wherever other series' rows lie
# between.
#   eval keep('$fr4', gpu4, "is(col_stage, 'fr4')", 'column(col_n)', 'column(col_median)')
# (A last row "NaN,NaN", never drawn, keeps the block defined when no row
# meets the condition.)
keep(name, file, condition, x, y) = sprintf("set table %s separator comma; plot '%s' using (%s):(%s) with table if (%s); unset table; set print %s append; print 'NaN,NaN'; unset print", name, file, x, y, condition, name)
