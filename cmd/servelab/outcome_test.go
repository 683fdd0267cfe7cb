package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// outcomeStudy has one try step: variant v against the baseline, on
// mean request latency, with the default minGain (3 %).
const outcomeStudy = `package studies

import "servelab.dev/schema"

"oc": schema.#Study & {
	title: en: "Outcomes"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: vllm: version: "0.11.0"
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 4}, api: "completions", warmup: 1, repeats: %d}
	profiles: p: {kind: "concurrency", concurrency: 4, requests: 200}
	objective: {metric: "latency.mean", profile: "p"}
	baseline: engine: "vllm"
	steps: [{id: "try", title: en: "Try", variants: [{name: "v", knobs: maxSeqs: 64}]}]
}
`

// run is one synthetic run of a side: per-request latencies (mean mu,
// half-width spread), or a summary alone, with failures and a kind.
type run struct {
	mu, spread float64
	samples    bool
	failed     int
	noMetric   bool
	kind       string
}

type outcomeCase struct {
	name       string
	repeats    int
	base, v    []run // one entry per recorded repeat
	status     string
	outcome    string
	reason     string
	mdContains string
}

func ok(mu, spread float64) run       { return run{mu: mu, spread: spread, samples: true} }
func summary(mu float64) run          { return run{mu: mu} }
func withKind(r run, kind string) run { r.kind = kind; return r }

var outcomeCases = []outcomeCase{
	{"clear win", 1, []run{ok(130, 10)}, []run{ok(100, 10)}, "decided", "adopted", "better", "Significantly better"},
	{"clear loss", 1, []run{ok(100, 10)}, []run{ok(130, 10)}, "decided", "kept", "not-better", "Not adopted: no variant is better"},
	{"noise with samples", 1, []run{ok(100, 40)}, []run{ok(99.5, 40)}, "decided", "kept", "no-significant-difference", "No significant difference (~)"},
	{"noise without samples", 2, []run{summary(100), summary(110)}, []run{summary(104), summary(98)}, "decided", "kept", "no-significant-difference", "No significant difference (~)"},
	{"partial repeats", 3, []run{ok(130, 10)}, []run{ok(100, 10)}, "waiting", "waiting", "runs-missing", "Not decided: 4 of 6 runs"},
	{"90 % failed", 1, []run{ok(130, 10)}, []run{{mu: 50, spread: 5, samples: true, failed: 180}}, "invalid", "invalid", "failed-requests", "Invalid run:"},
	{"missing metric", 1, []run{ok(130, 10)}, []run{{mu: 100, noMetric: true}}, "invalid", "invalid", "missing-metric", "Invalid record:"},
	{"simulated + measured", 1, []run{ok(130, 10)}, []run{withKind(ok(100, 10), record.Simulated)}, "waiting", "waiting", "runs-missing", "Not decided: 1 of 2 runs"},
}

// One outcome, wherever it is read: plan --json, analyze --json, the
// English report and diff --json all say the same for each record set.
func TestOneOutcomeEverywhere(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed for diff")
	}
	var golden bytes.Buffer
	for _, c := range outcomeCases {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			t.Chdir(repo)
			os.MkdirAll("studies", 0o755)
			os.WriteFile("studies/oc.cue", []byte(fmt.Sprintf(outcomeStudy, c.repeats)), 0o644)
			schemaExport(t)
			git(t, "init", "-q")
			git(t, "add", ".")
			git(t, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "study")
			writeRuns(t, c)

			var pl struct{ Steps []plan.StepState }
			cli(t, &pl, "plan", "studies/oc.cue", "--json")
			if st := pl.Steps[0]; st.Status != c.status {
				t.Errorf("plan: step %s (%s), want %s", st.Status, st.Detail, c.status)
			}
			var an struct {
				Steps []struct{ Outcome, Reason, Detail string }
			}
			cli(t, &an, "analyze", "studies/oc.cue", "--json")
			if st := an.Steps[0]; st.Outcome != c.outcome || st.Reason != c.reason {
				t.Errorf("analyze: %s (%s: %s), want %s (%s)", st.Outcome, st.Reason, st.Detail, c.outcome, c.reason)
			}
			cli(t, nil, "render", "studies/oc.cue", "--lang", "en,zh,ru", "--format", "md", "-o", "out")
			md, _ := os.ReadFile("out/oc.en.md")
			if !strings.Contains(string(md), c.mdContains) {
				t.Errorf("report lacks %q", c.mdContains)
			}
			for _, lang := range []string{"en", "zh", "ru"} {
				md, _ := os.ReadFile("out/oc." + lang + ".md")
				fmt.Fprintf(&golden, "=== %s, %s\n%s\n", c.name, lang, stepSection(string(md)))
			}
			if c.name == "partial repeats" {
				var out, errb bytes.Buffer
				Main([]string{"plan", "studies/oc.cue"}, &out, &errb)
				if !strings.Contains(out.String(), "2 of 3 runs missing") {
					t.Errorf("plan does not say 2 of 3 runs are missing:\n%s", out.String())
				}
				out.Reset()
				Main([]string{"analyze", "studies/oc.cue"}, &out, &errb)
				if !strings.Contains(out.String(), "\nfinal: not decided\n") {
					t.Errorf("analyze prints a final command while runs are missing:\n%s", out.String())
				}
			}
			var rep struct {
				Studies []struct {
					Decisions []struct{ Step, New, Outcome, Reason string }
				}
			}
			cli(t, &rep, "diff", "HEAD", "--json")
			df := rep.Studies[0]
			switch {
			case c.outcome == "waiting" && len(df.Decisions) != 0:
				t.Errorf("diff: %+v, want no change from waiting", df.Decisions)
			case c.outcome != "waiting" && (len(df.Decisions) != 1 || df.Decisions[0].Outcome != c.outcome || df.Decisions[0].Reason != c.reason):
				t.Errorf("diff: %+v, want %s (%s)", df.Decisions, c.outcome, c.reason)
			}
		})
	}
	checkGolden(t, "testdata/outcomes.golden.md", golden.Bytes())
}

