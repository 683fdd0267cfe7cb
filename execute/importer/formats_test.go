package importer

import (
	"reflect"
	"strings"
	"testing"
)

// Every format is registered once, listed in rank order, and the only
// names Parse accepts.
func TestFormats(t *testing.T) {
	want := []string{"vllm-text", "vllm-json", "vllm-sweep", "sglang-text", "sglang-jsonl", "guidellm", "aiperf-json", "inference-perf"}
	if got := Formats(); !reflect.DeepEqual(got, want) {
		t.Errorf("Formats() = %v, want %v", got, want)
	}
	_, err := Parse("csv", []byte("x"))
	if err == nil || err.Error() != `unknown format "csv" (want `+strings.Join(want, ", ")+")" {
		t.Errorf("unknown format: %v", err)
	}
	for _, name := range Formats() {
		if _, err := Parse(name, []byte("not a benchmark")); err == nil || strings.Contains(err.Error(), "unknown format") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
