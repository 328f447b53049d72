# The two-jobs figure: each job's mean iteration time against the second job's start offset,
# one panel per regime (uplinks that two jobs share, and 8:1 ones that either job fills alone);
# the one-job time as a dotted line.
# gnuplot -e "results='out/two-jobs/results.csv'; alone='out/one-job/results.csv'; png='two-jobs.png'" examples/two-jobs/plot.gp
if (!exists("results")) results = 'out/two-jobs/results.csv'
if (!exists("alone")) alone = 'out/one-job/results.csv'
if (!exists("png")) png = 'two-jobs.png'
set terminal pngcairo size 1100,480 font ',11'
set termoption noenhanced
set output png
set datafile separator ','
set grid
set key bottom right
set xlabel 'start of job b after job a (s)'
set ylabel 'mean iteration time (s)'
# results.csv: 4 jobs.1.start_s, 5 topology.oversubscription, 19 a's mean, 23 b's mean;
# the one-job results.csv: 4 topology.oversubscription, 6 iteration_mean_s
rows(o) = sprintf("< awk -F, 'NR > 1 && $5 == %s' '%s'", o, results)
solo(o) = sprintf("< awk -F, 'NR > 1 && $4 == %s {print 0 \",\" $6; print 0.35 \",\" $6}' '%s'", o, alone)
set multiplot layout 1,2 title 'Two VGG-16 jobs (2 workers each) meeting on the uplinks of 2 leaves, flow engine'
set title 'uplinks 2:1 and 4:1 oversubscribed'
set yrange [0.355:0.395]
plot for [o in "2 4"] rows(o) using 4:23 with linespoints lw 2 pt 7 lc int(o) \
         title sprintf('job b, %s:1', o), \
     for [o in "2 4"] rows(o) using 4:19 with linespoints dt 2 pt 6 lc int(o) \
         title sprintf('job a, %s:1', o), \
     solo("4") using 1:2 with lines dt 3 lw 2 lc 'black' title 'one job alone, 2:1 and 4:1'
set title 'uplinks 8:1 oversubscribed'
set yrange [0.35:0.8]
plot rows("8") using 4:23 with linespoints lw 2 pt 7 lc 8 title 'job b, 8:1', \
     rows("8") using 4:19 with linespoints dt 2 pt 6 lc 8 title 'job a, 8:1', \
     solo("8") using 1:2 with lines dt 3 lw 2 lc 'black' title 'one job alone, 8:1'
unset multiplot
