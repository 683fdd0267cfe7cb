// Package html writes a report document as one HTML page: the document
// goes through the Markdown writer and goldmark in its safe mode (no raw
// HTML from studies passes), charts become go-echarts options embedded
// as JSON and drawn by a small local script, and every asset is loaded
// from a local path, never a CDN.
package html

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	gohtml "html"
	"html/template"
	"io"
	"math"
	"strings"
	"unicode"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/render/markdown"
)

//go:embed assets/*
var assets embed.FS

// Assets returns the files a page loads from its assets folder (the
// chart loader and the stylesheet), by name. echarts.min.js itself comes
// from the site's pinned npm package.
func Assets() map[string][]byte {
	out := map[string][]byte{}
	for _, n := range []string{"servelab-charts.js", "report.css"} {
		b, _ := assets.ReadFile("assets/" + n)
		out[n] = b
	}
	return out
}

// Options place the page.
type Options struct {
	// Assets is the path prefix of the assets folder, ending in "/"
	// (relative, so pages work from file:// and under any sub-path).
	Assets string
	// Head is extra trusted markup for <head> (the site's alternates).
	Head template.HTML
	// Header is trusted markup put before the report (the site's
	// navigation and language switcher).
	Header template.HTML
}

// Write prints doc as an HTML page in p's language.
func Write(w io.Writer, doc *d.Doc, p *i18n.Printer, o Options) error {
	var md bytes.Buffer
	if err := markdown.Write(&md, doc, p, markdown.Options{ForHTML: true}); err != nil {
		return err
	}
	body, err := Convert(md.Bytes(), chartsOf(doc, p))
	if err != nil {
		return err
	}
	return page.Execute(w, map[string]any{
		"Lang": p.Lang(), "Title": d.String(doc.Title, p), "Assets": o.Assets,
		"Head": o.Head, "Header": o.Header, "Body": template.HTML(body),
	})
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{.Head}}<title>{{.Title}}</title>
<link rel="stylesheet" href="{{.Assets}}report.css">
<script src="{{.Assets}}echarts.min.js" defer></script>
<script src="{{.Assets}}servelab-charts.js" defer></script>
</head>
<body>
{{.Header}}<main class="report">
{{.Body}}</main>
</body>
</html>
`))

// Convert renders report Markdown with goldmark: GFM, explicit heading
// ids, CJK line joining, no raw HTML; ```chart ID``` fences become the
// trusted chart markup in charts.
func Convert(src []byte, charts map[string]string) ([]byte, error) {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.CJK),
		goldmark.WithParserOptions(parser.WithAttribute(), parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(chartTransformer{}, 500))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(chartRenderer{charts}, 500))),
	)
	var out bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(&unicodeIDs{seen: map[string]int{}}))
	err := md.Convert(src, &out, parser.WithContext(ctx))
	return out.Bytes(), err
}

// chartsOf renders each chart of doc to its figure markup, and each
// Details to its opening and closing tags (keys "details ID" and
// "details-end ID").
func chartsOf(doc *d.Doc, p *i18n.Printer) map[string]string {
	out := map[string]string{}
	var walk func([]d.Block)
	walk = func(bs []d.Block) {
		for _, b := range bs {
			switch b := b.(type) {
			case d.Chart:
				out["chart "+b.ID] = figure(b, p)
				if !b.Tabled { // the markdown writer folds the table it adds
					id := "chart-figures-" + b.ID
					out["details "+id] = fmt.Sprintf("<details class=\"chart-figures\" id=\"%s\"><summary>%s</summary>\n", gohtml.EscapeString(id), gohtml.EscapeString(p.T("The figures behind this chart")))
					out["details-end "+id] = "</details>\n"
				}
			case d.Details:
				out["details "+b.ID] = fmt.Sprintf("<details id=\"%s\"><summary>%s</summary>\n", gohtml.EscapeString(b.ID), gohtml.EscapeString(d.String(b.Summary, p)))
				out["details-end "+b.ID] = "</details>\n"
				walk(b.Blocks)
			}
		}
	}
	walk(doc.Blocks)
	return out
}

// figure is a chart's container and its option JSON. encoding/json
// escapes <, > and & as \u003c..., so no study string can close the
// script element; the container's label is HTML-escaped.
func figure(c d.Chart, p *i18n.Printer) string {
	opt, err := json.Marshal(option(c, p))
	if err != nil {
		return "<!-- chart " + c.ID + ": " + gohtml.EscapeString(err.Error()) + " -->"
	}
	title := gohtml.EscapeString(d.String(c.Title, p))
	return fmt.Sprintf(`<figure class="chart"><div class="chart-canvas" id="chart-%[1]s" data-chart="chart-data-%[1]s" role="img" aria-label="%[2]s"></div>`+
		`<script type="application/json" id="chart-data-%[1]s">%[3]s</script></figure>`+"\n", c.ID, title, opt)
}

// option builds the ECharts option with go-echarts: the value axis from
// 0 with the unit as its name, a legend naming every series, the marked
// category (the incumbent) hatched apart, and error bars where a series
// has intervals.
func option(c d.Chart, p *i18n.Printer) map[string]any {
	cats := make([]string, len(c.Categories))
	for i, x := range c.Categories {
		cats[i] = d.String(x, p)
		if i == c.Marked && c.MarkLabel != nil {
			cats[i] += "\n(" + d.String(c.MarkLabel, p) + ")"
		}
	}
	global := []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{ChartID: c.ID, Renderer: "svg", AssetsHost: "./"}),
		charts.WithTitleOpts(opts.Title{Title: wrap(d.String(c.Title, p), 56)}),
		charts.WithGridOpts(opts.Grid{Top: "72", Bottom: "36", ContainLabel: opts.Bool(true)}), // room for a two-line title; the legend under the axis labels
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0"}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Interval: "0", HideOverlap: opts.Bool(false)}}),
		charts.WithYAxisOpts(opts.YAxis{Name: p.Unit(c.Unit), Min: 0, Type: "value"}),
		charts.WithAnimation(false),
	}
	if c.Kind == "scatter" {
		return scatter(c, p, global)
	}
	var out map[string]any
	if c.Kind == "xy" {
		out = xyOption(c, p, global)
	} else if c.Kind == "line" {
		l := charts.NewLine()
		l.SetGlobalOptions(global...)
		l.SetXAxis(cats)
		for _, s := range c.Series {
			data := make([]opts.LineData, len(s.Values))
			for i, v := range s.Values {
				data[i] = opts.LineData{Value: val(v)}
			}
			l.AddSeries(d.String(s.Name, p), data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
		}
		l.Validate()
		out = l.JSON()
	} else {
		bar := charts.NewBar()
		bar.SetGlobalOptions(global...)
		bar.SetXAxis(cats)
		for si, s := range c.Series {
			data := make([]opts.BarData, len(s.Values))
			for i, v := range s.Values {
				data[i] = opts.BarData{Value: val(v)}
				if !math.IsNaN(v) {
					// The label is the figure as the page's language writes it
					// (a decimal comma in Russian); a formatter without {…}
					// prints as it is.
					data[i].Label = &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: p.Num(v, 2)}
				}
				if i == c.Marked && c.MarkLabel != nil {
					data[i].ItemStyle = &opts.ItemStyle{Color: "#9aa5b1", BorderColor: "#3b4754", BorderWidth: 2}
				}
			}
			so := []charts.SeriesOpts{charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top"})}
			if si == 0 {
				so = append(so, markLines(c.Lines, p)...)
			}
			bar.AddSeries(d.String(s.Name, p), data, so...)
		}
		bar.Validate()
		out = bar.JSON()
	}
	addErrorBars(out, c, p)
	return out
}

// xyOption draws each series as a line through its (x, y) points, both
// axes from 0, each point labelled with its category (the load).
func xyOption(c d.Chart, p *i18n.Printer, global []charts.GlobalOpts) map[string]any {
	l := charts.NewLine()
	l.SetGlobalOptions(append(global, charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: d.String(c.XName, p) + ", " + p.Unit(c.XUnit), Min: 0,
		NameLocation: "middle", NameGap: 28}))...)
	for _, s := range c.Series {
		var data []opts.LineData
		for i, y := range s.Values {
			if i >= len(s.X) || math.IsNaN(y) || math.IsNaN(s.X[i]) {
				continue
			}
			data = append(data, opts.LineData{Name: d.String(c.Categories[i], p), Value: []any{val(s.X[i]), val(y)}})
		}
		l.AddSeries(d.String(s.Name, p), data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}),
			charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "top"}))
	}
	l.Validate()
	return l.JSON()
}

// addErrorBars overlays each series' intervals as ECharts boxplot items
// [low, mean, mean, mean, high]: whiskers from low to high with a flat
// box at the mean, the usual error bar.
func addErrorBars(opt map[string]any, c d.Chart, p *i18n.Printer) {
	var extra []any
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
		extra = append(extra, map[string]any{
			"type": "boxplot", "name": d.String(s.Name, p) + " — " + p.T("interval"), "data": data,
			"boxWidth": []int{6, 12}, "itemStyle": map[string]any{"color": "transparent", "borderColor": "#222", "borderWidth": 1.5},
			"tooltip": map[string]any{"show": false},
		})
	}
	if len(extra) == 0 {
		return
	}
	series, _ := json.Marshal(opt["series"])
	var list []any
	json.Unmarshal(series, &list)
	opt["series"] = append(list, extra...)
}

// scatter plots each series' points on two value axes.
func scatter(c d.Chart, p *i18n.Printer, global []charts.GlobalOpts) map[string]any {
	sc := charts.NewScatter()
	global = append(global,
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: c.XUnit, Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: c.Unit, Min: 0}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}))
	sc.SetGlobalOptions(global...)
	for _, s := range c.Series {
		data := make([]opts.ScatterData, len(s.Points))
		for i, pt := range s.Points {
			data[i] = opts.ScatterData{Value: []any{val(pt[0]), val(pt[1])}, SymbolSize: 12}
		}
		var so []charts.SeriesOpts
		if s.Grey {
			so = append(so, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#b0b0b0"}))
		}
		sc.AddSeries(d.String(s.Name, p), data, so...)
	}
	sc.Validate()
	return sc.JSON()
}

// markLines draws the chart's reference lines (SLO bounds) across it.
func markLines(lines []d.Line, p *i18n.Printer) []charts.SeriesOpts {
	var out []charts.SeriesOpts
	for _, l := range lines {
		out = append(out, charts.WithMarkLineNameYAxisItemOpts(opts.MarkLineNameYAxisItem{Name: d.String(l.Name, p), YAxis: l.Value}))
	}
	if len(out) > 0 {
		out = append(out, charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"},
			Label: &opts.Label{Show: opts.Bool(true), Formatter: "{b}"}}))
	}
	return out
}

// val is a chart value rounded as the tables print it; "-" is ECharts'
// mark for a missing point.
func val(v float64) any {
	if math.IsNaN(v) {
		return "-"
	}
	return math.Round(v*100) / 100
}

// chartNode stands for a chart in the Markdown AST.
type chartNode struct {
	ast.BaseBlock
	id string
}

var kindChart = ast.NewNodeKind("Chart")

func (n *chartNode) Kind() ast.NodeKind { return kindChart }

func (n *chartNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"ID": n.id}, nil)
}

// placeholder are the fence languages the Markdown writer uses for
// trusted markup in HTML mode.
var placeholder = map[string]bool{"chart": true, "details": true, "details-end": true}

type chartTransformer struct{}

func (chartTransformer) Transform(doc *ast.Document, r text.Reader, _ parser.Context) {
	var found []*ast.FencedCodeBlock
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fc, ok := n.(*ast.FencedCodeBlock); ok && entering && placeholder[string(fc.Language(r.Source()))] {
			found = append(found, fc)
		}
		return ast.WalkContinue, nil
	})
	for _, fc := range found {
		f := strings.Fields(string(fc.Info.Segment.Value(r.Source())))
		fc.Parent().ReplaceChild(fc.Parent(), fc, &chartNode{id: strings.Join(f, " ")})
	}
}

type chartRenderer struct{ html map[string]string }

func (c chartRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindChart, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString(c.html[n.(*chartNode).id])
		}
		return ast.WalkSkipChildren, nil
	})
}

// unicodeIDs makes heading ids that keep letters of every script
// (goldmark's default drops non-ASCII, leaving "heading-1" for Chinese).
type unicodeIDs struct{ seen map[string]int }

func (s *unicodeIDs) Generate(v []byte, _ ast.NodeKind) []byte {
	var b strings.Builder
	for _, r := range strings.TrimSpace(string(v)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(unicode.ToLower(r))
		case r == ' ':
			b.WriteRune('-')
		}
	}
	id := b.String()
	if id == "" {
		id = "section"
	}
	if n, ok := s.seen[id]; ok {
		s.seen[id] = n + 1
		id = fmt.Sprintf("%s-%d", id, n+1)
	}
	s.seen[id] = 0
	return []byte(id)
}

func (s *unicodeIDs) Put(v []byte) { s.seen[string(v)] = 0 }

// wrap breaks a chart title into lines of at most n characters at
// spaces: ECharts does not wrap titles, and long Russian ones run off
// the chart.
func wrap(s string, n int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > n {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
