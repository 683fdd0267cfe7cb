package record

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"servelab.dev/schema/plan"
)

func sample() *Record {
	spec := plan.Spec{Schema: 1, Engine: plan.EngineSpec{Kind: "sglang", Version: "v0.5"}, Model: plan.ModelSpec{ID: "m/m"},
		Argv: []string{"python3", "-m", "sglang.launch_server"}, Hardware: plan.HardwareSpec{GPU: "NVIDIA H200", Count: 1},
		Profile:   plan.ProfileSpec{Kind: "constant", Requests: 10, Rate: 2},
		Benchmark: plan.BenchmarkSpec{Client: "builtin", Dataset: plan.DatasetSpec{Name: "random"}, API: "chat"}}
	return &Record{Format: Format, Key: spec.Key(), Trial: spec, Status: "ok",
		Provenance: Provenance{Kind: Imported, Source: "x.txt", SourceFormat: "vllm-text", Servelab: "test"},
		Metrics:    Metrics{Completed: 10, Duration: 5, TTFT: &Dist{Mean: F(30), P99: F(60)}}}
}

func TestRoundTrip(t *testing.T) {
	b, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := Encode(r)
	if string(b) != string(b2) {
		t.Errorf("not stable:\n%s\n%s", b, b2)
	}
}

func TestDecodeRefuses(t *testing.T) {
	good, _ := Encode(sample())
	cases := map[string]string{
		"truncated":     string(good[:len(good)-10]),
		"unknown field": strings.Replace(string(good), `"status"`, `"colour": 1, "status"`, 1),
		"wrong key":     strings.Replace(string(good), sample().Key, strings.Repeat("0", 64), 1),
		"bad status":    strings.Replace(string(good), `"status": "ok"`, `"status": "fine"`, 1),
		"old format":    strings.Replace(string(good), Format, "servelab.record/v0", 1),
		"two records":   string(good) + string(good),
	}
	for name, data := range cases {
		if _, err := Decode([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Decode(good[:len(good)-10]); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated: %v", err)
	}
}

// Impossible figures are refused with the field named as in the JSON.
func TestCheckNamesTheField(t *testing.T) {
	cases := map[string]func(r *Record){
		"metrics.ttftMs.mean: -1 is negative":           func(r *Record) { r.Metrics.TTFT.Mean = F(-1) },
		"metrics.ttftMs.p99: 20 is below p50 40":        func(r *Record) { r.Metrics.TTFT.P50, r.Metrics.TTFT.P99 = F(40), F(20) },
		"metrics.failed: -2 is negative":                func(r *Record) { r.Metrics.Failed = I(-2) },
		"metrics.outputThroughput: NaN is not a finite": func(r *Record) { r.Metrics.OutputThroughput = F(math.NaN()) },
		"metrics.duration: +Inf is not a finite":        func(r *Record) { r.Metrics.Duration = math.Inf(1) },
		"metrics.late: 11 late of 10 requests":          func(r *Record) { r.Metrics.Late, r.Metrics.Failed = 11, I(0) },
		"status ok with metrics.completed 0":            func(r *Record) { r.Metrics.Completed = 0 },
		"metrics.rounding.ttftMs: -0.01 is negative":    func(r *Record) { r.Metrics.Rounding = map[string]float64{"ttftMs": -0.01} },
		"metrics.scheduleLagMs.std: -3 is negative":     func(r *Record) { r.Metrics.ScheduleLag = &Dist{Std: F(-3)} },
		"provenance.gpus[1].index: -2 is not a GPU":     func(r *Record) { r.Provenance.GPUs = []GPU{{Index: 0}, {Index: -2}} },
	}
	for want, edit := range cases {
		r := sample()
		edit(r)
		if err := r.Check(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
}

// Committed records decode and encode to the same bytes, those written
// before provenance named the GPUs (no gpus field then) as well as
// later ones: the store names each file after the hash of its bytes,
// and that name must not change. A record with GPUs carries them
// through.
func TestProvenanceGPUsCompatible(t *testing.T) {
	files, _ := filepath.Glob("../../results/*/*.json")
	n, older := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, ".samples.json") {
			continue
		}
		old, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Decode(old)
		if err != nil {
			continue // not a record (a sidecar of another name): the store's tests cover those
		}
		n++
		b, _ := Encode(r)
		if string(b) != string(old) {
			t.Errorf("%s: re-encoded to other bytes", f)
		}
		if strings.Contains(string(old), `"gpus"`) != (len(r.Provenance.GPUs) > 0) {
			t.Errorf("%s: its gpus field and the decoded GPUs disagree", f)
		}
		if len(r.Provenance.GPUs) == 0 {
			older++
		}
	}
	if n == 0 || older == 0 {
		t.Fatalf("%d committed records under results/, %d of them without GPUs: the test needs both", n, older)
	}
	r := sample()
	r.Provenance.GPUs = []GPU{{Index: 1, UUID: "GPU-1", Name: "NVIDIA H200", MemoryMiB: 143771, UsedMiB: 5}, {Index: -1, UUID: "MIG-2"}}
	b, _ := Encode(r)
	got, err := Decode(b)
	if err != nil || len(got.Provenance.GPUs) != 2 || got.Provenance.GPUs[0] != r.Provenance.GPUs[0] || got.Provenance.GPUs[1].Index != -1 {
		t.Errorf("gpus did not round-trip: %+v %v", got, err)
	}
}

// FuzzDecode: the loader never panics, and what it accepts re-encodes
// and decodes to the same bytes.
func FuzzDecode(f *testing.F) {
	good, _ := Encode(sample())
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"format":"servelab.record/v1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			return
		}
		b, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := Decode(b)
		if err != nil {
			t.Fatalf("re-encoded record refused: %v", err)
		}
		b2, _ := Encode(r2)
		if string(b) != string(b2) {
			t.Fatal("encoding not stable")
		}
	})
}

func FuzzDecodeSamples(f *testing.F) {
	good, _ := EncodeSamples([]Sample{{Intended: 0, Sent: 0.001, TTFT: 30, Latency: 900, Gaps: []float64{7, 8}, OutputTokens: 100}})
	f.Add(good)
	f.Add(good[:len(good)/2])
	withEngine, _ := EncodeSidecar([]Sample{{Intended: 0, Sent: 0.001, Claimed: 12, Connect: 0.2}},
		&EngineSeries{Source: "vllm", Points: []EnginePoint{{T: 0, Running: F(1)}, {T: 1, Accepted: F(3), DraftTokens: F(4)}}})
	f.Add(withEngine)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, e, err := DecodeSidecar(data)
		if err != nil {
			return
		}
		b, err := EncodeSidecar(s, e)
		if err != nil {
			t.Fatalf("an accepted sidecar does not re-encode: %v", err)
		}
		if _, _, err := DecodeSidecar(b); err != nil {
			t.Fatal(err)
		}
	})
}
