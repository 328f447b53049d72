# The loss sweep's figure: mean iteration time against the loss on every link, per model.
# gnuplot -e "results='out/loss-sweep/results.csv'; png='loss-sweep.png'" examples/loss-sweep/plot.gp
if (!exists("results")) results = 'out/loss-sweep/results.csv'
if (!exists("png")) png = 'loss-sweep.png'
set terminal pngcairo size 900,560 font ',11'
set termoption noenhanced
set output png
set datafile separator ','
set key top left
set grid
set logscale y
set xlabel 'random loss on every link (%)'
set ylabel 'mean iteration time (s)'
set title 'TCP ring all-reduce, 3 workers (configuration B), no cross traffic, packet level'
# columns: 4 job.model, 5 topology.loss.percent, 7 iteration_mean_s
plot for [m in "mobilenetv2 resnet50 resnet101"] results skip 1 \
     using 5:(strcol(4) eq m ? $7 : NaN) with linespoints lw 2 pt 7 title m
