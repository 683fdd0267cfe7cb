package html

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
)

// Colours the charts share: the incumbent's grey and its edge, a muted
// grey for dominated points, and the first series' blue for a frontier.
const (
	markedColor = "#9aa5b1"
	markedEdge  = "#3b4754"
	mutedColor  = "#b0b0b0"
	firstColor  = "#5470c6" // ECharts' first palette colour
)

// option builds c's ECharts option with go-echarts, then adds what
// go-echarts cannot say (numeric label intervals, lying bars, decals,
// per-point styles, panels) to the option as plain JSON values; and
// the chart's height in px.
func option(c d.Chart, p *i18n.Printer) (map[string]any, int, error) {
	switch c.Kind {
	case "line", "xy":
		opt, err := pointOption(c, p)
		startName(opt)
		return opt, baseHeight, err
	case "pareto":
		return paretoOption(c, p)
	}
	opt, h, err := barOption(c, p)
	startName(opt)
	return opt, h, err
}

// startName sets a standing value axis's name from the axis to the
// right: centred on the axis (ECharts' way), a long name would run off
// the chart's left edge.
func startName(opt map[string]any) {
	axes, _ := opt["yAxis"].([]any)
	if len(axes) == 0 {
		return
	}
	ax, _ := axes[0].(map[string]any)
	if ax == nil || ax["type"] != "value" || ax["nameLocation"] != nil {
		return
	}
	ax["nameTextStyle"] = map[string]any{"align": "left"}
}

// global are the options every chart shares: SVG, a title wrapped to
// fit, the grid, a legend under the plot, no animation (pages are the
// same bytes and look the same each load).
func global(c d.Chart, p *i18n.Printer, trigger string, grid opts.Grid) []charts.GlobalOpts {
	title := wrap(d.String(c.Title, p), titleWidth)
	// The plot starts under the title, however many lines it took, and
	// the value axis's unit above the plot.
	grid.Top = strconv.Itoa(28 + 22*(strings.Count(title, "\n")+1))
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{ChartID: c.ID, Renderer: "svg", AssetsHost: "./"}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithGridOpts(grid),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(legend(c)), Bottom: "0"}),
		charts.WithYAxisOpts(opts.YAxis{Name: valueName(c, p), Min: 0, Type: "value"}),
		charts.WithAnimation(false),
	}
}

// legend reports whether a chart needs a legend: more than one series,
// or one with error bars, whose whiskers the legend names.
func legend(c d.Chart) bool {
	return len(c.Series) > 1 || c.Kind == "pareto" || slices.ContainsFunc(c.Series, func(s d.Series) bool { return s.Low != nil })
}

// valueName names the value axis (document.Chart.ValueAxis).
func valueName(c d.Chart, p *i18n.Printer) string {
	return d.String(c.ValueAxis(), p)
}

