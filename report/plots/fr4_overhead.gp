# Figure 7: FR4's cost per task against a CUDA Graph with one empty kernel
# node per task, for the same DAGs (fr4_overhead.csv, one run of
# fr4_overhead_bench: graph,tasks,edges,mechanism,nodes,median_ms,
# us_per_task,setup_s,repeats). Lower is better.
load 'style.gp'
set title 'Per-task overhead of empty tasks: FR4 against CUDA Graphs (same DAG, same process)'
set ylabel 'time per task  [µs]'
set xlabel 'task graph'
set logscale y
set format y '10^{%L}'
set xrange [-0.5:2.5]
set xtics ('chain of 10^4' 0, 'wide 10^6' 1, 'random layered 10^5' 2)
set key inside top right
set boxwidth 0.35
set style fill solid 0.8 border -1
graph_x(g) = g eq 'chain' ? 0 : g eq 'wide' ? 1 : 2
overhead = data.'/fr4_overhead.csv'
plot \
  overhead using (strcol(4) eq 'fr4' ? graph_x(strcol(1)) - 0.18 : 1/0):7 w boxes lt 4 t 'FR4 persistent executor', \
  overhead using (strcol(4) eq 'cuda_graph' ? graph_x(strcol(1)) + 0.18 : 1/0):7 w boxes lt 7 t 'CUDA Graph, one kernel node per task'
