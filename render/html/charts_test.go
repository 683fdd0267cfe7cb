package html

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
)

func barChart(cats ...string) d.Chart {
	c := d.Chart{ID: "c", Kind: "bar", Title: d.Lit("t"), Unit: "tok/s", Series: []d.Series{{Name: d.Lit("s")}}}
	for i, x := range cats {
		c.Categories = append(c.Categories, d.Lit(x))
		c.Series[0].Values = append(c.Series[0].Values, float64(100*(i+1)))
	}
	return c
}

func mustOption(t *testing.T, c d.Chart) (map[string]any, int) {
	t.Helper()
	opt, h, err := option(c, i18n.MustNew("en"))
	if err != nil {
		t.Fatal(err)
	}
	return opt, h
}

// zero reports whether v is the number 0 (an int where the writer set
// it, a float64 where it came back from JSON).
func zero(v any) bool { return v == 0 || v == 0.0 }

func axis(opt map[string]any, name string) map[string]any {
	return opt[name].([]any)[0].(map[string]any)
}

// A category axis asks for every label with the number 0: ECharts reads
// go-echarts' string "0" as "thin them out" and then hides the first
// and last labels where they touch their neighbours.
func TestEveryCategoryLabel(t *testing.T) {
	opt, h := mustOption(t, barChart("vLLM", "SGLang", "TensorRT-LLM"))
	x := axis(opt, "xAxis")
	if l := x["axisLabel"].(map[string]any); !zero(l["interval"]) || l["hideOverlap"] != false {
		t.Errorf("axisLabel %v, want interval 0 (a number) and no hiding", l)
	}
	if h != baseHeight || len(x["data"].([]any)) != 3 {
		t.Errorf("short labels: height %d, x-axis %v; want standing bars %d px tall", h, x, baseHeight)
	}
}

// Labels that fit under their bars in a few lines are wrapped there;
// ten long ones make the bars lie down, a row each, the chart growing
// with them and the value axis along the bottom from 0.
func TestLongLabelsLieDown(t *testing.T) {
	opt, h := mustOption(t, barChart("Choosing the Inference Engine", "CUDA Graph Max Batch Size in SGLang", "Quantization", "Attention Backend", "Speculative Decoding", "Torch.compile"))
	if cats := axis(opt, "xAxis")["data"].([]any); !strings.Contains(cats[0].(string), "\n") || h < baseHeight {
		t.Errorf("wrapped standing labels: %q, height %d", cats, h)
	}
	var long []string
	for i := range 10 {
		long = append(long, fmt.Sprintf("tengyunw-%d-4-16", i))
	}
	c := barChart(long...)
	c.Lines = []d.Line{{Name: d.Lit("P99 TTFT ≤ 500 ms"), Value: 500}}
	opt, h = mustOption(t, c)
	y, x := axis(opt, "yAxis"), axis(opt, "xAxis")
	ml := opt["series"].([]any)[0].(map[string]any)["markLine"].(map[string]any)["data"].([]any)[0].(map[string]any)
	if ml["xAxis"] != 500.0 || ml["yAxis"] != nil {
		t.Errorf("a bound across lying bars: %v, want it upright at x = 500", ml)
	}
	if len(y["data"].([]any)) != 10 || y["inverse"] != true || x["type"] != "value" || !zero(x["min"]) {
		t.Errorf("lying bars: y %v, x %v", y, x)
	}
	if h <= baseHeight {
		t.Errorf("ten rows in %d px", h)
	}
}