// barOption draws grouped bars, one group per category: standing when
// the labels fit under them, lying otherwise (layoutBars); the marked
// category grey, flagged bars hatched, error bars where a series has
// intervals, reference lines across.
func barOption(c d.Chart, p *i18n.Printer) (map[string]any, int, error) {
	var values []string
	for _, s := range c.Series {
		for i, v := range s.Values {
			if !math.IsNaN(v) {
				values = append(values, figureLabel(v, s.IsFlagged(i), p))
			}
		}
	}
	l := layoutBars(categoryLabels(c, p), len(c.Series), values)
	bar := charts.NewBar()
	// Room for a two-line title; the legend under the axis labels.
	bar.SetGlobalOptions(global(c, p, "axis", opts.Grid{Top: "72", Bottom: "36", Left: "24", Right: "24", ContainLabel: opts.Bool(true)})...)
	bar.SetXAxis(l.labels)
	for si, s := range c.Series {
		so := []charts.SeriesOpts{charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top"})}
		if si == 0 {
			so = append(so, markLines(c.Lines, p)...)
		}
		if col, ok := seriesColor(c, si); ok {
			so = append(so, charts.WithItemStyleOpts(opts.ItemStyle{Color: col}))
		}
		bar.AddSeries(d.String(s.Name, p), barData(c, s, p), so...)
	}
	bar.Validate()
	out, err := plain(bar.JSON())
	if err != nil {
		return nil, 0, err
	}
	hatch(out, c)
	addErrorBars(out, c, p)
	axis, valueAxis := "xAxis", "yAxis"
	if l.horizontal {
		lieDown(out)
		axis, valueAxis = "yAxis", "xAxis"
	}
	everyLabel(out[axis].([]any)[0].(map[string]any))
	fitLines(out[valueAxis].([]any)[0].(map[string]any), c)
	return out, l.height, nil
}

// fitLines ends the value axis above the chart's reference lines as
// well as its figures: ECharts scales the axis to the data alone, so an
// SLO bound above every bar would fall off the chart.
func fitLines(axis map[string]any, c d.Chart) {
	if len(c.Lines) == 0 {
		return
	}
	top := 0.0
	for _, l := range c.Lines {
		top = max(top, l.Value)
	}
	for _, s := range c.Series {
		for i, v := range s.Values {
			if !math.IsNaN(v) {
				top = max(top, v)
			}
			if s.High != nil && i < len(s.High) && !math.IsNaN(s.High[i]) {
				top = max(top, s.High[i])
			}
		}
	}
	axis["max"] = niceMax(top * 1.05)
}

// palette is ECharts' default series colours, which a chart without a
// reference series keeps.
var palette = []string{firstColor, "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// seriesColor is series si's colour in a chart with a reference series:
// the reference grey, the others the palette in order, so the optimized
// configuration and the best candidate share the first colour on every
// chart. false where the chart has no reference series.
func seriesColor(c d.Chart, si int) (string, bool) {
	if !slices.ContainsFunc(c.Series, func(s d.Series) bool { return s.Reference }) {
		return "", false
	}
	if c.Series[si].Reference {
		return markedColor, true
	}
	k := 0
	for _, s := range c.Series[:si] {
		if !s.Reference {
			k++
		}
	}
	return palette[k%len(palette)], true
}

// barData are a series' bars, each labelled with its figure as the
// page's language writes it (a decimal comma in Russian; a formatter
// without {…} prints as it is), the marked category's grey.
func barData(c d.Chart, s d.Series, p *i18n.Printer) []opts.BarData {
	data := make([]opts.BarData, len(s.Values))
	for i, v := range s.Values {
		data[i] = opts.BarData{Value: val(v)}
		if !math.IsNaN(v) {
			data[i].Label = &opts.Label{Show: opts.Bool(true), Formatter: figureLabel(v, s.IsFlagged(i), p)}
			if s.Low != nil && !math.IsNaN(s.Low[i]) {
				// The error bar crosses the bar's end: the figure sits
				// inside the bar, at its middle, clear of the whisker.
				data[i].Label.Position, data[i].Label.Color = "inside", "#fff"
			}
		}
		if i == c.Marked && c.MarkLabel != nil {
			data[i].ItemStyle = &opts.ItemStyle{Color: markedColor, BorderColor: markedEdge, BorderWidth: 2}
			if data[i].Label != nil && data[i].Label.Color != "" {
				data[i].Label.Color = markedEdge // white on grey reads poorly
			}
		}
	}
	return data
}

// categoryLabels are the categories as the page writes them, the marked
// one with its mark on a line of its own.
func categoryLabels(c d.Chart, p *i18n.Printer) []string {
	cats := make([]string, len(c.Categories))
	for i, x := range c.Categories {
		cats[i] = d.String(x, p)
		if i == c.Marked && c.MarkLabel != nil {
			cats[i] += "\n" + d.String(d.Paren{Text: c.MarkLabel}, p)
		}
	}
	return cats
}

// figureLabel is a figure as the page writes it, marked (!) when the
// page's warnings call it into question.
func figureLabel(v float64, flagged bool, p *i18n.Printer) string {
	s := p.Num(v, 2)
	if flagged {
		s += " (!)"
	}
	return s
}

// everyLabel asks a category axis for every category's label. An
// interval of 0 must be the number: go-echarts writes the string "0",
// which ECharts takes for "not every label" and then hides the first
// and last labels where they touch their neighbours. The line height
// is set: ECharts's own draws a Chinese second line over the first.
func everyLabel(axis map[string]any) {
	axis["axisLabel"] = map[string]any{"interval": 0, "hideOverlap": false, "lineHeight": lineHeight}
}

// lieDown turns standing bars into lying ones: the categories down the
// left, first at the top, each label on its own row; the value axis
// along the bottom with its unit under it; figures at the bars' ends;
// reference lines upright.
func lieDown(opt map[string]any) {
	cat, value := opt["xAxis"].([]any)[0].(map[string]any), opt["yAxis"].([]any)[0].(map[string]any)
	cat["inverse"] = true
	value["nameLocation"], value["nameGap"] = "middle", 28
	opt["xAxis"], opt["yAxis"] = []any{value}, []any{cat}
	opt["grid"] = []any{map[string]any{"top": 72, "bottom": 64, "left": 24, "right": 72, "containLabel": true}}
	for _, s := range opt["series"].([]any) {
		s := s.(map[string]any)
		if s["type"] != "bar" {
			continue
		}
		if l, ok := s["label"].(map[string]any); ok {
			l["position"] = "right"
		}
		for _, item := range s["data"].([]any) {
			if l, ok := item.(map[string]any)["label"].(map[string]any); ok {
				l["position"] = map[any]string{"insideBottom": "insideLeft", "inside": "inside"}[l["position"]]
				if l["position"] == "" {
					l["position"] = "right"
				}
			}
		}
		if ml, ok := s["markLine"].(map[string]any); ok {
			for _, x := range ml["data"].([]any) {
				x := x.(map[string]any)
				x["xAxis"] = x["yAxis"]
				delete(x, "yAxis")
			}
		}
	}
}

// hatch draws every flagged bar with diagonal stripes over its colour.
func hatch(opt map[string]any, c d.Chart) {
	series := opt["series"].([]any)
	for si, s := range c.Series {
		data := series[si].(map[string]any)["data"].([]any)
		for i := range s.Values {
			if !s.IsFlagged(i) {
				continue
			}
			item := data[i].(map[string]any)
			style, _ := item["itemStyle"].(map[string]any)
			if style == nil {
				style = map[string]any{}
				item["itemStyle"] = style
			}
			style["decal"] = map[string]any{"symbol": "rect", "symbolSize": 1, "dashArrayX": []any{1, 0}, "dashArrayY": []any{3, 5},
				"rotation": -math.Pi / 4, "color": "rgba(255, 255, 255, 0.75)"}
		}
	}
}

// pointOption draws each series' points on a value x-axis: joined by a
// line for a numeric sweep ("line") and for an "xy" chart that is one
// workload at rising loads, else as points labelled with their
// category. Flagged points are hollow and marked (!).
func pointOption(c d.Chart, p *i18n.Printer) (map[string]any, error) {
	l := charts.NewLine()
	xname := d.String(c.XName, p)
	if c.XUnit != "" {
		xname = d.String(d.WithUnit{Text: c.XName, Unit: c.XUnit}, p)
	}
	// Below the axis labels, the x-axis's name, then the legend.
	l.SetGlobalOptions(append(global(c, p, "item", opts.Grid{Top: "72", Bottom: "48", Left: "24", Right: "40", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: xname, Min: 0, NameLocation: "middle", NameGap: 30}))...)
	for si, s := range c.Series {
		var data []opts.LineData
		for _, i := range drawn(c, s) {
			data = append(data, opts.LineData{Name: d.String(c.Categories[i], p), Value: []any{position(s.X[i]), val(s.Values[i])}})
		}
		so := []charts.SeriesOpts{charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), Symbol: "circle", SymbolSize: 8})}
		if si == 0 {
			so = append(so, markLines(c.Lines, p)...)
		}
		if col, ok := seriesColor(c, si); ok {
			so = append(so, charts.WithItemStyleOpts(opts.ItemStyle{Color: col}), charts.WithLineStyleOpts(opts.LineStyle{Color: col}))
		}
		l.AddSeries(d.String(s.Name, p), data, so...)
	}
	l.Validate()
	out, err := plain(l.JSON())
	if err != nil {
		return nil, err
	}
	series := out["series"].([]any)
	for si, s := range c.Series {
		o := series[si].(map[string]any)
		if c.Kind == "xy" && !c.Joined {
			o["type"] = "scatter"
			delete(o, "showSymbol")
		}
		if c.Kind == "xy" {
			o["label"] = map[string]any{"show": true, "formatter": "{b}"}
		}
		markPoints(o, c, s)
	}
	placePoints(series, c, p)
	fitLines(out["yAxis"].([]any)[0].(map[string]any), c)
	return out, nil
}

