package markdown

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
)

func TestEscaping(t *testing.T) {
	doc := &d.Doc{Title: d.Lit("T")}
	doc.Add(d.Para{Text: d.Lit("a *b* [c](javascript:x) <i>|#")}, d.Para{Text: d.Lit("prompt_save (!) < 8 ![x](y) _e_ <https://x>")},
		d.Table{Head: []d.Text{d.Lit("h")}, Rows: [][]d.Text{{d.Code("a|b")}}},
		d.CodeBlock{Lang: "text", Body: "```inner```"})
	var b bytes.Buffer
	if err := Write(&b, doc, i18n.MustNew("en"), Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`a \*b\* \[c\](javascript:x) \<i\>\|\#`, `prompt_save (!) < 8 \!\[x\](y) \_e\_ \<https://x\>`, "| `a\\|b` |", "````text\n```inner```\n````"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestMermaidQuotes(t *testing.T) {
	c := d.Chart{ID: "x", Title: d.Lit(`say "hi"`), Unit: "s", Categories: []d.Text{d.Lit("a")}, Series: []d.Series{{Name: d.Lit("s"), Values: []float64{1}}}}
	got := mermaid(c, i18n.MustNew("en"))
	if !strings.Contains(got, `title "say 'hi'"`) {
		t.Error(got)
	}
}

// A missing value is not drawn as 0: its bar leaves the chart, and a
// chart with no value is not drawn at all. Several series share one
// chart, each bar named by category and series.
func TestMermaidLeavesOutMissing(t *testing.T) {
	nan := math.NaN()
	c := d.Chart{ID: "x", Title: d.Lit("t"), Unit: "ms", Categories: []d.Text{d.Lit("c1"), d.Lit("c4")},
		Series: []d.Series{{Name: d.Lit("a"), Values: []float64{nan, 2}}, {Name: d.Lit("b"), Values: []float64{1, 3}}}}
	got := mermaid(c, i18n.MustNew("en"))
	want := `x-axis ["c1 · b", "c4 · a", "c4 · b"]`
	if strings.Contains(got, "0.00") || !strings.Contains(got, want) || !strings.Contains(got, "bar [1.00, 2.00, 3.00]") ||
		!strings.Contains(got, "xychart-beta horizontal") || strings.Count(got, "```mermaid") != 1 {
		t.Error(got)
	}
	c.Series[0].Values[1], c.Series[1].Values = nan, []float64{nan, nan}
	if got := mermaid(c, i18n.MustNew("en")); got != "" {
		t.Errorf("chart drawn with no value:\n%s", got)
	}
}
