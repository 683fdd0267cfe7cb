package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/i18n"
	rhtml "servelab.dev/render/html"
	"servelab.dev/render/report"
	"servelab.dev/schema"
)

// maxHeight is the tallest a report page may be at 1280 px wide, in CSS
// px: the recommendation, warnings and steps; method and raw blocks are
// folded.
const maxHeight = 12000

// checkOptions reads every chart's ECharts option from the page.
func checkOptions(t *testing.T, page, dom string) {
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	walk(doc, func(e *html.Node) {
		if e.Data != "script" || attr(e, "type") != "application/json" || e.FirstChild == nil {
			return
		}
		var opt struct {
			Legend struct {
				Show *bool `json:"show"`
			} `json:"legend"`
			XAxis  []axisOption `json:"xAxis"`
			YAxis  []axisOption `json:"yAxis"`
			Series []struct {
				Type string `json:"type"`
				Data []any  `json:"data"`
			} `json:"series"`
		}
		if err := json.Unmarshal([]byte(e.FirstChild.Data), &opt); err != nil {
			t.Errorf("%s %s: %v", page, attr(e, "id"), err)
			return
		}
		id := attr(e, "id")
		legend := opt.Legend.Show != nil && *opt.Legend.Show
		if len(opt.Series) > 1 && !legend {
			t.Errorf("%s %s: %d series and no legend", page, id, len(opt.Series))
		}
		values := 0
		for _, ax := range append(opt.XAxis, opt.YAxis...) {
			if ax.Data != nil {
				continue // categories
			}
			values++
			if ax.Min == nil || *ax.Min != 0 {
				t.Errorf("%s %s: a value axis does not start at 0", page, id)
			}
		}
		if values == 0 {
			t.Errorf("%s %s: no value axis", page, id)
		}
		points := 0
		for _, s := range opt.Series {
			for _, v := range s.Data {
				if v != "-" {
					points++
				}
			}
		}
		if points == 0 {
			t.Errorf("%s %s: a chart without data", page, id)
		}
	})
}

// axisOption is what checkOptions reads of an axis: categories have
// data, value axes must start at 0.
type axisOption struct {
	Min  *float64 `json:"min"`
	Data []any    `json:"data"`
}

// What `servelab render -o DIR` writes (the reports and every asset
// beside them) draws every chart when opened from disk, offline.
func TestRenderedReportOffline(t *testing.T) {
	bin := chromiumPath(t)
	dir := assetDir(t)
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("../studies/qwen3-8b-h100-latency.cue")
	if err != nil {
		t.Fatal(err)
	}
	runs, samples, err := store.Open("../results").OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	a, err := decide.Analyze(s, decide.Records{Runs: runs, Samples: samples}, decide.Auto)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, s.ID+".en.html")
	f, _ := os.Create(page)
	if err := rhtml.Write(f, report.Build(s, a, a.Runs), i18n.MustNew("en"), rhtml.Options{Assets: "assets/"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dom, log := chrome(t, bin, "file://"+page, "--dump-dom", "--allow-file-access-from-files")
	for _, e := range consoleErrors(log) {
		t.Errorf("console: %s", e)
	}
	checkCharts(t, page, dom)
	if !strings.Contains(dom, "<svg") {
		t.Error("no chart drawn")
	}
}

// assetDir is a new folder holding the pages' assets (ECharts and the
// site's own) under assets/; the test skips without npm's ECharts.
func assetDir(t *testing.T) string {
	t.Helper()
	ech, err := rhtml.ECharts(filepath.Join("node_modules", "echarts"))
	if err != nil {
		if os.Getenv("SERVELAB_REQUIRE_SITE") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	for n, b := range rhtml.Assets() {
		ech[n] = b
	}
	for n, b := range ech {
		os.WriteFile(filepath.Join(dir, "assets", n), b, 0o644)
	}
	return dir
}