// placePoints puts each labelled point's label (an "xy" chart's
// category; a flagged point's mark) on a side of its symbol where it
// meets no other label or point (placeLabels).
func placePoints(series []any, c d.Chart, p *i18n.Printer) {
	var xs, ys []float64
	var labels []string
	var items []map[string]any
	short := pointNames(c, p)
	for si, s := range c.Series {
		data, _ := series[si].(map[string]any)["data"].([]any)
		for k, i := range drawn(c, s) {
			label := ""
			if c.Kind == "xy" {
				label = short[i] + " "
				l, _ := data[k].(map[string]any)["label"].(map[string]any)
				if l == nil {
					l = map[string]any{}
					data[k].(map[string]any)["label"] = l
				}
				l["formatter"] = short[i]
			}
			if s.IsFlagged(i) {
				label += "(!)"
			}
			xs, ys, labels = append(xs, s.X[i]), append(ys, s.Values[i]), append(labels, strings.TrimSpace(label))
			items = append(items, data[k].(map[string]any))
		}
	}
	for n, pl := range placeLabels(xs, ys, labels, xyPlotWidth, xyPlotHeight) {
		if labels[n] == "" {
			continue
		}
		l, _ := items[n]["label"].(map[string]any)
		if l == nil {
			l = map[string]any{}
			items[n]["label"] = l
		}
		if pl.side == "" {
			l["show"] = false // no free place: the table names the point
			continue
		}
		l["position"], l["distance"] = pl.side, pl.distance
	}
}

