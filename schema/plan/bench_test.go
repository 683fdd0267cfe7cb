package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"servelab.dev/schema"
)

// bigStudy writes a study of 5,020 trials: 2 engines to select from,
// then 25 steps of 20 variants, each on 5 profiles × 2 repeats
// (2×10 + 25×20×10; the baseline is the first engine candidate).
func bigStudy(t testing.TB) string {
	var b strings.Builder
	b.WriteString(`import "servelab.dev/schema"
"big": schema.#Study & {
	title: en: "Big"
	i18n: fallback: "en"
	model: {id: "m/m", params: 8e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: {vllm: version: "0.11.0", sglang: version: "0.5.3"}
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 512, outputLen: 128}, warmup: 10, repeats: 2}
	profiles: {for r in [1, 2, 4, 8, 16] {"r\(r)": {kind: "poisson", rate: r, requests: 100}}}
	objective: {metric: "latency.mean", profile: "r8"}
	baseline: engine: "vllm"
	steps: [{id: "engine", title: en: "Engine", profiles: ["r1", "r2", "r4", "r8", "r16"], select: engines: ["vllm", "sglang"]},
`)
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&b, "\t\t{id: \"s%d\", title: en: \"S%d\", profiles: [\"r1\", \"r2\", \"r4\", \"r8\", \"r16\"], variants: [", i, i)
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "{name: \"v%d\", knobs: maxSeqs: %d},", j, 1000*i+j+1)
		}
		b.WriteString("]},\n")
	}
	b.WriteString("\t]\n}\n")
	f := filepath.Join(t.TempDir(), "big.cue")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// keepAll decides every step: select steps adopt their first candidate,
// try steps keep the incumbent, so every step's trials are expanded.
type keepAll struct{}

func (keepAll) Decide(st schema.Step, _ Candidate, _ []Candidate) Decision {
	if st.IsSelect() {
		return Decision{Winner: 0, State: StepDecided}
	}
	return Decision{Winner: -1, State: StepDecided}
}

func TestBigStudySize(t *testing.T) {
	p, err := New(load(t, bigStudy(t)), Options{Decider: keepAll{}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Trials); n != 5020 {
		t.Fatalf("%d trials, want 5020", n)
	}
}

func BenchmarkPlan5000(b *testing.B) {
	s := load(b, bigStudy(b))
	b.ResetTimer()
	for b.Loop() {
		if _, err := New(s, Options{Decider: keepAll{}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAndPlan5000 is what `servelab plan` does: compile the CUE
// file against the schema, then expand.
func BenchmarkLoadAndPlan5000(b *testing.B) {
	f := bigStudy(b)
	l, err := schema.NewLoader()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := l.LoadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := New(s, Options{Decider: keepAll{}}); err != nil {
			b.Fatal(err)
		}
	}
}
