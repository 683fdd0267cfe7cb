package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"servelab.dev/schema"
)

// profileStudy writes a study whose one profile is given as CUE.
func profileStudy(t *testing.T, profile, step string) string {
	t.Helper()
	src := `import "servelab.dev/schema"
"p": schema.#Study & {
	title: en: "P"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: vllm: version: "0.11.0"
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 4}, warmup: 0, seed: 1}
	profiles: r: ` + profile + `
	objective: {metric: "ttft.mean", profile: "r"}
	baseline: engine: "vllm"
	steps: [` + step + `]
}
`
	f := filepath.Join(t.TempDir(), "s.cue")
	os.WriteFile(f, []byte(src), 0o644)
	return f
}

const oneStep = `{id: "s", title: en: "S", variants: [{name: "v", knobs: maxSeqs: 8}]}`

func baselineKey(t *testing.T, profile string) string {
	t.Helper()
	p, err := New(load(t, profileStudy(t, profile, oneStep)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Trials[0].Key
}

// A default written out hashes as the default left out; a profile's own
// seed changes the key (it changes the prompts).
func TestProfileKeysNormalised(t *testing.T) {
	omitted := baselineKey(t, `{kind: "poisson", rate: 4, requests: 10}`)
	if got := baselineKey(t, `{kind: "poisson", rate: 4, requests: 10, burstiness: 1}`); got != omitted {
		t.Errorf("burstiness 1 gives key %s, omitted gives %s", got[:12], omitted[:12])
	}
	if got := baselineKey(t, `{kind: "poisson", rate: 4, requests: 10, burstiness: 0.5}`); got == omitted {
		t.Error("burstiness 0.5 hashes as Poisson")
	}
	if got := baselineKey(t, `{kind: "poisson", rate: 4, requests: 10, seed: 1}`); got != omitted {
		t.Error("a profile seed equal to the study's changes the key")
	}
	if got := baselineKey(t, `{kind: "poisson", rate: 4, requests: 10, seed: 2}`); got == omitted {
		t.Error("a profile seed of its own leaves the key unchanged")
	}
}

// A step's own repeats apply to its variants and to the incumbent it is
// compared with, not to the baseline's other trials.
func TestStepRepeats(t *testing.T) {
	f := profileStudy(t, `{kind: "concurrency", concurrency: 2, requests: 10}`,
		`{id: "s", title: en: "S", repeats: 3, variants: [{name: "v", knobs: maxSeqs: 8}]}`)
	p, err := New(load(t, f), Options{})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, tr := range p.Trials {
		role := tr.Step + "/" + tr.Variant
		count[role]++
		for _, a := range tr.Also {
			if strings.HasSuffix(a, "/incumbent") {
				count[a]++
			}
		}
	}
	if count["s/v"] != 3 || count["baseline/baseline"] != 1 || count["s/incumbent"] != 3 {
		t.Errorf("trials by role: %v; want s/v 3, baseline/baseline 1, s/incumbent 3 (repeat 0 is the baseline trial)", count)
	}
}

// Once the engine is chosen, a step pinned to another engine is skipped
// even while an earlier step still waits for records.
func TestPinnedStepSkippedBehindWaitingStep(t *testing.T) {
	p, err := New(load(t, study000), Options{Decider: scripted{"engine": "sglang"}})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, st := range p.Steps {
		states[st.ID] = st.Status
	}
	if states["prefix-cache"] != StepWaiting || states["speculative-decoding"] != StepSkipped || states["language-model-only"] != StepSkipped {
		t.Errorf("states %v: want prefix-cache waiting, the vLLM-pinned steps skipped", states)
	}
	for _, tr := range p.Trials {
		if tr.Step == "speculative-decoding" {
			t.Errorf("a skipped step lists trial %s/%s", tr.Step, tr.Variant)
		}
	}
}

// Against an oracle with a known capacity, the search brackets it to the
// precision in no more probes than bisection needs.
func TestBisect(t *testing.T) {
	sr := schema.Search{Low: 2, High: 100, Precision: 1}
	for _, capacity := range []float64{1, 2, 2.5, 17.3, 50, 99.9, 100, 140} {
		s := Bisect(sr, func(rate float64) (bool, bool) { return rate <= capacity, true })
		switch {
		case capacity < sr.Low && !s.Below, capacity >= sr.High && !s.Above:
			t.Errorf("capacity %v: below %v above %v", capacity, s.Below, s.Above)
		case capacity >= sr.Low && capacity < sr.High && (s.Bracket[0] > capacity || s.Bracket[1] <= capacity || s.Bracket[1]-s.Bracket[0] > sr.Precision):
			t.Errorf("capacity %v: bracket %v", capacity, s.Bracket)
		}
		if len(s.Probes) > MaxProbes(sr) || s.Next != 0 {
			t.Errorf("capacity %v: %d probes, next %v (at most %d)", capacity, len(s.Probes), s.Next, MaxProbes(sr))
		}
	}
	// Unknown results stop the search at the probe it needs next.
	s := Bisect(sr, func(rate float64) (bool, bool) { return true, rate == 2 })
	if s.Next != 100 || len(s.Probes) != 1 {
		t.Errorf("after the low end: next %v, probes %v", s.Next, s.Probes)
	}
}