// pointNames are the labels of an "xy" chart's points: its categories
// less the words before them they all share ("ShareGPT, concurrency 1"
// is "concurrency 1" beside "ShareGPT, concurrency 8"), so that a label
// stays short enough to sit next to its own point; a name left without
// a letter ("1" of "Concurrency 1") keeps its words.
func pointNames(c d.Chart, p *i18n.Printer) []string {
	names := make([]string, len(c.Categories))
	for i, cat := range c.Categories {
		names[i] = d.String(cat, p)
	}
	if len(names) < 2 {
		return names
	}
	prefix := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, prefix) {
			_, size := utf8.DecodeLastRuneInString(prefix)
			prefix = prefix[:len(prefix)-size]
		}
	}
	// Cut after the last space (or full-width comma) that leaves every
	// name a letter, trying each from the right.
	for cut := strings.LastIndexAny(prefix, " ，"); cut >= 0; cut = strings.LastIndexAny(prefix[:cut], " ，") {
		_, size := utf8.DecodeRuneInString(prefix[cut:])
		short := make([]string, len(names))
		for i, n := range names {
			short[i] = n[cut+size:]
		}
		if !slices.ContainsFunc(short, func(n string) bool { return !strings.ContainsFunc(n, unicode.IsLetter) }) {
			return short
		}
	}
	return names
}

// drawn are the indices of s's points that have both figures: by x on
// a numeric sweep's axis, in the report's order (the loads') elsewhere.
func drawn(c d.Chart, s d.Series) []int {
	var out []int
	for i, y := range s.Values {
		if i < len(s.X) && !math.IsNaN(y) && !math.IsNaN(s.X[i]) {
			out = append(out, i)
		}
	}
	if c.Kind == "line" {
		sort.SliceStable(out, func(a, b int) bool { return s.X[out[a]] < s.X[out[b]] })
	}
	return out
}

// markPoints draws a series' flagged points hollow and marks them (!),
// after their category where the points are labelled ("xy"); a line
// through none but flagged points is dashed.
func markPoints(o map[string]any, c d.Chart, s d.Series) {
	data, _ := o["data"].([]any) // null when the series has no point
	all := len(data) > 0
	for k, i := range drawn(c, s) {
		if !s.IsFlagged(i) {
			all = false
			continue
		}
		item := data[k].(map[string]any)
		item["symbol"], item["symbolSize"] = "emptyCircle", 11
		mark := "(!)"
		if c.Kind == "xy" {
			mark = "{b} (!)"
		}
		item["label"] = map[string]any{"show": true, "position": "top", "formatter": mark}
	}
	if all && o["type"] == "line" {
		o["lineStyle"] = map[string]any{"type": "dashed"}
	}
}

