# p99_vs_load.gp - tail latency / mean service time against offered load.
#
# Step 1, export the series from open-loop result files:
#     scripts/plot.py p99-vs-load RESULT... --theory --data p99.dat
#   (writes p99.dat and, with --theory, the M/M/1 and M/M/k curves to
#   p99-theory.dat)
# Step 2, draw them:
#     gnuplot -e "data='p99.dat'; theory='p99-theory.dat'; out='p99.png'" \
#         scripts/p99_vs_load.gp
#
# Variables (-e before the script): data (required), out (required: .png,
# .pdf or .svg), theory (optional: the -theory.dat file), title (optional),
# linear=1 (optional: linear latency axis; the default is logarithmic), style
# (optional: the line styles, default DATA-style.gp as plot.py writes it).
#
# data: one block per configuration (blocks separated by two blank lines),
# first line the quoted title, then rows of: load  ratio  ns  lo  hi, where
# ratio = latency quantile / mean service time and lo, hi the ends of the
# error bar plot.py draws: the percentile's 95% interval (the data file's
# header names it), equal to ratio where there is none. theory: one block
# per model, rows of: load  ratio.

if (!exists("data") || !exists("out")) {
	print "p99_vs_load.gp: set data and out, e.g."
	print "  gnuplot -e \"data='p99.dat'; out='p99.png'\" scripts/p99_vs_load.gp"
	exit status 2
}
if (!exists("title")) title = "p99 latency against offered load"
if (!exists("linear")) linear = 0

# The colours, markers and dashes of plot.py's figures: plot.py --data
# writes them beside the data file (DATA-style.gp: line type i+1 is block i).
if (!exists("style")) style = (data[strlen(data)-3:] eq ".dat" ? data[1:strlen(data)-4] : data)."-style.gp"
if (system("test -r '".style."' && echo yes") eq "yes") load style

ext = out[strlen(out)-2:strlen(out)]
if (ext eq "png") {
	set terminal pngcairo size 1000,620 enhanced font "DejaVu Sans,10"
} else {
	if (ext eq "pdf") {
		set terminal pdfcairo size 7in,4.3in enhanced font "DejaVu Sans,9"
	} else {
		if (ext eq "svg") {
			set terminal svg size 1000,620 enhanced font "DejaVu Sans,10"
		} else {
			print "p99_vs_load.gp: out must end in .png, .pdf or .svg"
			exit status 2
		}
	}
}
set output out

stats data using 2 nooutput
nblocks = STATS_blocks
ntheory = 0
if (exists("theory") && strlen(theory) > 0) {
	stats theory using 2 nooutput
	ntheory = STATS_blocks
}

set title title noenhanced
set xrange [0:1]
set xlabel "offered load (arrival rate x mean service / workers)"
set ylabel "p99 latency / mean service time"
if (!linear) {
	set logscale y 10
	set yrange [1:*]
	set ytics ("1" 1, "2" 2, "5" 5, "10" 10, "20" 20, "50" 50, "100" 100, "200" 200, \
	           "500" 500, "1000" 1000)
} else {
	set yrange [0:*]
}
set grid xtics ytics lc rgb "#dddddd"
set key top left noenhanced

if (ntheory > 0) {
	plot for [i=0:nblocks-1] data index i using 1:2:4:5 with yerrorlines \
		title columnheader(1) lt i+1 ps 0.8, \
	     for [j=0:ntheory-1] theory index j using 1:2 with lines \
		title columnheader(1) lc rgb "black" lw 1.2 dt 2+(j+1)%2
} else {
	plot for [i=0:nblocks-1] data index i using 1:2:4:5 with yerrorlines \
		title columnheader(1) lt i+1 ps 0.8
}
