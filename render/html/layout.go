package html

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Charts are laid out here, in Go, for the width a chart has on a page
// read at 1,280 px or wider (report.css caps a chart at 60rem), so
// that a page is the same bytes for the same inputs and ECharts never
// has to thin out or overlap its axis labels.
const (
	refWidth   = 960 // px: a chart's width on a wide page
	baseHeight = 320 // px: .chart-canvas in report.css
	lineHeight = 15  // px per line of a 12 px axis label
	labelGap   = 12  // px kept free between two labels side by side
	maxLines   = 3   // lines a category label may take under a bar
	// rowLabel is the widest line of a category label beside a
	// horizontal bar.
	rowLabel = 220
	// vertPlot is the width of a vertical bar chart's plot: refWidth
	// less the grid's sides (24 px each) and the value axis's labels.
	vertPlot = refWidth - 48 - 56
)

// textWidth estimates how wide s is in ECharts' 12 px sans-serif,
// erring wide: Han and full-width characters are a square, narrow
// Latin letters and punctuation about a third of one, wide letters most
// of one.
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r >= 0x2E80 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7AF || r >= 0xF900 && r <= 0xFAFF || r >= 0xFF00 && r <= 0xFF60:
			w += 12.5
		case strings.ContainsRune("iIjlftr.,:;'|!()[]/ ", r):
			w += 4.5
		case strings.ContainsRune("mwMWшщжыюмШЩЖЫЮМ@%", r):
			w += 10.5
		case unicode.IsUpper(r):
			w += 8.5
		default:
			w += 7.5
		}
	}
	return w
}

// wide reports whether r is set as a square (a Han character or a
// full-width form): a line may break on either side of it.
func wide(r rune) bool { return textWidth(string(r)) > 12 }

// wrapLabel breaks s into lines no wider than width at spaces and beside
// wide characters, keeping the breaks s has and, within a line, its
// spaces ("并发 1" stays so); a word wider than width keeps a line of
// its own.
func wrapLabel(s string, width float64) []string {
	var out []string
	for _, hard := range strings.Split(s, "\n") {
		line := ""
		for _, tok := range tokens(hard) {
			next := line + tok
			if line == "" {
				next = strings.TrimLeft(tok, " ")
			} else if textWidth(next) > width {
				out = append(out, line)
				next = strings.TrimLeft(tok, " ")
			}
			line = next
		}
		out = append(out, line)
		if n := len(out); n > 1 && out[n-2] != "" {
			out[n-2], out[n-1] = evenTail(out[n-2], out[n-1], width)
		}
	}
	return out
}

// evenTail gives a last line of one or two wide characters company:
// it moves wide characters from the end of prev to the start of last,
// up to four on the last line and keeping two on prev, while last fits
// width. A Chinese label then ends "…主机内存\n提示缓存", not "…主机内存
// 提示\n缓存", which reads as a compound cut in two.
func evenTail(prev, last string, width float64) (string, string) {
	if utf8.RuneCountInString(last) > 2 || !allWide(last) {
		return prev, last
	}
	for utf8.RuneCountInString(last) < 4 {
		r, size := utf8.DecodeLastRuneInString(prev)
		p, l := prev[:len(prev)-size], string(r)+last
		if !wide(r) || utf8.RuneCountInString(p) < 2 || textWidth(l) > width {
			break
		}
		prev, last = p, l
	}
	return prev, last
}

// allWide reports whether every character of s is wide.
func allWide(s string) bool {
	for _, r := range s {
		if !wide(r) {
			return false
		}
	}
	return s != ""
}

// tokens splits s into words and single wide characters, each with the
// space before it in s, if any.
func tokens(s string) []string {
	var out []string
	word, space := "", ""
	flush := func() {
		if word != "" {
			out, word = append(out, word), ""
		}
	}
	for _, r := range s {
		switch {
		case r == ' ':
			flush()
			space = " "
		case wide(r):
			flush()
			out, space = append(out, space+string(r)), ""
		default:
			if word == "" {
				word, space = space, ""
			}
			word += string(r)
		}
	}
	flush()
	return out
}

// barLayout is how a bar chart fits its category labels.
type barLayout struct {
	horizontal bool
	labels     []string // each category's label, with its line breaks
	height     int      // px of the chart
}

// layoutBars stands bars up when every category label fits under its
// group in at most maxLines lines and every value label fits over its
// bar; otherwise the bars lie down, one row per category with its label
// beside it, and the chart grows a row at a time. values are the value
// labels.
func layoutBars(cats []string, series int, values []string) barLayout {
	n := max(1, len(cats))
	slot := float64(vertPlot) / float64(n)
	// ECharts leaves 20 % of a slot between groups and 30 % of a bar
	// between the bars of a group.
	bar := 0.8 * slot / (float64(series) + 0.3*float64(series-1))
	pitch := min(slot, 1.3*bar)
	l := barLayout{labels: make([]string, len(cats))}
	lines := 1
	fits := true
	for i, c := range cats {
		ls := wrapLabel(c, slot-labelGap)
		for _, x := range ls {
			fits = fits && textWidth(x) <= slot-labelGap
		}
		lines = max(lines, len(ls))
		l.labels[i] = strings.Join(ls, "\n")
	}
	for _, v := range values {
		fits = fits && textWidth(v) <= pitch-4
	}
	if fits && lines <= maxLines {
		l.height = baseHeight + max(0, lines-2)*lineHeight
		return l
	}
	l.horizontal, lines = true, 1
	for i, c := range cats {
		ls := wrapLabel(c, rowLabel)
		lines = max(lines, len(ls))
		l.labels[i] = strings.Join(ls, "\n")
	}
	row := max(lines*lineHeight+10, series*16+12)
	// Title above (72 px), then the value axis's labels and name and the
	// legend below (84 px).
	l.height = 72 + n*row + 84
	return l
}

