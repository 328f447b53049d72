# MLTCP's trajectories: two jobs started together, without and with MLTCP, in two regimes
# (rows): the communication exposed after the backward pass (exposed.json, as the paper models
# a job) and ResNet-50's own overlap of the ring with its backward pass (two-jobs.json).
# Columns: each job's iteration time, iteration by iteration; the offset between the two jobs'
# communication phases beside the paper's shift equation; the all-reduces of three iterations
# as bands, one row per job. Reads RUNS/<scenario>-<false|true>/{iterations,comm}.csv:
#   for s in exposed two-jobs; do for m in false true; do
#     ./flumen run examples/mltcp/$s.json --quiet --set job.mltcp=$m --out out/mltcp/$s-$m
#   done; done
#   gnuplot -e "runs='out/mltcp'; png='out/mltcp/trajectories.png'" examples/mltcp/plot.gp
if (!exists("runs")) runs = 'out/mltcp'
if (!exists("png")) png = 'trajectories.png'
# The paper's F = slope x bytes ratio + intercept: the values the runs used (flumen's defaults).
if (!exists("slope")) slope = 1.0
if (!exists("intercept")) intercept = 0.5
# The iterations drawn as bands.
if (!exists("from")) from = 20
if (!exists("to")) to = 22
set terminal pngcairo size 1500,820 font ',10'
set termoption noenhanced
set output png
set datafile separator ','
set grid

run(s, m) = sprintf('%s/%s-%s', runs, s, m)
# iterations.csv: 1 iteration, 2 worker, 5 duration_s, 11 job; worker 0 of each job.
durations(s, m, j) = sprintf("< awk -F, 'NR > 1 && $2 == 0 && $11 == \"%s\" {print $1 \",\" $5}' '%s/iterations.csv'", j, run(s, m))
# comm.csv: job, iteration, start_s, end_s; a phase is its first start to its last end.
# Prints iteration, |b's phase start - a's| (ms), and a's phase length (ms).
offsets(s, m) = sprintf("< awk -F, 'NR > 1 { k = $1 \" \" $2; if (!(k in s) || $3 < s[k]) s[k] = $3; if ($4 > e[k]) e[k] = $4; if ($2 > n) n = $2 } END { for (i = 0; i <= n; ++i) { d = s[\"b \" i] - s[\"a \" i]; print i \",\" (d < 0 ? -d : d) * 1e3 \",\" (e[\"a \" i] - s[\"a \" i]) * 1e3 } }' '%s/comm.csv'", run(s, m))
# The shift equation iterated from the first measured iteration (2) at least 5 ms apart, with
# aT the mean phase of the last 10 iterations (the jobs apart).
equation(s) = sprintf("< awk -F, -v S=%g -v I=%g 'NR > 1 { k = $1 \" \" $2; if (!(k in s) || $3 < s[k]) s[k] = $3; if ($4 > e[k]) e[k] = $4; if ($2 > n) n = $2 } END { for (i = n - 9; i <= n; ++i) aT += (e[\"a \" i] - s[\"a \" i]) / 10; for (i = 2; i <= n; ++i) { d = s[\"b \" i] - s[\"a \" i]; d = d < 0 ? -d : d; if (d >= 0.005) break } for (; i <= n && i < 12; ++i) { print i \",\" d * 1e3; d += S * d * (aT - d) / (aT * I + d * S) } }' '%s/comm.csv'", slope, intercept, run(s, 'true'))
# The all-reduces of iterations from..to, as boxes at height y (job a 1, job b 2), in time
# from the first of them.
bands(s, m) = sprintf("< awk -F, -v f=%d -v t=%d 'NR > 1 && $2 >= f && $2 <= t { n++; a[n] = $3; b[n] = $4; y[n] = $1 == \"a\" ? 1 : 2; if (n == 1 || $3 < t0) t0 = $3 } END { for (i = 1; i <= n; ++i) print a[i] - t0 \",\" b[i] - t0 \",\" y[i] }' '%s/comm.csv'", from, to, run(s, m))
set multiplot layout 2,3 title 'Two ResNet-50 jobs (2 workers each, 8:1 uplinks) started together: plain CUBIC and MLTCP, flow engine'
do for [row = 1:2] {
    s = row == 1 ? 'exposed' : 'two-jobs'
    label = row == 1 ? 'communication exposed' : "ResNet-50's own overlap"
    set title sprintf('%s: iteration time (worker 0)', label)
    set xlabel 'iteration'
    set ylabel 'iteration time (s)'
    set key center right
    set autoscale y
    plot durations(s, 'false', 'a') using 1:2 with lines lw 2 lc 'red' title 'a, CUBIC', \
         durations(s, 'false', 'b') using 1:2 with lines dt 2 lw 2 lc 'orange' title 'b, CUBIC', \
         durations(s, 'true', 'a') using 1:2 with lines lw 2 lc 'blue' title 'a, MLTCP', \
         durations(s, 'true', 'b') using 1:2 with lines dt 2 lw 2 lc 'cyan' title 'b, MLTCP'
    set title sprintf("%s: offset of b's communication phase", label)
    set ylabel 'offset from a (ms)'
    set key top left
    set yrange [0:190]
    plot offsets(s, 'false') using 1:2 with linespoints pt 7 ps 0.6 lc 'red' title 'CUBIC', \
         offsets(s, 'true') using 1:2 with linespoints pt 7 ps 0.6 lc 'blue' title 'MLTCP', \
         offsets(s, 'true') using 1:3 with lines dt 3 lc 'black' title "a's phase (ms)", \
         equation(s) using 1:2 with linespoints dt 2 pt 6 lc 'dark-green' \
             title sprintf("the paper's shift equation (slope %g, intercept %g)", slope, intercept)
    set title sprintf('%s: all-reduces of iterations %d-%d', label, from, to)
    set xlabel 'time from the first all-reduce drawn (s)'
    set ylabel ''
    set ytics ('a, CUBIC' 1, 'b, CUBIC' 2, 'a, MLTCP' 3.5, 'b, MLTCP' 4.5)
    set yrange [0.3:5.2]
    set key off
    plot bands(s, 'false') using (($1 + $2) / 2):3:(($2 - $1) / 2):(0.35) with boxxyerror \
             fs solid 0.8 lc 'red' notitle, \
         bands(s, 'true') using (($1 + $2) / 2):($3 + 2.5):(($2 - $1) / 2):(0.35) \
             with boxxyerror fs solid 0.8 lc 'blue' notitle
    set ytics autofreq
    set autoscale y
}
unset multiplot
