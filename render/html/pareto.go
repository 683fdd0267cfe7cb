package html

import (
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
)

// paretoOption draws one panel per load, two abreast, each with its own
// axes from 0: throughput per GPU along, per user up, every point
// labelled with its option, the frontier a line through the points no
// other beats, dominated points grey, flagged ones hollow and marked
// (!). go-echarts has one title and one grid per chart, so the panels'
// grids, axes, titles and series are added as plain values.
func paretoOption(c d.Chart, p *i18n.Printer) (map[string]any, int, error) {
	sc := charts.NewScatter()
	sc.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: c.ID, Renderer: "svg", AssetsHost: "./"}),
		charts.WithTitleOpts(opts.Title{Title: wrap(d.String(c.Title, p), titleWidth)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0"}),
		charts.WithAnimation(false))
	sc.Validate()
	out, err := plain(sc.JSON())
	if err != nil {
		return nil, 0, err
	}
	front, dom := p.T("Pareto frontier"), p.T("dominated")
	titles := []any{out["title"]}
	var grids, xs, ys, series []any
	for i, panel := range c.Panels {
		left, width, top := panelGrid(i, len(c.Panels))
		titles = append(titles, map[string]any{"text": d.String(panel.Title, p), "left": left, "top": top - 52,
			"textStyle": map[string]any{"fontSize": 13}})
		grids = append(grids, map[string]any{"left": left, "width": width, "top": top, "height": panelHeight - 52 - 64, "containLabel": true})
		xs = append(xs, map[string]any{"type": "value", "gridIndex": i, "min": 0, "name": d.String(c.XName, p), "nameLocation": "middle", "nameGap": 28})
		ys = append(ys, map[string]any{"type": "value", "gridIndex": i, "min": 0, "name": d.String(c.YName, p),
			"nameTextStyle": map[string]any{"align": "left"}})
		series = append(series, panelSeries(panel, i, len(c.Panels), front, dom, p)...)
	}
	out["title"], out["grid"], out["xAxis"], out["yAxis"], out["series"] = titles, grids, xs, ys, series
	out["legend"].(map[string]any)["data"] = []any{front, dom}
	return out, panelsHeight(len(c.Panels)), nil
}

// panelSeries are panel i's (of panels) frontier line and its points,
// frontier and dominated apart, each labelled on a free side.
func panelSeries(panel d.Panel, i, panels int, front, dom string, p *i18n.Printer) []any {
	line, top, rest := []any{}, []any{}, []any{}
	var frontier []d.Point
	var xs, ys []float64
	var labels []string
	for _, pt := range panel.Points {
		label := d.String(pt.Label, p)
		if pt.Flagged {
			label += " (!)"
		}
		xs, ys, labels = append(xs, pt.X), append(ys, pt.Y), append(labels, label)
	}
	w, h := panelPlot(panels)
	places := placeLabels(xs, ys, labels, w, h)
	for n, pt := range panel.Points {
		item := map[string]any{"name": d.String(pt.Label, p), "value": []any{val(pt.X), val(pt.Y)},
			"label": map[string]any{"position": places[n].side, "distance": places[n].distance}}
		// A flagged point is hollow whether or not its label has a place.
		if pt.Flagged {
			item["symbol"] = "emptyCircle"
			item["label"].(map[string]any)["formatter"] = "{b} (!)"
		}
		if places[n].side == "" {
			item["label"] = map[string]any{"show": false}
		}
		if pt.Frontier {
			top, frontier = append(top, item), append(frontier, pt)
		} else {
			rest = append(rest, item)
		}
	}
	sort.SliceStable(frontier, func(a, b int) bool { return frontier[a].X < frontier[b].X })
	for _, pt := range frontier {
		line = append(line, []any{val(pt.X), val(pt.Y)})
	}
	label := map[string]any{"show": true, "formatter": "{b}"}
	points := func(name, color string, data []any) map[string]any {
		return map[string]any{"type": "scatter", "name": name, "xAxisIndex": i, "yAxisIndex": i, "data": data, "symbolSize": 11,
			"itemStyle": map[string]any{"color": color}, "label": label}
	}
	return []any{
		map[string]any{"type": "line", "name": front, "xAxisIndex": i, "yAxisIndex": i, "data": line, "showSymbol": false,
			"silent": true, "tooltip": map[string]any{"show": false}, "itemStyle": map[string]any{"color": firstColor}, "z": 1},
		points(front, firstColor, top),
		points(dom, mutedColor, rest),
	}
}
