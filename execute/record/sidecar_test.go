package record

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"strings"
	"testing"
)

func gz(t *testing.T, text string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(text))
	w.Close()
	return b.Bytes()
}

// The engine's metric points travel in the sidecar after the samples and
// come back equal; a sidecar without them is byte for byte what it was
// before points existed.
func TestSidecarRoundTrip(t *testing.T) {
	samples := []Sample{{Intended: 0, Sent: 0.0004, TTFT: 20, Latency: 90, Gaps: []float64{7}, InputTokens: 256, OutputTokens: 2, Connect: 0.3, Claimed: 256}}
	engine := &EngineSeries{Source: "vllm", Points: []EnginePoint{
		{T: 0, Running: F(0), Waiting: F(0), KVCache: F(0)},
		{T: 1, Running: F(3), Waiting: F(1), KVCache: F(0.25), PrefixQueries: F(512), PrefixHits: F(256), DraftTokens: F(40), Accepted: F(22), Drafts: F(20)},
	}}
	data, err := EncodeSidecar(samples, engine)
	if err != nil {
		t.Fatal(err)
	}
	s, e, err := DecodeSidecar(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, samples) || !reflect.DeepEqual(e, engine) {
		t.Errorf("got %+v %+v", s, e)
	}
	if s, err := DecodeSamples(data); err != nil || len(s) != 1 {
		t.Errorf("DecodeSamples: %v, %d samples", err, len(s))
	}
	plain, _ := EncodeSamples(samples)
	old, _ := EncodeSidecar(samples, nil)
	if !bytes.Equal(plain, old) {
		t.Error("a sidecar without engine metrics changed bytes")
	}
	if _, e, _ := DecodeSidecar(plain); e != nil {
		t.Errorf("engine series %+v from a sidecar without one", e)
	}
}

func TestSidecarRefuses(t *testing.T) {
	head := `{"format":"servelab.samples/v1","count":1,"series":1,"source":"vllm"}` + "\n"
	sample := `{"t":0,"s":0}` + "\n"
	for name, c := range map[string]struct{ text, want string }{
		"point missing":  {head + sample, "0 engine metric points, header says 1"},
		"extra line":     {head + sample + `{"t":1}` + "\n" + `{"t":2}` + "\n", "more lines than the header says"},
		"negative gauge": {head + sample + `{"t":1,"running":-1}` + "\n", "want a finite non-negative number"},
		"no series said": {strings.Replace(head, `,"series":1,"source":"vllm"`, "", 1) + sample + `{"t":1}` + "\n", "more lines than the header says"},
	} {
		if _, _, err := DecodeSidecar(gz(t, c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
