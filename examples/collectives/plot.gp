# The collectives' figure: mean iteration time against the web-search load, per collective.
# gnuplot -e "results='out/collectives/results.csv'; png='collectives.png'" examples/collectives/plot.gp
if (!exists("results")) results = 'out/collectives/results.csv'
if (!exists("png")) png = 'collectives.png'
set terminal pngcairo size 900,560 font ',11'
set termoption noenhanced
set output png
set datafile separator ','
set key top left
set grid
set logscale y
set xlabel 'web-search cross traffic towards S0 (Gbps, requested)'
set ylabel 'mean iteration time (s)'
set title 'VGG-16 over TCP, 3 workers (configuration B), flow engine'
# columns: 4 cross_traffic.load_gbps, 5 job.collective, 7 iteration_mean_s; one collective's
# rows at a time (the grid varies the collective fastest, so its rows are not consecutive)
plot for [c in "ring clique nccl_tree star"] sprintf("< grep ',%s,' '%s'", c, results) \
     using 4:7 with linespoints lw 2 pt 7 title c
