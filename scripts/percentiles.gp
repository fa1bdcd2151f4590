# percentiles.gp - latency by percentile (HdrHistogram style) with gnuplot.
#
# Step 1, export the series from result files:
#     scripts/plot.py percentiles RESULT... --data pct.dat
# Step 2, draw them:
#     gnuplot -e "data='pct.dat'; out='pct.png'" scripts/percentiles.gp
#
# Variables (-e before the script): data (required), out (required: .png,
# .pdf or .svg), title (optional), logy=0 (optional: linear latency axis; the
# default is logarithmic, as plot.py's), style (optional: the line styles,
# default DATA-style.gp as plot.py writes it).
#
# The data file holds one block per configuration, blocks separated by two
# blank lines (so `index i` is one configuration); the first line of a block
# is its quoted title, then rows of: 1/(1-p)  percentile  value_ns  value_us.
# The x axis is 1/(1-p) on a log scale, labelled 90%, 99%, 99.9%, ...

if (!exists("data") || !exists("out")) {
	print "percentiles.gp: set data and out, e.g."
	print "  gnuplot -e \"data='pct.dat'; out='pct.png'\" scripts/percentiles.gp"
	exit status 2
}
if (!exists("title")) title = "Latency by percentile"
if (!exists("logy")) logy = 1

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
			print "percentiles.gp: out must end in .png, .pdf or .svg"
			exit status 2
		}
	}
}
set output out

stats data using 1 nooutput
nblocks = STATS_blocks
xmax = STATS_max
stats data using 4 nooutput
ymax = STATS_max

set title title noenhanced
set logscale x 10
set xrange [1:(xmax < 10 ? 10 : xmax)]
set xtics ("0%%" 1, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, \
           "99.999%%" 100000, "99.9999%%" 1000000)
set format x "%g"
set xlabel "percentile"
set ylabel "latency (us)"
if (logy) {
	set logscale y 10
} else {
	set yrange [0:*]
}
set grid xtics ytics lc rgb "#dddddd"
set key top left noenhanced
set style data linespoints

plot for [i=0:nblocks-1] data index i using 1:4 title columnheader(1) lt i+1 ps 0.5