// A "pareto" chart's panels stand two abreast, each panelHeight px:
// its title, the y-axis's name, the plot, the x-axis's labels and name.
const panelHeight = 300

// panelGrid places panel i of n: its grid's left edge and width in % of
// the chart, and its top in px (the panel's title is 52 px above it).
func panelGrid(i, n int) (left, width string, top int) {
	cols := min(n, 2)
	w := 100.0 / float64(cols)
	col, row := i%cols, i/cols
	return pct(float64(col)*w + 2), pct(w - 6), 48 + row*panelHeight + 52
}

// panelPlot is the size of a panel's plot in px, less its axes' labels.
func panelPlot(n int) (w, h float64) {
	return refWidth*(1/float64(min(n, 2))-0.06) - 48, panelHeight - 52 - 64 - 24
}

// panelsHeight is the px of a chart of n panels and a legend.
func panelsHeight(n int) int {
	rows := (n + 1) / 2
	return 48 + rows*panelHeight + 40
}

// pct writes a share of the chart's width for ECharts ("47%").
func pct(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) + "%"
}

// Points' labels go beside their symbols; the plot each is placed in is
// estimated from the chart's layout (px).
const (
	symbolRadius = 6
	labelHeight  = 14
	labelMargin  = 5
	xyPlotWidth  = refWidth - 24 - 40 - 40 // the grid's sides, the value axis's labels
	xyPlotHeight = baseHeight - 72 - 48 - 24
)

// niceMax is where ECharts ends a value axis from 0 that holds max: a
// whole number of ticks, about five, each 1, 2, 3 or 5 times a power of
// ten.
func niceMax(max float64) float64 {
	if max <= 0 {
		return 1
	}
	step := max / 5
	e := math.Pow(10, math.Floor(math.Log10(step)))
	f := step / e
	switch {
	case f < 1.5:
		f = 1
	case f < 2.5:
		f = 2
	case f < 4:
		f = 3
	case f < 7:
		f = 5
	default:
		f = 10
	}
	step = f * e
	return math.Ceil(max/step) * step
}

// rect is a box in px, y down.
type rect struct{ x0, y0, x1, y1 float64 }

func (a rect) meets(b rect) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

// place is where a point's label goes: a side of its symbol and its
// distance from it (px).
type place struct {
	side     string
	distance float64
}

// placeLabels says where each point's label goes in a plot w × h px
// whose axes run from 0 to niceMax of the largest x and y: the nearest
// place, side by side and then further out, that stays in the plot and
// meets no label placed before it and no other point; failing that, one
// that meets no label. A label with no such place gets none (side ""):
// points that all but coincide cannot each carry a name, and the table
// under the chart names them.
func placeLabels(xs, ys []float64, labels []string, w, h float64) []place {
	mx, my := 0.0, 0.0
	for i := range xs {
		mx, my = max(mx, xs[i]), max(my, ys[i])
	}
	mx, my = niceMax(mx), niceMax(my)
	var dots, taken []rect
	px := make([]float64, len(xs))
	py := make([]float64, len(xs))
	for i := range xs {
		px[i], py[i] = xs[i]/mx*w, h-ys[i]/my*h
		dots = append(dots, rect{px[i] - symbolRadius, py[i] - symbolRadius, px[i] + symbolRadius, py[i] + symbolRadius})
	}
	out := make([]place, len(xs))
	for i := range xs {
		if labels[i] == "" {
			continue
		}
		cands := candidates(px[i], py[i], textWidth(labels[i])+6)
	search:
		for _, avoidDots := range []bool{true, false} {
			for _, c := range cands {
				if c.r.x0 < 0 || c.r.x1 > w || c.r.y0 < -labelHeight || c.r.y1 > h || meetsAny(c.r, taken, -1) || avoidDots && meetsAny(c.r, dots, i) {
					continue
				}
				out[i] = c.p
				taken = append(taken, c.r)
				break search
			}
		}
	}
	return out
}

type candidate struct {
	p place
	r rect
}

// candidates are the places for a label lw px wide beside a point at
// (x, y), nearest first: the four sides, then each a label's height
// (or width) further out: no further, or a reader would pin the label
// on the wrong point.
func candidates(x, y, lw float64) []candidate {
	var out []candidate
	for n := range 2 {
		k := float64(n)
		d := symbolRadius + labelMargin + k*(labelHeight+2)
		dx := symbolRadius + labelMargin + k*(lw+2)
		out = append(out,
			candidate{place{"top", d - symbolRadius}, rect{x - lw/2, y - d - labelHeight, x + lw/2, y - d}},
			candidate{place{"right", dx - symbolRadius}, rect{x + dx, y - labelHeight/2, x + dx + lw, y + labelHeight/2}},
			candidate{place{"bottom", d - symbolRadius}, rect{x - lw/2, y + d, x + lw/2, y + d + labelHeight}},
			candidate{place{"left", dx - symbolRadius}, rect{x - dx - lw, y - labelHeight/2, x - dx, y + labelHeight/2}})
	}
	return out
}

// meetsAny reports whether r meets any of rs but the one at skip.
func meetsAny(r rect, rs []rect, skip int) bool {
	for j, t := range rs {
		if j != skip && r.meets(t) {
			return true
		}
	}
	return false
}
