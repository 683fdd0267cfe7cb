package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// measureJS runs after the chart loader on every page the label test
// loads. ECharts draws to SVG, but its text elements do not say which
// axis or point they label, so it reads the chart instances instead:
// every axis's tick labels (the elements AxisBuilder names "label_" and
// the tick value, ignore set where ECharts hid one) and every series
// label, each as the four corners of its box in chart pixels, rotation
// included; and, once the page has loaded, how far down its content
// reaches (the lowest bottom of body's children, less their padding). The result goes into a hidden <pre> that --dump-dom prints.
const measureJS = `window.addEventListener("load", function () {
  var out = { charts: [] };
  function corners(el) {
    var r = el.getBoundingRect(), m = el.getComputedTransform();
    return [[r.x, r.y], [r.x + r.width, r.y], [r.x + r.width, r.y + r.height], [r.x, r.y + r.height]].map(function (p) {
      return m ? [m[0] * p[0] + m[2] * p[1] + m[4], m[1] * p[0] + m[3] * p[1] + m[5]] : p;
    });
  }
  try {
    document.querySelectorAll("[data-chart]").forEach(function (el) {
      var chart = typeof echarts === "undefined" ? null : echarts.getInstanceByDom(el);
      var rec = { id: el.id, drawn: !!chart, axes: [], points: [], series: [] };
      out.charts.push(rec);
      if (!chart) { return; }
      var opt = chart.getOption();
      rec.width = chart.getWidth(); rec.height = chart.getHeight();
      rec.grids = (opt.grid || []).length;
      rec.series = opt.series.map(function (s) { return s.type; });
      rec.labelled = opt.series.some(function (s) { return s.label && s.label.show; });
      ["xAxis", "yAxis"].forEach(function (dim) {
        chart.getModel().eachComponent(dim, function (m) {
          var ax = { dim: dim, type: m.axis.type, categories: m.axis.type === "category" ? m.getCategories().map(String) : [], labels: [] };
          chart.getViewOfComponentModel(m).group.traverse(function (e) {
            if (e.anid && e.anid.indexOf("label_") === 0) {
              ax.labels.push({ id: e.anid, text: String(e.style.text), ignore: !!e.ignore, box: corners(e) });
            }
          });
          rec.axes.push(ax);
        });
      });
      chart.getModel().eachSeries(function (sm) {
        chart.getViewOfSeriesModel(sm).group.traverse(function (e) {
          var tc = e.getTextContent && e.getTextContent();
          if (tc && !tc.ignore && !tc.invisible && tc.style && tc.style.text) {
            rec.points.push({ text: String(tc.style.text), box: corners(tc) });
          }
        });
      });
    });
    var bottom = 0;
    Array.prototype.forEach.call(document.body.children, function (el) {
      var pad = parseFloat(getComputedStyle(el).paddingBottom) || 0;
      bottom = Math.max(bottom, el.getBoundingClientRect().bottom - pad + window.scrollY);
    });
    out.height = Math.ceil(bottom);
  } catch (e) { out.error = String(e && e.stack || e); }
  var pre = document.createElement("pre");
  pre.id = "servelab-measure";
  pre.hidden = true;
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
`

// measured is what measureJS found on a page: its charts, and how far
// down its content reaches (CSS px).
type measured struct {
	Error  string     `json:"error"`
	Charts []chartBox `json:"charts"`
	Height int        `json:"height"`
}

type chartBox struct {
	ID            string
	Drawn         bool
	Width, Height float64
	Grids         int
	Series        []string
	Labelled      bool
	Axes          []axisBox
	Points        []labelBox // series labels: figures on bars, names of points
}

type axisBox struct {
	Dim, Type  string
	Categories []string
	Labels     []labelBox
}

type labelBox struct {
	ID, Text string
	Ignore   bool
	Box      [4][2]float64 // corners, clockwise, in chart px
}

// measuring serves dir with measureJS loaded after the chart loader on
// every HTML page (the same origin, so the pages' CSP allows it).
type measuring struct {
	dir string
	h   http.Handler
}

func (m measuring) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/servelab-measure.js" {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, measureJS)
		return
	}
	if strings.HasSuffix(r.URL.Path, ".html") {
		if b, err := os.ReadFile(filepath.Join(m.dir, filepath.FromSlash(path.Clean(r.URL.Path)))); err == nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(bytes.Replace(b, []byte("</head>"), []byte("<script src=\"/servelab-measure.js\" defer></script>\n</head>"), 1))
			return
		}
	}
	m.h.ServeHTTP(w, r)
}

// measure loads url at 1280 px wide and returns what measureJS found,
// and the DOM after scripts ran. A console message fails the test:
// servelab's pages log nothing, so each one is a script error, a refused
// (CSP) or failed load, or a console.error.
func measure(t *testing.T, bin, url string) (measured, string) {
	t.Helper()
	dom, log := chrome(t, bin, url, "--dump-dom", "--window-size=1280,900")
	for _, e := range consoleErrors(log) {
		t.Errorf("%s: console: %s", url, e)
	}
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	var m measured
	found := false
	walk(doc, func(e *html.Node) {
		if e.Data == "pre" && attr(e, "id") == "servelab-measure" && e.FirstChild != nil {
			found = true
			if err := json.Unmarshal([]byte(e.FirstChild.Data), &m); err != nil {
				t.Errorf("%s: %v", url, err)
			}
		}
	})
	if !found {
		t.Fatalf("%s: the measuring script left nothing", url)
	}
	if m.Error != "" {
		t.Fatalf("%s: measuring: %s", url, m.Error)
	}
	return m, dom
}

