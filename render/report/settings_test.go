package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/startup"
	"servelab.dev/execute/store"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/render/markdown"
	"servelab.dev/schema"
)

const h200 = "qwen3-8b-h200-llamacpp"

// h200Study is the committed llama.cpp study, decided as the site does.
func h200Study(t *testing.T) (*schema.Study, *decide.Analysis) {
	t.Helper()
	return h200StudyWith(t, func(*schema.Study) {})
}

// h200StudyWith decides the H200 study after edit changed it, on the
// records the repository holds.
func h200StudyWith(t *testing.T, edit func(*schema.Study)) (*schema.Study, *decide.Analysis) {
	t.Helper()
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("../../studies/" + h200 + ".cue")
	if err != nil {
		t.Fatal(err)
	}
	edit(s)
	runs, samples, err := store.Open("../../results").OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	a, err := decide.Analyze(s, decide.Records{Runs: runs, Samples: samples}, decide.Auto)
	if err != nil {
		t.Fatal(err)
	}
	return s, a
}

func markdownOf(t *testing.T, s *schema.Study, a *decide.Analysis, logs EngineLogs, lang string) string {
	t.Helper()
	doc, err := BuildWithLogs(s, a, a.Runs, logs)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := markdown.Write(&md, doc, i18n.MustNew(lang), markdown.Options{}); err != nil {
		t.Fatal(err)
	}
	return md.String()
}

// The H200 report shows, below the final command, what llama-server
// said it disabled, and at the conclusion's end the settings it started
// with.
func TestStartupSettingsH200(t *testing.T) {
	s, a := h200Study(t)
	md := markdownOf(t, s, a, store.Open("../../results"), "en")
	cmd := strings.Index(md, "```bash\nllama-server")
	warn := strings.Index(md, "`--cache-idle-slots requires --cache-ram, disabling`")
	if cmd < 0 || warn < 0 || warn < cmd {
		t.Fatalf("no start-up notice below the final command (notice at %d, command at %d)", warn, cmd)
	}
	wantAll(t, "H200", md,
		"`--cache-idle-slots`, which the command does not set, depends on what `--cache-ram 0` sets",
		"| `n_slots` | `8` | `--parallel` | `--parallel 8` |",
		"| `n_threads` | `16` | `--threads` | not set |",
		"| `n_slots` | `4` | `8` |", // the parallel-slots step's options
	)
	if again := markdownOf(t, s, a, store.Open("../../results"), "en"); again != md {
		t.Error("two renders differ")
	}
	if plain := markdownOf(t, s, a, nil, "en"); strings.Contains(plain, "start-up") {
		t.Error("a report without logs mentions start-up settings")
	}
}

// The seed studies' records are imported, without engine logs: their
// reports are the same with the store's logs as without.
func TestStartupSettingsSeedsUnchanged(t *testing.T) {
	for _, id := range studies {
		s, a, runs := seed(t, id)
		with, err := BuildWithLogs(s, a, runs, store.Open("../../results"))
		if err != nil {
			t.Fatal(err)
		}
		var x, y bytes.Buffer
		markdown.Write(&x, with, i18n.MustNew("en"), markdown.Options{})
		markdown.Write(&y, Build(s, a, runs), i18n.MustNew("en"), markdown.Options{})
		if x.String() != y.String() {
			t.Errorf("%s: the store's logs change the seed report", id)
		}
	}
}

type failingLogs struct{}

func (failingLogs) EngineLog(string) (io.ReadCloser, error) { return nil, errors.New("disk on fire") }

func TestStartupLogErrorIsReturned(t *testing.T) {
	s, a := h200Study(t)
	if _, err := BuildWithLogs(s, a, a.Runs, failingLogs{}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("got %v", err)
	}
}

func TestArgValue(t *testing.T) {
	argv := []string{"llama-server", "--parallel", "8", "--cont-batching", "--cache-ram=0"}
	for flag, want := range map[string]string{"--parallel": "8", "--cont-batching": "", "--cache-ram": "0"} {
		if got, ok := argValue(argv, flag); !ok || got != want {
			t.Errorf("%s: %q %v", flag, got, ok)
		}
	}
	if _, ok := argValue(argv, "--threads"); ok {
		t.Error("--threads found")
	}
}

// Launches that print other values, or fewer settings, are named.
func TestLaunchesThatDiffer(t *testing.T) {
	first := &startup.Settings{Settings: []startup.Setting{{Name: "n_slots", Value: "8"}, {Name: "n_threads", Value: "16"}}}
	v := &launchView{first: first}
	v.compare(first)
	v.compare(&startup.Settings{Settings: []startup.Setting{{Name: "n_slots", Value: "4"}}, Notices: []startup.Notice{{Text: "x"}}})
	if strings.Join(v.varying, ",") != "n_slots,n_threads" || len(v.notices) != 1 || v.notices[0].k != 1 {
		t.Errorf("varying %v, notices %v", v.varying, v.notices)
	}
}

