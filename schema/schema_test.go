package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loader(t testing.TB) *Loader {
	t.Helper()
	l, err := NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// loadSource loads study source src through l, from a file of the
// test's own.
func loadSource(t testing.TB, l *Loader, src string) (*Study, error) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "study.cue")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return l.LoadFile(f)
}

// Every committed study loads (CUE's TestLatest idea).
func TestCommittedStudies(t *testing.T) {
	studies, errs := loader(t).LoadPaths([]string{"../studies"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(studies) < 2 {
		t.Fatalf("%d studies", len(studies))
	}
}

// The engine kinds map only knobs #Knobs defines, with fields the knob
// has, and every mapping has exactly one form.
func TestEngineKindsMapKnownKnobs(t *testing.T) {
	l := loader(t)
	known := map[string]bool{}
	for _, k := range l.KnobOrder() {
		known[k] = true
	}
	spec := map[string]bool{"method": true, "draftModel": true, "tokens": true, "steps": true, "topk": true, "draftTokens": true}
	for kind, def := range l.Kinds() {
		for name, m := range def.Knobs {
			if !known[name] {
				t.Errorf("%s maps unknown knob %s", kind, name)
			}
			forms := 0
			for _, set := range []bool{m.Flag != "", len(m.Flags) > 0, m.On != nil || m.Off != nil, m.JSON != "", m.JSON == "" && len(m.Fields) > 0, m.Env != "", m.Option != "", m.Refuse != ""} {
				if set {
					forms++
				}
			}
			if forms != 1 {
				t.Errorf("%s.%s: %d mapping forms", kind, name, forms)
			}
			for _, f := range m.Fields {
				if !spec[f.Knob] {
					t.Errorf("%s.%s maps unknown field %s", kind, name, f.Knob)
				}
			}
		}
	}
	// llama-server has no tensor-parallel degree (--split-mode spreads
	// layers or rows over GPUs, not a count) and no reasoning parser in
	// vLLM's sense (--reasoning-format picks an output format).
	notMapped := map[string]map[string]bool{"llamacpp": {"tensorParallel": true, "reasoningParser": true}}
	for _, kind := range builtinKinds {
		for _, k := range []string{"contextLength", "maxBatchedTokens", "maxSeqs", "tensorParallel", "reasoningParser"} {
			if notMapped[kind][k] {
				continue
			}
			if _, ok := l.Kinds()[kind].Knobs[k]; !ok {
				t.Errorf("%s does not map %s", kind, k)
			}
		}
	}
}

func TestGPUFacts(t *testing.T) {
	want := map[string][2]float64{
		"NVIDIA H100 80GB HBM3": {80, 3.35},
		"NVIDIA H200":           {141, 4.8},
		"NVIDIA A100-SXM4-80GB": {80, 2.0},
		"NVIDIA L40S":           {48, 0.864},
	}
	gpus := loader(t).GPUs()
	for name, w := range want {
		g, ok := gpus[name]
		if !ok || g.MemoryGiB != w[0] || g.BandwidthTBs != w[1] {
			t.Errorf("%s: %+v, want %v GiB %v TB/s", name, g, w[0], w[1])
		}
	}
}

// A study's GPU given by a common name is refused with the nvidia-smi
// name suggested.
func TestGPUAliasHint(t *testing.T) {
	src, err := os.ReadFile("../studies/qwen3-8b-h100-latency.cue")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), `gpu: "NVIDIA H100 80GB HBM3"`, `gpu: "H100 SXM"`, 1)
	_, err = loadSource(t, loader(t), bad)
	if err == nil || !strings.Contains(err.Error(), `did you mean "NVIDIA H100 80GB HBM3"`) {
		t.Errorf("err = %v", err)
	}
}

func TestTextIn(t *testing.T) {
	x := Text{EN: "a", RU: "б"}
	if x.In("ru") != "б" || x.In("zh") != "a" || x.In("en") != "a" {
		t.Error(x.In("ru"), x.In("zh"))
	}
}