// checkGolden compares got with a golden file; -update rewrites it
// (review the diff before committing).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(testDir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s differs from the golden file; see %s.got", name, path)
	}
}

// testDir is this package's folder: the tests chdir into temporary repos.
var testDir, _ = os.Getwd()

// stepSection is the report's section on the study's one step, where
// the verdict and the decision are written.
func stepSection(md string) string {
	i := strings.Index(md, "\n### 1. ")
	if i < 0 {
		return "(no step section)"
	}
	rest := md[i+1:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	// Keep the prose: the benchmark blocks and charts are tested elsewhere.
	var keep []string
	fence := false
	for _, l := range strings.Split(rest, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
			continue
		}
		if !fence && strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func schemaExport(t *testing.T) {
	t.Helper()
	cli(t, nil, "schema", "export", ".")
}

func git(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// cli runs servelab in-process and decodes its JSON output into v.
func cli(t *testing.T, v any, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("servelab %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	if v != nil {
		if err := json.Unmarshal(out.Bytes(), v); err != nil {
			t.Fatalf("servelab %s: %v", strings.Join(args, " "), err)
		}
	}
}

// writeRuns stores the case's runs under the keys the plan gives.
func writeRuns(t *testing.T, c outcomeCase) {
	t.Helper()
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("studies/oc.cue")
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(s, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := store.Open("results")
	for _, tr := range p.Trials {
		side := c.base
		if tr.HasRole("try/v") {
			side = c.v
		}
		if tr.Key == "" || tr.Repeat >= len(side) {
			continue
		}
		r := side[tr.Repeat]
		rec, samples := synth(tr, r)
		if r.samples {
			_, _, err = st.PutWithSamples(rec, samples)
		} else {
			_, _, err = st.Put(rec)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// synth builds a record (and its samples) whose figures follow r.
func synth(tr *plan.Trial, r run) (*record.Record, []record.Sample) {
	kind := r.kind
	if kind == "" {
		kind = record.Measured
	}
	n := tr.Spec.Profile.Requests
	var samples []record.Sample
	sum := 0.0
	for i := range n {
		s := record.Sample{Intended: float64(i), Sent: float64(i), InputTokens: 8, OutputTokens: 4}
		if i < r.failed {
			s.Error = "HTTP 500"
		} else {
			// An even grid over mu ± spread in a scrambled order: the
			// mean is mu, the spread is real.
			s.Latency = r.mu + r.spread*(2*float64(i*7919%n)/float64(n-1)-1)
			s.TTFT = s.Latency / 4
			sum += s.Latency
		}
		samples = append(samples, s)
	}
	done := n - r.failed
	m := record.Metrics{Completed: done, Failed: record.I(r.failed), Duration: 10, InputTokens: record.I(8 * done), OutputTokens: record.I(4 * done)}
	if r.failed > 0 {
		m.FailReasons = []string{"HTTP 500"}
	}
	if !r.noMetric {
		m.Latency = &record.Dist{Mean: record.F(sum / float64(done))}
		m.TTFT = &record.Dist{Mean: record.F(sum / float64(done) / 4)}
	} else {
		m.Duration = 0 // nor can Little's law give the mean latency
	}
	rec := &record.Record{Format: record.Format, Key: tr.Key, Trial: *tr.Spec, Status: "ok", Metrics: m,
		Provenance: record.Provenance{Kind: kind, Servelab: "test"}}
	return rec, samples
}