// labelProblems lists what is wrong with a chart's labels: a category
// without its label (ECharts thins category labels out, and hides the
// first and last where they touch their neighbours), two axis labels
// whose boxes meet, an axis label cut off by the chart's edge, and a
// figure or point label that meets another label.
func labelProblems(c chartBox) []string {
	if !c.Drawn {
		return []string{"not drawn"}
	}
	var out []string
	var axis []labelBox
	for _, a := range c.Axes {
		shown := map[string]bool{}
		for _, l := range a.Labels {
			if !l.Ignore {
				shown[l.ID] = true
				axis = append(axis, l)
			}
		}
		for i, cat := range a.Categories {
			if !shown["label_"+strconv.Itoa(i)] {
				out = append(out, fmt.Sprintf("category %q has no label on the %s", cat, a.Dim))
			}
		}
	}
	for i, l := range axis {
		if !within(l.Box, c.Width, c.Height) {
			out = append(out, fmt.Sprintf("axis label %q runs off the chart (%v)", l.Text, l.Box))
		}
		for _, k := range axis[i+1:] {
			if quadsMeet(l.Box, k.Box) {
				out = append(out, fmt.Sprintf("axis labels %q and %q overlap", l.Text, k.Text))
			}
		}
	}
	for i, l := range c.Points {
		for _, k := range append(slices.Clone(c.Points[i+1:]), axis...) {
			if quadsMeet(l.Box, k.Box) {
				out = append(out, fmt.Sprintf("label %q overlaps %q", l.Text, k.Text))
			}
		}
	}
	return out
}

// within reports whether the box lies inside a w × h chart (half a
// pixel of rounding allowed).
func within(q [4][2]float64, w, h float64) bool {
	for _, p := range q {
		if p[0] < -0.5 || p[1] < -0.5 || p[0] > w+0.5 || p[1] > h+0.5 {
			return false
		}
	}
	return true
}

// quadsMeet reports whether two convex quadrilaterals overlap by more
// than half a pixel, by the separating-axis test: they do not when some
// edge's normal has their projections apart (labels that only touch do
// not count).
func quadsMeet(a, b [4][2]float64) bool {
	for _, q := range [][4][2]float64{a, b} {
		for i := range 4 {
			p, r := q[i], q[(i+1)%4]
			nx, ny := r[1]-p[1], p[0]-r[0]
			norm := math.Hypot(nx, ny)
			if norm == 0 {
				continue
			}
			lo1, hi1 := project(a, nx/norm, ny/norm)
			lo2, hi2 := project(b, nx/norm, ny/norm)
			if hi1 <= lo2+0.5 || hi2 <= lo1+0.5 {
				return false
			}
		}
	}
	return true
}

func project(q [4][2]float64, nx, ny float64) (lo, hi float64) {
	lo, hi = q[0][0]*nx+q[0][1]*ny, q[0][0]*nx+q[0][1]*ny
	for _, p := range q[1:] {
		v := p[0]*nx + p[1]*ny
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// kindOf names what a chart draws, from its option: the kinds the label
// test must meet at least once.
func kindOf(c chartBox) string {
	bars := slices.Contains(c.Series, "bar")
	catX := len(c.Axes) > 0 && c.Axes[0].Dim == "xAxis" && c.Axes[0].Type == "category"
	switch {
	case c.Grids > 1:
		return "Pareto panels"
	case bars && catX:
		return "standing bars"
	case bars:
		return "lying bars"
	case slices.Contains(c.Series, "scatter"):
		return "labelled points"
	case c.Labelled:
		return "labelled points on a load sweep"
	}
	return "lines on a numeric axis"
}

// chartKinds are the kinds the reports draw. Points of unrelated loads
// ("labelled points", unjoined) are no longer drawn: such loads get
// grouped bars.
var chartKinds = []string{"standing bars", "lying bars", "lines on a numeric axis", "labelled points on a load sweep", "Pareto panels"}

// The label check sees what it is for: on a page with the site's assets,
// ECharts' own layout of twelve long categories (labels thinned out)
// and the same with every label asked for (labels on top of each other)
// both fail it.
func TestChartLabelsCheckFails(t *testing.T) {
	bin := chromiumPath(t)
	dir := assetDir(t)
	var cats []string
	for i := range 12 {
		cats = append(cats, fmt.Sprintf("a rather long category name %d", i))
	}
	var figures strings.Builder
	for i, label := range []any{map[string]any{}, map[string]any{"interval": 0}} {
		opt, _ := json.Marshal(map[string]any{"animation": false, "xAxis": map[string]any{"type": "category", "data": cats, "axisLabel": label},
			"yAxis": map[string]any{"type": "value"}, "series": []any{map[string]any{"type": "bar", "data": []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}}})
		fmt.Fprintf(&figures, `<div class="chart-canvas" id="chart-%d" data-chart="data-%d"></div><script type="application/json" id="data-%d">%s</script>`, i, i, i, opt)
	}
	page := `<!DOCTYPE html><html><head><link rel="stylesheet" href="assets/report.css"><script src="assets/echarts.min.js" defer></script>` +
		`<script src="assets/servelab-charts.js" defer></script></head><body><main class="report">` + figures.String() + `</main></body></html>`
	os.WriteFile(filepath.Join(dir, "control.html"), []byte(page), 0o644)
	srv := httptest.NewServer(measuring{dir: dir, h: http.FileServer(http.Dir(dir))})
	defer srv.Close()
	m, _ := measure(t, bin, srv.URL+"/control.html")
	if len(m.Charts) != 2 {
		t.Fatalf("%d charts measured, want 2", len(m.Charts))
	}
	for i, want := range []string{"has no label", "overlap"} {
		ps := labelProblems(m.Charts[i])
		if !slices.ContainsFunc(ps, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("chart %d: problems %q, want one that says %q", i, ps, want)
		}
	}
}
