package plan

import (
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	p := &Plan{Trials: []*Trial{
		{Key: "76a1cd8311112222", Step: "engine", Variant: "vllm", Profile: "c4", Status: Runnable},
		{Key: "c6782d7299990000", Step: "engine", Variant: "sglang", Profile: "c4", Status: Runnable},
		{Key: "aaaa000011112222", Step: "validate", Variant: "final", Also: []string{"engine/vllm"}, Profile: "c8", Status: Runnable},
		{Key: "bbbb000011112222", Step: "validate", Variant: "final", Profile: "c8", Repeat: 1, Status: Runnable},
		{Step: "batch", Variant: "64", Profile: "c4", Status: Pending},
	}}
	for _, c := range []struct{ sel, want, err string }{
		{"76a1cd83", "76a1cd8311112222", ""},
		{"76a1cd8", "", "no trial matches"}, // under 8 digits is no key prefix
		{"engine/sglang", "c6782d7299990000", ""},
		{"engine/vllm", "", `matches 2 trials (engine/vllm/c4/0, validate/final/c8/0): add the profile or repeat`},
		{"engine/vllm/c8", "aaaa000011112222", ""}, // a role merged into the trial
		{"validate/final/c8/1", "bbbb000011112222", ""},
		{"batch/64", "", "is pending"},
		{"engine", "", "no trial matches"},
		{"a/b/c/d/e", "", "no trial matches"},
	} {
		tr, err := Select(p, c.sel)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: got %v, want an error with %q", c.sel, err, c.err)
		case c.err == "" && (err != nil || tr.Key != c.want):
			t.Errorf("%q: got %v, %v; want %s", c.sel, tr, err, c.want)
		}
	}
}

func TestUnrecorded(t *testing.T) {
	p := &Plan{Trials: []*Trial{
		{Key: "76a1cd8311112222aaaa", Step: "engine", Variant: "vllm", Profile: "c4", Status: Runnable},
		{Key: "c6782d7299990000bbbb", Step: "engine", Variant: "sglang", Profile: "c4", Status: Cached},
		{Step: "batch", Variant: "64", Profile: "c4", Repeat: 1, Status: Pending},
	}}
	want := []string{"engine/vllm/c4/0 76a1cd831111", "batch/64/c4/1 (pending)"}
	if got := Unrecorded(p); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Unrecorded(&Plan{}); len(got) != 0 {
		t.Errorf("an empty plan misses %q", got)
	}
}