// The H200 final configuration's start-up blocks in each language,
// golden: the warning above the command and the folded settings below.
func TestStartupGoldenH200(t *testing.T) {
	s, a := h200Study(t)
	st, err := readStartup(a, a.Runs, store.Open("../../results"))
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{s: s, a: a, runs: a.Runs, doc: &d.Doc{ID: s.ID, Title: d.Prose(s.Title)}, startup: st}
	b.startupWarnings()
	b.finalSettings()
	for _, lang := range i18n.Codes() {
		var md bytes.Buffer
		if err := markdown.Write(&md, b.doc, i18n.MustNew(lang), markdown.Options{}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "golden", h200+".startup."+lang+".md")
		if *update || os.Getenv("SERVELAB_UPDATE") != "" {
			os.WriteFile(path, md.Bytes(), 0o644)
			continue
		}
		if want, err := os.ReadFile(path); err != nil || !bytes.Equal(md.Bytes(), want) {
			t.Errorf("%s differs (go test -update rewrites it):\n%s", path, md.Bytes())
		}
	}
}

// plainEN is the English Markdown page with plain spaces for the
// non-breaking ones, as tests quote it.
func plainEN(t *testing.T, s *schema.Study, a *decide.Analysis) string {
	t.Helper()
	return strings.ReplaceAll(markdownOf(t, s, a, nil, "en"), "\u00a0", " ")
}

// wantAll reports each of wants the page md lacks, naming what.
func wantAll(t *testing.T, what, md string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("%s: the report lacks %q", what, want)
		}
	}
}

// shortProbes is the H200 study's capacity search as session 4 ran it:
// 50 requests a probe, 5 s at 10 req/s. Its records stay in results/.
func shortProbes(s *schema.Study) {
	p := s.Profiles["capacity"]
	p.Search = &schema.Search{Low: 1, High: 12, Precision: 1, Arrivals: "poisson"}
	s.Profiles["capacity"] = p
}

// A probe that passes the bounds is no capacity where the server fell
// behind over the arrivals or the rate is above the most it ever served
// at a fixed concurrency: the H200 final's 50-request probe passed at 10
// req/s, while its concurrency-8 runs never completed more than 9.88.
// The page states each side's range, names the probe that does not count
// and why, and marks it in the probe table.
func TestCapacityCountsOnlyProbesThatKeptUp(t *testing.T) {
	s, a := h200StudyWith(t, shortProbes)
	md := plainEN(t, s, a)
	wantAll(t, "H200", md,
		"between 9.25 req/s and 10 req/s for the recommended configuration, between 3.75 req/s and 4.5 req/s for the baseline.",
		"also met the bounds at 10 req/s, above the 9.88 req/s it completed at most at any fixed concurrency",
		"| Optimized | 9.25 req/s | 908.78 ms |",
		"| Optimized | 10 req/s | 584.36 ms |",
		"ms | ✓ (not counted: above the most served) |",
		"| Optimized | 10.75 req/s | 1,375.74 ms |",
	)
	if strings.Contains(md, "): 10 req/s for the recommended configuration") {
		t.Error("the report states 10.00 req/s as the final's capacity")
	}
}

// A probe pools every request of its configuration's runs at its rate
// into one percentile, each run's own in sight beside it: the H200
// final's two runs at 7.875 req/s (1,257.73 and 877.23 ms alone) break
// P90 TTFT pooled (1,020.94 ms), the baseline's at 3.125 and 3.625 req/s
// meet it pooled; a P90 breach is load, never a stall.
func TestCapacityProbesPoolRuns(t *testing.T) {
	s, a := h200Study(t)
	md := plainEN(t, s, a)
	wantAll(t, "H200", md,
		"between 7.375 req/s and 7.875 req/s for the recommended configuration, between 3.625 req/s and 4.125 req/s for the baseline.",
		"Each probe sent its rate for about 30 s (rate × 30 requests, at least 50).",
		"one P90 of all of them, not a mean of the runs' P90s.",
		"| Optimized | 7.875 req/s | 1,020.94 ms (runs: 1,257.73 and 877.23) | 16.84 ms | ✗ |",
		"| Baseline | 3.625 req/s | 893.40 ms (runs: 1,254.29 and 687.71) | 12.93 ms | ✓ |",
	)
	if strings.Contains(md, "Planned runs not made yet") {
		t.Error("the finished searches still plan runs")
	}
}

// The SLO is judged at one load; a bound the final's runs break at
// another validation load is said beside it (the H200 final's second
// shared-prefix run: P90 TPOT 25.33 ms against 25 ms).
func TestSLOBrokenElsewhere(t *testing.T) {
	s, a := h200Study(t)
	md := plainEN(t, s, a)
	want := "At shared prefixes, concurrency 8, though, it breaks P90 TPOT ≤ 25 ms in 1 of its 4 runs of 40 requests (up to 25.33 ms)."
	if !strings.Contains(md, want) {
		t.Errorf("the report lacks %q", want)
	}
}