func TestWrapLabel(t *testing.T) {
	for _, c := range []struct {
		in    string
		width float64
		want  []string
	}{
		{"Choosing the Inference Engine", 100, []string{"Choosing the", "Inference", "Engine"}},
		{"vLLM\n(adopted so far)", 200, []string{"vLLM", "(adopted so far)"}},
		{"选择推理引擎", 40, []string{"选择推", "理引擎"}},
		{"tengyunw-4-4-16", 30, []string{"tengyunw-4-4-16"}},
		{"共享前缀（并发 8）", 200, []string{"共享前缀（并发 8）"}},
		{"并发 1 下的基线", 40, []string{"并发 1", "下的", "基线"}},
		{"8 个槽位下的主机内存提示缓存", 160, []string{"8 个槽位下的主机内存", "提示缓存"}},
	} {
		if got := wrapLabel(c.in, c.width); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapLabel(%q, %v) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

// Labels of points that coincide go to different places, none of them
// meeting another.
func TestPlaceLabels(t *testing.T) {
	xs, ys := []float64{720.35, 720.44, 548.2, 100}, []float64{130, 130.1, 144.9, 10}
	labels := []string{"adopted so far", "seqs-64", "seqs-4", "far away"}
	places := placeLabels(xs, ys, labels, 400, 200)
	mx, my := niceMax(720.44), niceMax(144.9)
	var boxes []rect
	for i, pl := range places {
		for _, c := range candidates(xs[i]/mx*400, 200-ys[i]/my*200, textWidth(labels[i])+6) {
			if c.p == pl {
				boxes = append(boxes, c.r)
				break
			}
		}
	}
	if len(boxes) != len(labels) {
		t.Fatalf("places %v", places)
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if boxes[i].meets(boxes[j]) {
				t.Errorf("%s (%v) meets %s (%v)", labels[i], places[i], labels[j], places[j])
			}
		}
	}
	if niceMax(720.44) != 800 || niceMax(4.37) != 5 || niceMax(144.9) != 150 {
		t.Errorf("niceMax: %v %v %v", niceMax(720.44), niceMax(4.37), niceMax(144.9))
	}
}

// Flagged bars are hatched and marked (!), and the figure says why under
// the chart; flagged points are hollow.
func TestFlaggedFigures(t *testing.T) {
	p := i18n.MustNew("en")
	c := barChart("a", "b")
	c.Series[0].Flagged = []bool{false, true}
	c.Doubt = d.Lit("a reason")
	opt, _ := mustOption(t, c)
	data := opt["series"].([]any)[0].(map[string]any)["data"].([]any)
	if _, ok := data[0].(map[string]any)["itemStyle"]; ok {
		t.Error("an unflagged bar is styled")
	}
	b := data[1].(map[string]any)
	if b["itemStyle"].(map[string]any)["decal"] == nil || !strings.HasSuffix(b["label"].(map[string]any)["formatter"].(string), "(!)") {
		t.Errorf("flagged bar %v", b)
	}
	if f := figure(c, p); !strings.Contains(f, "<figcaption>Bars marked (!) and hatched") || !strings.Contains(f, "a reason") {
		t.Errorf("figure %s", f)
	}
	line := d.Chart{ID: "l", Kind: "line", Title: d.Lit("t"), Unit: "ms", XName: d.Lit("Request rate"), XUnit: "req/s",
		Categories: []d.Text{d.Lit("16"), d.Lit("1")},
		Series:     []d.Series{{Name: d.Lit("s"), Values: []float64{2, 1}, X: []float64{16, 1}, Flagged: []bool{true, true}}}}
	opt, _ = mustOption(t, line)
	s := opt["series"].([]any)[0].(map[string]any)
	pts := s["data"].([]any)
	if first := pts[0].(map[string]any); first["value"].([]any)[0] != 1.0 || first["symbol"] != "emptyCircle" {
		t.Errorf("sweep points %v: want them by rate, hollow", pts)
	}
	if s["lineStyle"].(map[string]any)["type"] != "dashed" {
		t.Errorf("a line through flagged points only is %v", s["lineStyle"])
	}
	line.Kind, line.Series[0].Values = "xy", []float64{math.NaN(), math.NaN()}
	mustOption(t, line) // a series without a point draws nothing, and no panic
}

// A Pareto chart has a panel per load: its own grid and axes from 0,
// its frontier line through the frontier points by throughput, every
// point named.
func TestParetoPanels(t *testing.T) {
	c := d.Chart{ID: "p", Kind: "pareto", Title: d.Lit("t"), XName: d.Lit("per GPU"), YName: d.Lit("per user"), Panels: []d.Panel{
		{Title: d.Lit("c8"), Points: []d.Point{{Label: d.Lit("b"), X: 400, Y: 50, Frontier: true}, {Label: d.Lit("a"), X: 200, Y: 100, Frontier: true}, {Label: d.Lit("c"), X: 100, Y: 40}}},
		{Title: d.Lit("prefix"), Points: []d.Point{{Label: d.Lit("a"), X: 800, Y: 200, Frontier: true, Flagged: true}}},
	}}
	opt, h := mustOption(t, c)
	if len(opt["grid"].([]any)) != 2 || len(opt["xAxis"].([]any)) != 2 || h != panelsHeight(2) {
		t.Fatalf("grids %v, height %d", opt["grid"], h)
	}
	for _, y := range opt["yAxis"].([]any) {
		if !zero(y.(map[string]any)["min"]) {
			t.Errorf("y-axis %v", y)
		}
	}
	series := opt["series"].([]any)
	if line := series[0].(map[string]any)["data"].([]any); fmt.Sprint(line) != "[[200 100] [400 50]]" {
		t.Errorf("frontier %v, want it by throughput", line)
	}
	named := 0
	for _, s := range series {
		for _, item := range s.(map[string]any)["data"].([]any) {
			if m, ok := item.(map[string]any); ok && m["name"] != "" && m["label"] != nil {
				named++
			}
		}
	}
	if named != 4 {
		t.Errorf("%d points named and placed, want 4", named)
	}
}

// A flagged Pareto point is drawn hollow even where its label has no
// free place: points that all but coincide lose their labels, not the
// mark that calls their figures into question.
func TestParetoFlaggedUnlabelledIsHollow(t *testing.T) {
	var pts []d.Point
	for _, l := range []string{"first configuration", "second configuration", "third configuration", "fourth configuration"} {
		pts = append(pts, d.Point{Label: d.Lit(l), X: 500, Y: 100, Flagged: true})
	}
	c := d.Chart{ID: "p", Kind: "pareto", Title: d.Lit("t"), XName: d.Lit("per GPU"), YName: d.Lit("per user"), Panels: []d.Panel{{Title: d.Lit("c8"), Points: pts}}}
	opt, _ := mustOption(t, c)
	hidden, items := 0, 0
	for _, s := range opt["series"].([]any) {
		for _, item := range s.(map[string]any)["data"].([]any) {
			m, ok := item.(map[string]any)
			if !ok || m["name"] == nil {
				continue
			}
			items++
			if l, _ := m["label"].(map[string]any); l["show"] == false {
				hidden++
			}
			if m["symbol"] != "emptyCircle" {
				t.Errorf("flagged point %v is not hollow", m["name"])
			}
		}
	}
	if items != len(pts) || hidden == 0 {
		t.Fatalf("%d points, %d without a label: the test needs a point with no place", items, hidden)
	}
}

// Each flag of a code span stays on one line with its value; a span of
// several flags breaks between them, and a long JSON value may wrap.
func TestFlagSpans(t *testing.T) {
	long := "--speculative-config={\"method\":\"mtp\",\"num_speculative_tokens\":1}"
	out, err := Convert([]byte("Add `--parallel 8`, `--n-gpu-layers all --cache-ram 0`, `"+long+"` and `a<b`.\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		`<code><span class="flag">--parallel 8</span></code>`,
		`<code><span class="flag">--n-gpu-layers all</span> <span class="flag">--cache-ram 0</span></code>`,
		`<code>a&lt;b</code>`, "<code>--speculative-config=",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
}
