package publish

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/i18n"
	"servelab.dev/render/outdir"
	"servelab.dev/schema"
)

func TestFormats(t *testing.T) {
	if got := Formats(); !reflect.DeepEqual(got, []string{"md", "html"}) {
		t.Errorf("Formats() = %v", got)
	}
	if err := Check("pdf"); err == nil || err.Error() != `unknown format "pdf" (want md, html)` {
		t.Errorf("pdf: %v", err)
	}
	if err := Check("html"); err != nil {
		t.Error(err)
	}
	if a, err := Assets([]string{"md"}, "/nowhere"); err != nil || len(a) != 0 {
		t.Errorf("Markdown links to no assets, yet %v, %v", a, err)
	}
	if _, err := Assets([]string{"md", "html"}, filepath.Join(t.TempDir(), "no-echarts")); err == nil || !strings.Contains(err.Error(), "pinned npm echarts package") {
		t.Errorf("HTML without ECharts: %v", err)
	}
}

// A seed study's reports, in the languages and formats asked for, in
// that order, with the final configuration's files beside them; the
// Markdown is byte for byte what render/report's golden holds.
func TestStudy(t *testing.T) {
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("../../studies/qwen3-8b-h100-latency.cue")
	if err != nil {
		t.Fatal(err)
	}
	runs, samples, err := store.Open("../../results").OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	dir, err := outdir.Open(out, "-o")
	if err != nil {
		t.Fatal(err)
	}
	langs := []*i18n.Printer{i18n.MustNew("ru"), i18n.MustNew("en")}
	written, err := Study(dir, s, decide.Records{Runs: runs, Samples: samples}, nil, langs, []string{"html", "md"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range written {
		names = append(names, filepath.Base(w))
	}
	want := []string{"qwen3-8b-h100-latency.ru.md", "qwen3-8b-h100-latency.ru.html", "qwen3-8b-h100-latency.en.md", "qwen3-8b-h100-latency.en.html"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("written %v, want %v", names, want)
	}
	got, err := os.ReadFile(filepath.Join(out, "qwen3-8b-h100-latency.en.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../report/testdata/golden/qwen3-8b-h100-latency.en.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(golden) {
		t.Error("the English Markdown differs from render/report's golden")
	}
	ents, _ := os.ReadDir(out)
	if len(ents) <= len(want)+1 { // + the folder's marker
		t.Errorf("no final configuration files beside the reports: %d entries", len(ents))
	}
}
