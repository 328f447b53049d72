# The leaf-spine figure: mean iteration time of 16 ResNet-50 workers against the web-search
# load, the ring packed (in host order) or spread (every hop between leaves), per
# oversubscription of the uplinks.
# gnuplot -e "packed='out/leaf-spine-packed/results.csv'; spread='out/leaf-spine-spread/results.csv'; png='leaf-spine.png'" examples/leaf-spine/plot.gp
if (!exists("packed")) packed = 'out/leaf-spine-packed/results.csv'
if (!exists("spread")) spread = 'out/leaf-spine-spread/results.csv'
if (!exists("png")) png = 'leaf-spine.png'
set terminal pngcairo size 900,560 font ',11'
set termoption noenhanced
set output png
set datafile separator ','
set key top left
set grid
set xlabel 'web-search cross traffic from S0 to S1 (Gbps, requested)'
set ylabel 'mean iteration time (s)'
set yrange [0:*]
set title '16 ResNet-50 workers on 4 leaves x 2 spines (configuration A), flow engine'
# results.csv: 4 cross_traffic.load_gbps, 5 topology.oversubscription, 7 iteration_mean_s
rows(file, o) = sprintf("< awk -F, 'NR > 1 && $5 == %s' '%s'", o, file)
plot for [o in "1 2 4"] rows(packed, o) using 4:7 with linespoints lw 2 pt 7 lc int(o) \
         title sprintf('packed ring, %s:1', o), \
     for [o in "1 2 4"] rows(spread, o) using 4:7 with linespoints lw 2 dt 2 pt 6 lc int(o) \
         title sprintf('spread ring, %s:1', o)
