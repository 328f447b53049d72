# The cluster figure: mean iteration time of a ResNet-50 ring of 64 and of 1,024 workers against
# the web-search load from S0 to S1 (which shares S0's NIC with the ring's first hop).
# gnuplot -e "small='out/cluster-64/results.csv'; large='out/cluster-1024/results.csv'; png='cluster-1024.png'" examples/cluster-1024/plot.gp
if (!exists("small")) small = 'out/cluster-64/results.csv'
if (!exists("large")) large = 'out/cluster-1024/results.csv'
if (!exists("png")) png = 'cluster-1024.png'
set terminal pngcairo size 900,560 font ',11'
set termoption noenhanced
set output png
set datafile separator ','
set key top left
set grid
set xlabel 'web-search cross traffic from S0 to S1 (Gbps, requested)'
set ylabel 'iteration time (s)'
set yrange [0:*]
set title 'ResNet-50 over RoCE, leaf-spine of 32 hosts per leaf, 8 x 400 Gbps spines, whole ring behind the FIFO queues'
# results.csv: 4 cross_traffic.load_gbps, 6 iteration_mean_s, 9 iteration_p99_s
plot small using 4:6 with linespoints lw 2 pt 7 lc 1 title '64 workers, mean', \
     small using 4:9 with lines lw 1 dt 2 lc 1 title '64 workers, p99', \
     large using 4:6 with linespoints lw 2 pt 7 lc 2 title '1,024 workers, mean', \
     large using 4:9 with lines lw 1 dt 2 lc 2 title '1,024 workers, p99'
