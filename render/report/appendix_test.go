package report

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"servelab.dev/execute/store"
)

// Every run a figure pools is in the appendix, also one of a trial the
// study no longer plans (the H200 study's shared-prefix final has one
// from an earlier session), and the page's run count says as many.
func TestAppendixHoldsEveryPooledRun(t *testing.T) {
	s, a := h200Study(t)
	md := markdownOf(t, s, a, store.Open("../../results"), "en")
	m := regexp.MustCompile(`Figures on this page: (\d+) runs`).FindStringSubmatch(md)
	if m == nil {
		t.Fatal("no run count on the page")
	}
	n, _ := strconv.Atoi(m[1])
	blocks := strings.Count(md, "Output token throughput (tok/s):")
	if blocks != n {
		t.Errorf("the appendix holds %d benchmark blocks, the page counts %d runs", blocks, n)
	}
	if !strings.Contains(md, "### Earlier runs pooled into these figures") || !strings.Contains(md, "308.36") {
		t.Error("the earlier shared-prefix run of the final configuration (308.36 tok/s) is not in the appendix")
	}
}

// An import note every 9B run carries with its own figure (the source's
// peak concurrency) is said once before the runs, not under each.
func TestSharedNoteWithOwnFigures(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	a.Runs = runs
	md := plainEN(t, s, a)
	if n := strings.Count(md, "is not a cap (the profile has none)"); n != 1 {
		t.Errorf("the peak-concurrency note appears %d times, want once", n)
	}
	if !strings.Contains(md, "each run keeps it as its observed peak") {
		t.Error("the shared form of the note is missing")
	}
}

// A planned trial without a run is listed once at the end of the
// appendix, not among the runs.
func TestUnrunTrialsListedLast(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	key := a.Plan.Trials[len(a.Plan.Trials)-1].Key
	runs = maps.Clone(runs)
	delete(runs, key)
	a.Runs = runs
	md := plainEN(t, s, a)
	_, tail, ok := strings.Cut(md, "Planned runs not made yet")
	if !ok || !strings.Contains(tail, key[:12]) {
		t.Fatalf("the unrun trial %s is not listed at the end", key[:12])
	}
	if strings.Count(md, key[:12]) != 1 {
		t.Errorf("the unrun trial %s appears %d times, want once", key[:12], strings.Count(md, key[:12]))
	}
}

// A later run's peer command is said as the options that differ from
// the first one's; another program, or a dropped option, needs it whole.
func TestOptionDiff(t *testing.T) {
	first := []string{"vllm", "bench", "serve", "--model", "m", "--request-rate", "8", "--ignore-eos", "--x=1"}
	for _, tc := range []struct {
		b    []string
		want []string
		ok   bool
	}{
		{[]string{"vllm", "bench", "serve", "--model", "m", "--request-rate", "4", "--ignore-eos", "--x=1"}, []string{"--request-rate 4"}, true},
		{[]string{"vllm", "bench", "serve", "--model", "m", "--request-rate", "8", "--ignore-eos", "--x=2", "--seed", "1"}, []string{"--x=2", "--seed 1"}, true},
		{first, nil, true},
		{[]string{"vllm", "bench", "serve", "--model", "m", "--request-rate", "8", "--x=1"}, nil, false},
		{[]string{"guidellm", "--model", "m", "--request-rate", "8", "--ignore-eos", "--x=1"}, nil, false},
	} {
		got, ok := optionDiff(first, tc.b)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q %v, want %q %v", tc.b, got, ok, tc.want, tc.ok)
		}
	}
}
