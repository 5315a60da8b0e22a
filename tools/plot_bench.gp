# make bench's pictures from the data files tests/bench/bench.c writes (gnuplot, Debian gnuplot-nox).
#
# Usage: gnuplot -e "dir='build/bench'" tools/plot_bench.gp
# Reads dir/extra_histogram.dat, dir/latency_sweep.dat and dir/regime_matrix.dat; writes
# dir/extra_histogram.png, dir/idle_vs_latency.png and dir/irqs_vs_latency.png (800 x 500), and
# dir/measured_matrix.png (1000 x 600).
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

# (d) The regime matrix: MEASURED's idle line and interrupts over the best other strategy, per
# cell (regime_matrix.dat: cell, clock, writer, idle ratio, interrupt ratio). Cells are in the
# bench's order: line, then latency, then clock, then writer.
set output dir."/measured_matrix.png"
set terminal pngcairo size 1000,600 font "sans,10" noenhanced
unset title
set multiplot layout 2,1 title "MEASURED over the best other strategy, per cell of the regime matrix (1 = as good)"
set xrange [-5:1265]
set xlabel ""
set key top right
set logscale y
set yrange [0.2:3]
set ytics (0.25, 0.5, 0.6, 0.8, 1, 1.25, 1.5, 2, 3)
set ylabel "idle line, (M + 1 us) / (best + 1 us)"
plot dir."/regime_matrix.dat" using 1:($3 == 0 ? $4 : 1/0) with points pt 7 ps 0.4 title "interrupt writer", \
     '' using 1:($3 == 1 ? $4 : 1/0) with points pt 6 ps 0.5 title "waiting writer", \
     1.01 with lines dashtype 2 linecolor "black" title "1.01"
set xlabel "cell (line, latency, clock, writer)"
set ylabel "interrupts, M / best other"
set yrange [0.2:20]
set ytics (0.25, 0.5, 0.6, 1, 1.5, 2, 5, 10, 20)
plot dir."/regime_matrix.dat" using 1:($3 == 0 ? $5 : 1/0) with points pt 7 ps 0.4 title "interrupt writer", \
     '' using 1:($3 == 1 ? $5 : 1/0) with points pt 6 ps 0.5 title "waiting writer", \
     1.02 with lines dashtype 2 linecolor "black" title "1.02"
unset multiplot
unset logscale y
