# make bench's pictures from the data files tests/bench/bench.c writes (gnuplot, Debian gnuplot-nox).
#
# Usage: gnuplot -e "dir='build/bench'" tools/plot_bench.gp
# Reads dir/extra_histogram.dat and dir/latency_sweep.dat; writes dir/extra_histogram.png,
# dir/idle_vs_latency.png and dir/irqs_vs_latency.png (800 x 500).
if (!exists("dir")) dir = "build/bench"

set terminal pngcairo size 800,500 font "sans,10" noenhanced
set grid ytics
# Colours that stay apart on white, in the order the bench writes its series.
array colours[8] = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#222222", "#66a61e", \
	"#e6ab02", "#a6761d"]
do for [i=1:8] { set linetype i linecolor rgb colours[i] }
set key top right

# (a) Extra characters per refill: the 2015 Raspberry Pi beside HYBRID on the model.
set output dir."/extra_histogram.png"
set title "Extra characters loaded per refill beyond the guaranteed 8 (FIFO 16, trigger 1/2)"
set xlabel "extra characters k"
set ylabel "refills that loaded k extra, % of all refills"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:*]
plot dir."/extra_histogram.dat" using 2:xtic(1) title columnheader(2), \
     '' using 3 title columnheader(3), \
     '' using 4 title columnheader(4)

# (b) and (c): one block per strategy in latency_sweep.dat, its name on its first line.
set style data linespoints
set xlabel "interrupt latency jitter cap (us); 0 = fixed 1 us"
set xrange [0:*]
set key top left

set output dir."/idle_vs_latency.png"
set title "Line idle while data waited, 3 Mbaud, FIFO 16 (mean of seeds 1-5)"
set ylabel "idle line per 64 KiB sent (us)"
plot for [i=0:*] dir."/latency_sweep.dat" index i using 1:3 title columnheader(1) \
     pointsize 0.8 linewidth 2

set output dir."/irqs_vs_latency.png"
set title "Interrupts per KiB, 3 Mbaud, FIFO 16 (mean of seeds 1-5)"
set ylabel "handler entries per KiB"
set yrange [0:*]
set key bottom left
plot for [i=0:*] dir."/latency_sweep.dat" index i using 1:2 title columnheader(1) \
     pointsize 0.8 linewidth 2, \
     dir."/latency_sweep.dat" index 0 using 1:4 title "floor: 1024 / depth" \
     with lines dashtype 2 linecolor "black"