// addErrorBars overlays each series' intervals as ECharts boxplot items
// [low, mean, mean, mean, high]: whiskers from low to high with a flat
// box at the mean, the usual error bar.
func addErrorBars(opt map[string]any, c d.Chart, p *i18n.Printer) {
	for _, s := range c.Series {
		if s.Low == nil {
			continue
		}
		data := make([]any, len(s.Values))
		for i, v := range s.Values {
			lo, hi := s.Low[i], s.High[i]
			if math.IsNaN(v) || math.IsNaN(lo) || math.IsNaN(hi) {
				data[i] = "-"
				continue
			}
			data[i] = []any{val(lo), val(v), val(v), val(v), val(hi)}
		}
		opt["series"] = append(opt["series"].([]any), map[string]any{
			"type": "boxplot", "name": d.String(s.Name, p) + " — " + d.String(s.BoundsName(), p), "data": data,
			"boxWidth": []any{6, 12}, "itemStyle": map[string]any{"color": "transparent", "borderColor": "#222", "borderWidth": 1.5},
			"tooltip": map[string]any{"show": false},
		})
	}
}

// markLines draws the chart's reference lines (SLO bounds) across it.
func markLines(lines []d.Line, p *i18n.Printer) []charts.SeriesOpts {
	var out []charts.SeriesOpts
	for _, l := range lines {
		out = append(out, charts.WithMarkLineNameYAxisItemOpts(opts.MarkLineNameYAxisItem{Name: d.String(l.Name, p), YAxis: l.Value}))
	}
	if len(out) > 0 {
		// The bound's name inside the plot, above the line's end: past
		// the end it is clipped by the grid's margin.
		out = append(out, charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"},
			Label: &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideEndTop"}}))
	}
	return out
}

// plain turns go-echarts' option into plain JSON values, so that what
// go-echarts cannot say can be added; encoding/json writes maps in key
// order, so the page stays the same bytes.
func plain(opt map[string]any) (map[string]any, error) {
	b, err := json.Marshal(opt)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out)
}

// val is a chart value rounded as the tables print it; "-" is ECharts'
// mark for a missing point.
func val(v float64) any {
	if math.IsNaN(v) {
		return "-"
	}
	// Rounded from the float's exact value, as the tables' printer does:
	// math.Round(v*100) would make 45.315 (45.31499… in binary) 45.32
	// beside a table's 45.31.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64)
	return r
}

// position is a point's place on a value axis as set, unrounded: a rate
// of 3.125 req/s drawn at 3.12 would sit off its own label.
func position(v float64) any {
	if math.IsNaN(v) {
		return "-"
	}
	return v
}

// titleWidth is how wide a title line may be, in textWidth's 12 px
// units: the title's 18 px bold is about 1.6 times as wide, and a line
// may fill some 820 px of the chart.
const titleWidth = 510

// wrap breaks a chart title into lines at most n wide, at spaces:
// ECharts does not wrap titles, and long Russian ones run off the chart.
// It never breaks at a no-break space, inside a quoted name, nor before
// a number (a profile's "concurrency 4" stays on one line).
func wrap(s string, n float64) string {
	lines := greedy(s, n)
	// The narrowest width that needs no more lines evens them out, so no
	// word is left alone on the last.
	lo, hi := 0.0, n
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if len(greedy(s, mid)) <= len(lines) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return strings.Join(greedy(s, hi), "\n")
}

// greedy fills each line with as many of s's units as fit in n.
func greedy(s string, n float64) []string {
	var lines []string
	line := ""
	for _, w := range titleUnits(s) {
		if line != "" && textWidth(line+" "+w) > n {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// titleUnits are the runs of a title that wrap keeps on one line: words
// split at plain spaces, with a quoted name and a number each joined to
// what comes before them.
func titleUnits(s string) []string {
	var out []string
	quoted := false
	for _, w := range strings.Split(s, " ") {
		if w == "" {
			continue
		}
		number := w[0] >= '0' && w[0] <= '9'
		if len(out) > 0 && (quoted || number) {
			out[len(out)-1] += " " + w
		} else {
			out = append(out, w)
		}
		for _, r := range w {
			switch r {
			case '«', '“':
				quoted = true
			case '»', '”':
				quoted = false
			}
		}
	}
	return out
}
