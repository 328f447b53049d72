set terminal pngcairo size 1000,650 font ',11'
set grid
set key top left
set logscale y
set xlabel 'cross traffic (Gbps): testbed measured, simulation achieved'
set ylabel 'iteration time (s), bars up to p99'
set output 'websearch-rdma-configB.png'
set title 'websearch-rdma-configB: testbed (filled, solid) and simulation (open, dashed)' noenhanced
plot 'websearch-rdma-configB.testbed.dat' index 0 using 1:2:2:3 with yerrorbars lc 1 pt 7 title 'resnet50 testbed' noenhanced, 'websearch-rdma-configB.testbed.dat' index 0 using 1:2 with lines lc 1 notitle, 'websearch-rdma-configB.simulated.dat' index 0 using 1:2:2:3 with yerrorbars lc 1 pt 6 title 'resnet50 simulated' noenhanced, 'websearch-rdma-configB.simulated.dat' index 0 using 1:2 with lines lc 1 dt 2 notitle, 'websearch-rdma-configB.testbed.dat' index 1 using 1:2:2:3 with yerrorbars lc 2 pt 7 title 'densenet161 testbed' noenhanced, 'websearch-rdma-configB.testbed.dat' index 1 using 1:2 with lines lc 2 notitle, 'websearch-rdma-configB.simulated.dat' index 1 using 1:2:2:3 with yerrorbars lc 2 pt 6 title 'densenet161 simulated' noenhanced, 'websearch-rdma-configB.simulated.dat' index 1 using 1:2 with lines lc 2 dt 2 notitle, 'websearch-rdma-configB.censored.dat' index 1 using 1:2 with points lc 2 pt 8 ps 1.5 title 'densenet161 simulated, censored (at least)' noenhanced, 'websearch-rdma-configB.testbed.dat' index 2 using 1:2:2:3 with yerrorbars lc 3 pt 7 title 'vgg16 testbed' noenhanced, 'websearch-rdma-configB.testbed.dat' index 2 using 1:2 with lines lc 3 notitle, 'websearch-rdma-configB.simulated.dat' index 2 using 1:2:2:3 with yerrorbars lc 3 pt 6 title 'vgg16 simulated' noenhanced, 'websearch-rdma-configB.simulated.dat' index 2 using 1:2 with lines lc 3 dt 2 notitle, 'websearch-rdma-configB.censored.dat' index 2 using 1:2 with points lc 3 pt 8 ps 1.5 title 'vgg16 simulated, censored (at least)' noenhanced, 'websearch-rdma-configB.testbed.dat' index 3 using 1:2:2:3 with yerrorbars lc 4 pt 7 title 'bert-large testbed' noenhanced, 'websearch-rdma-configB.testbed.dat' index 3 using 1:2 with lines lc 4 notitle, 'websearch-rdma-configB.simulated.dat' index 3 using 1:2:2:3 with yerrorbars lc 4 pt 6 title 'bert-large simulated' noenhanced, 'websearch-rdma-configB.simulated.dat' index 3 using 1:2 with lines lc 4 dt 2 notitle, 'websearch-rdma-configB.censored.dat' index 3 using 1:2 with points lc 4 pt 8 ps 1.5 title 'bert-large simulated, censored (at least)' noenhanced
set output 'websearch-tcp-configB.png'
set title 'websearch-tcp-configB: testbed (filled, solid) and simulation (open, dashed)' noenhanced
plot 'websearch-tcp-configB.testbed.dat' index 0 using 1:2:2:3 with yerrorbars lc 1 pt 7 title 'resnet50 testbed' noenhanced, 'websearch-tcp-configB.testbed.dat' index 0 using 1:2 with lines lc 1 notitle, 'websearch-tcp-configB.simulated.dat' index 0 using 1:2:2:3 with yerrorbars lc 1 pt 6 title 'resnet50 simulated' noenhanced, 'websearch-tcp-configB.simulated.dat' index 0 using 1:2 with lines lc 1 dt 2 notitle, 'websearch-tcp-configB.censored.dat' index 0 using 1:2 with points lc 1 pt 8 ps 1.5 title 'resnet50 simulated, censored (at least)' noenhanced, 'websearch-tcp-configB.testbed.dat' index 1 using 1:2:2:3 with yerrorbars lc 2 pt 7 title 'bert-large testbed' noenhanced, 'websearch-tcp-configB.testbed.dat' index 1 using 1:2 with lines lc 2 notitle, 'websearch-tcp-configB.simulated.dat' index 1 using 1:2:2:3 with yerrorbars lc 2 pt 6 title 'bert-large simulated' noenhanced, 'websearch-tcp-configB.simulated.dat' index 1 using 1:2 with lines lc 2 dt 2 notitle, 'websearch-tcp-configB.censored.dat' index 1 using 1:2 with points lc 2 pt 8 ps 1.5 title 'bert-large simulated, censored (at least)' noenhanced
set output 'iperf-rdma-configA.png'
set title 'iperf-rdma-configA: testbed (filled, solid) and simulation (open, dashed)' noenhanced
plot 'iperf-rdma-configA.testbed.dat' index 0 using 1:2:2:3 with yerrorbars lc 1 pt 7 title 'resnet50 testbed' noenhanced, 'iperf-rdma-configA.testbed.dat' index 0 using 1:2 with lines lc 1 notitle, 'iperf-rdma-configA.simulated.dat' index 0 using 1:2:2:3 with yerrorbars lc 1 pt 6 title 'resnet50 simulated' noenhanced, 'iperf-rdma-configA.simulated.dat' index 0 using 1:2 with lines lc 1 dt 2 notitle, 'iperf-rdma-configA.testbed.dat' index 1 using 1:2:2:3 with yerrorbars lc 2 pt 7 title 'densenet161 testbed' noenhanced, 'iperf-rdma-configA.testbed.dat' index 1 using 1:2 with lines lc 2 notitle, 'iperf-rdma-configA.simulated.dat' index 1 using 1:2:2:3 with yerrorbars lc 2 pt 6 title 'densenet161 simulated' noenhanced, 'iperf-rdma-configA.simulated.dat' index 1 using 1:2 with lines lc 2 dt 2 notitle, 'iperf-rdma-configA.testbed.dat' index 2 using 1:2:2:3 with yerrorbars lc 3 pt 7 title 'vgg16 testbed' noenhanced, 'iperf-rdma-configA.testbed.dat' index 2 using 1:2 with lines lc 3 notitle, 'iperf-rdma-configA.simulated.dat' index 2 using 1:2:2:3 with yerrorbars lc 3 pt 6 title 'vgg16 simulated' noenhanced, 'iperf-rdma-configA.simulated.dat' index 2 using 1:2 with lines lc 3 dt 2 notitle, 'iperf-rdma-configA.censored.dat' index 2 using 1:2 with points lc 3 pt 8 ps 1.5 title 'vgg16 simulated, censored (at least)' noenhanced, 'iperf-rdma-configA.testbed.dat' index 3 using 1:2:2:3 with yerrorbars lc 4 pt 7 title 'bert-large testbed' noenhanced, 'iperf-rdma-configA.testbed.dat' index 3 using 1:2 with lines lc 4 notitle, 'iperf-rdma-configA.simulated.dat' index 3 using 1:2:2:3 with yerrorbars lc 4 pt 6 title 'bert-large simulated' noenhanced, 'iperf-rdma-configA.simulated.dat' index 3 using 1:2 with lines lc 4 dt 2 notitle, 'iperf-rdma-configA.censored.dat' index 3 using 1:2 with points lc 4 pt 8 ps 1.5 title 'bert-large simulated, censored (at least)' noenhanced
unset logscale y
set key bottom right
set xlabel 'iteration time (s)'
set ylabel 'cumulative fraction'
set output 'cdf-bert-large-20G-tcp.png'
set title 'bert-large at 20 Gbps web-search, tcp: KS distance 0.806' noenhanced
plot 'cdf-bert-large-20G-tcp.testbed.dat' using 1:2 with steps lw 2 title 'testbed', 'cdf-bert-large-20G-tcp.simulated.dat' using 1:2 with steps lw 2 dt 2 title 'simulated (894 iterations)'
set output 'cdf-bert-large-8G-tcp.png'
set title 'bert-large at 8 Gbps web-search, tcp: KS distance 0.946' noenhanced
plot 'cdf-bert-large-8G-tcp.testbed.dat' using 1:2 with steps lw 2 title 'testbed', 'cdf-bert-large-8G-tcp.simulated.dat' using 1:2 with steps lw 2 dt 2 title 'simulated (894 iterations)'
set output 'cdf-resnet50-20G-tcp.png'
set title 'resnet50 at 20 Gbps web-search, tcp: KS distance 0.346' noenhanced
plot 'cdf-resnet50-20G-tcp.testbed.dat' using 1:2 with steps lw 2 title 'testbed', 'cdf-resnet50-20G-tcp.simulated.dat' using 1:2 with steps lw 2 dt 2 title 'simulated (894 iterations)'
set output 'cdf-resnet50-8G-rdma.png'
set title 'resnet50 at 8 Gbps web-search, rdma: KS distance 0.992' noenhanced
plot 'cdf-resnet50-8G-rdma.testbed.dat' using 1:2 with steps lw 2 title 'testbed', 'cdf-resnet50-8G-rdma.simulated.dat' using 1:2 with steps lw 2 dt 2 title 'simulated (894 iterations)'
set output 'cdf-resnet50-8G-tcp.png'
set title 'resnet50 at 8 Gbps web-search, tcp: KS distance 0.551' noenhanced
plot 'cdf-resnet50-8G-tcp.testbed.dat' using 1:2 with steps lw 2 title 'testbed', 'cdf-resnet50-8G-tcp.simulated.dat' using 1:2 with steps lw 2 dt 2 title 'simulated (894 iterations)'
set output 'cdf-vgg16-20G-tcp.png'
set title 'vgg16 at 20 Gbps web-search, tcp: KS distance 0.614' noenhanced
plot 'cdf-vgg16-20G-tcp.testbed.dat' using 1:2 with steps lw 2 title 'testbed', 'cdf-vgg16-20G-tcp.simulated.dat' using 1:2 with steps lw 2 dt 2 title 'simulated (894 iterations)'
set output 'cdf-vgg16-8G-tcp.png'
set title 'vgg16 at 8 Gbps web-search, tcp: KS distance 0.488' noenhanced
plot 'cdf-vgg16-8G-tcp.testbed.dat' using 1:2 with steps lw 2 title 'testbed', 'cdf-vgg16-8G-tcp.simulated.dat' using 1:2 with steps lw 2 dt 2 title 'simulated (894 iterations)'
