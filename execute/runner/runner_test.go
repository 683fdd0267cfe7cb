package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/engine"
	"servelab.dev/execute/sim"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// inProcessSim runs the engines as in-process simulators: inside a
// synctest bubble, on its virtual clock.
var inProcessSim = sim.Launcher{Clock: sim.Timer}

func inProcess(dir string) Options {
	return Options{Results: dir, Simulate: true, Launcher: inProcessSim, HealthTimeout: 10 * time.Second}
}

// fourProfiles is a study whose configurations each run 4 profiles.
const fourProfiles = `import "servelab.dev/schema"
"four": schema.#Study & {
	title: en: "Four"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: {vllm: version: "0.11.0", sglang: version: "0.5.3"}
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 4}, api: "completions", warmup: 0, output: ignoreEos: true}
	profiles: {for c in [1, 2, 3, 4] {"c\(c)": {kind: "concurrency", concurrency: c, requests: 4}}}
	objective: {metric: "ttft.mean", profile: "c1"}
	baseline: engine: "vllm"
	steps: [{id: "engine", title: en: "E", profiles: ["c1", "c2", "c3", "c4"], select: engines: ["vllm", "sglang"]}]
}
`

func study(t testing.TB, src string) *schema.Study {
	t.Helper()
	f := filepath.Join(t.TempDir(), "s.cue")
	os.WriteFile(f, []byte(src), 0o644)
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOneLaunchPerConfiguration(t *testing.T) { synctest.Test(t, testOneLaunchPerConfiguration) }

func testOneLaunchPerConfiguration(t *testing.T) {
	s := study(t, fourProfiles)
	// Each engine takes 20 s to become healthy, as a model's load would.
	slow := sim.Launcher{Clock: sim.Timer, Faults: "slow-start=20s"}
	sum, err := Run(context.Background(), s, Options{Results: t.TempDir(), Simulate: true, Launcher: slow, HealthTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Launches != 2 || sum.Run != 8 || !sum.Decided {
		t.Errorf("%d launches for 8 trials of 2 configurations (decided %v)", sum.Launches, sum.Decided)
	}
	// The health polls see the engine 100 ms late at most.
	if sum.Bench <= 0 || sum.Overhead < 40*time.Second || sum.Overhead > 40*time.Second+200*time.Millisecond {
		t.Errorf("GPU time not split: bench %v, overhead %v (two launches of 20 s)", sum.Bench, sum.Overhead)
	}
}

// A full disk when a record is written stops the run with a clear error;
// nothing half-written is left, and the next run redoes that trial.
func TestDiskFull(t *testing.T) { synctest.Test(t, testDiskFull) }

func testDiskFull(t *testing.T) {
	s := study(t, fourProfiles)
	dir := t.TempDir()
	n := 0
	full := func(path string, data []byte) error {
		if n++; n > 3 {
			return syscall.ENOSPC
		}
		return os.WriteFile(path, data, 0o644)
	}
	_, err := Run(context.Background(), s, Options{Results: dir, Simulate: true, Launcher: inProcessSim, WriteFile: full})
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("err = %v", err)
	}
	if _, err := store.Open(dir).All(); err != nil {
		t.Errorf("the store is damaged after the failed write: %v", err)
	}
	sum, err := Run(context.Background(), s, Options{Results: dir, Simulate: true, Launcher: inProcessSim})
	if err != nil || !sum.Decided || sum.Cached == 0 {
		t.Errorf("resume: %+v %v", sum, err)
	}
}

// An engine group left behind by a servelab that died (its pid file,
// which proves the process is the engine) is stopped by the next run.
func TestReapsOrphanEngine(t *testing.T) {
	s := study(t, fourProfiles)
	dir := t.TempDir()
	orphan := exec.Command("sleep", "60")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { orphan.Wait(); close(done) }()
	os.MkdirAll(dir, 0o755)
	id, err := engine.Identify(orphan.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".engine-0123456789abcdef.pid"), id.Encode(), 0o644)
	var log strings.Builder
	if _, err := Run(context.Background(), s, Options{Results: dir, Simulate: true, Launcher: inProcessSim, Progress: &log, MaxTrials: 1}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the orphan engine is still running")
	}
	if !strings.Contains(log.String(), "left by an earlier run") {
		t.Errorf("not reported: %s", log.String())
	}
}

// With two GPUs the engine candidates run at once, each on its own GPU.
func TestGroupsInParallelOnGPUs(t *testing.T) { synctest.Test(t, testGroupsInParallelOnGPUs) }

func testGroupsInParallelOnGPUs(t *testing.T) {
	s := study(t, fourProfiles)
	dir := t.TempDir()
	var log strings.Builder
	sum, err := Run(context.Background(), s, Options{Results: dir, Simulate: true, Launcher: inProcessSim, GPUs: []string{"0", "1"}, Progress: &syncWriter{w: &log}})
	if err != nil || !sum.Decided || sum.Launches != 2 {
		t.Fatalf("%+v %v", sum, err)
	}
	for _, g := range []string{"GPUs 0", "GPUs 1"} {
		if !strings.Contains(log.String(), g) {
			t.Errorf("no launch on %s:\n%s", g, log.String())
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "engine.log"))
	seen := map[string]bool{}
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		for _, id := range []string{`CUDA_VISIBLE_DEVICES="0"`, `CUDA_VISIBLE_DEVICES="1"`} {
			if strings.Contains(string(b), id) {
				seen[id] = true
			}
		}
	}
	if len(seen) != 2 {
		t.Errorf("engines saw GPUs %v", seen)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Repeats go round by round across variants.
func TestGroupsInterleaveRepeats(t *testing.T) {
	mk := func(variant string, rep int) *plan.Trial {
		return &plan.Trial{Key: fmt.Sprint(variant, rep), Variant: variant, Repeat: rep, Kind: "vllm", Argv: []string{"vllm", variant}}
	}
	gs := groups([]*plan.Trial{mk("a", 0), mk("a", 1), mk("b", 0), mk("b", 1)})
	var got []string
	for _, g := range gs {
		got = append(got, g[0].Key)
	}
	if strings.Join(got, " ") != "a0 b0 a1 b1" {
		t.Errorf("order %v", got)
	}
}

// threeConfigs has three configurations (two engines, then one variant on
// the winner), each repeated three times, with prompt lengths that vary
// from prompt to prompt so that two draws can be told apart.
const threeConfigs = `import "servelab.dev/schema"
"three": schema.#Study & {
	title: en: "Three"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: {vllm: version: "0.11.0", sglang: version: "0.5.3"}
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 64, outputLen: 4, rangeRatio: 0.5}, api: "completions", warmup: 0, repeats: 3, output: ignoreEos: true}
	profiles: {c1: {kind: "concurrency", concurrency: 1, requests: 6}, c2: {kind: "concurrency", concurrency: 2, requests: 6}}
	objective: {metric: "ttft.mean", profile: "c1"}
	baseline: engine: "vllm"
	steps: [
		{id: "engine", title: en: "E", profiles: ["c1", "c2"], select: engines: ["vllm", "sglang"]},
		{id: "seqs", title: en: "S", profiles: ["c1", "c2"], variants: [{name: "4", knobs: maxSeqs: 4}]},
	]
}
`

// Each repeat is its own launch, draws its own prompts, and the trials
// after the first of a launch find the engine's prefix cache reset.
func TestRepeatsAreIndependent(t *testing.T) { synctest.Test(t, testRepeatsAreIndependent) }

func testRepeatsAreIndependent(t *testing.T) {
	s := study(t, threeConfigs)
	dir := t.TempDir()
	sum, err := Run(context.Background(), s, Options{Results: dir, Simulate: true, Launcher: inProcessSim, HealthTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Launches != 9 || sum.Run != 18 {
		t.Errorf("%d launches, %d runs: want 9 launches (3 configurations × 3 repeats) and 18 runs", sum.Launches, sum.Run)
	}
	runs, samples, err := store.Open(dir).OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	lengths := map[string][]string{} // "variant profile" → input lengths per repeat
	resets := 0
	for _, rs := range runs {
		for _, r := range rs {
			var in []string
			for _, x := range samples[r] {
				in = append(in, fmt.Sprint(x.InputTokens))
			}
			id := fmt.Sprint(r.Trial.Argv, r.Trial.Profile)
			lengths[id] = append(lengths[id], strings.Join(in, ","))
			if r.Seeds == nil {
				t.Errorf("record %s has no seeds", r.Key[:12])
			}
			for _, n := range r.Notes {
				if strings.HasPrefix(n, "prefix cache reset before this run") {
					resets++
				}
			}
		}
	}
	for id, ls := range lengths {
		if len(ls) != 3 {
			t.Errorf("%s: %d repeats recorded, want 3", id, len(ls))
		}
		for i := range ls {
			for j := range i {
				if ls[i] == ls[j] {
					t.Errorf("%s: repeats %d and %d sent the same prompts (%s)", id, j, i, ls[i])
				}
			}
		}
	}
	// Two profiles a launch: the second trial of each of the 9 launches.
	if resets != 9 {
		t.Errorf("%d runs found the prefix cache reset, want 9", resets)
	}
}

// searchStudy finds each configuration's highest constant rate with a
// P90 TTFT under 100 ms on servelab-sim, whose capacity is known: a slot
// holds a request for its 16 decode steps of 6 ms + 50 µs per running
// sequence, so 4 slots serve 4 / (16 × 6.2 ms) ≈ 40 req/s and 8 slots
// 8 / (16 × 6.4 ms) ≈ 78 req/s. Past that, the queue grows and TTFT with it.
const searchStudy = `import "servelab.dev/schema"
"search": schema.#Study & {
	title: en: "Search"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: vllm: version: "0.11.0"
	base: knobs: maxSeqs: 4
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 16}, api: "completions", warmup: 2, output: ignoreEos: true}
	profiles: cap: {kind: "search", requests: 80, search: {low: 20, high: 120, precision: 8, arrivals: "constant"}}
	objective: {metric: "capacity", profile: "cap", minGain: 0.2, constraints: [{metric: "ttft.p90", max: 100}]}
	baseline: engine: "vllm"
	steps: [{id: "seqs", title: en: "S", variants: [{name: "8", knobs: maxSeqs: 8}]}]
}
`

func TestCapacitySearch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if errs := capacitySearch(t); len(errs) > 0 {
			t.Error(strings.Join(errs, "\n"))
		}
	})
}

func capacitySearch(t *testing.T) []string {
	s := study(t, searchStudy)
	_, _, a := runSimulated(t, s)
	st := a.Steps[0]
	if st.Incumbent == nil || st.Incumbent.Search == nil || len(st.Options) != 1 || st.Options[0].Search == nil {
		t.Fatalf("no searches in %+v", st)
	}
	var errs []string
	max := plan.MaxProbes(*s.Profiles["cap"].Search)
	for _, c := range []struct {
		o    decide.Option
		want float64
	}{{*st.Incumbent, 40.3}, {st.Options[0], 78.1}} {
		sr := c.o.Search
		// On the virtual clock, within the search's precision.
		if sr.Capacity > c.want+8 || sr.Capacity < c.want-8 {
			errs = append(errs, fmt.Sprintf("%s: capacity %.1f req/s (probes %v), the model says %.1f", c.o.Variant, sr.Capacity, sr.Probes, c.want))
		}
		if sr.Bracket[1]-sr.Bracket[0] > 8 || len(sr.Probes) > max {
			errs = append(errs, fmt.Sprintf("%s: bracket %v after %d probes (bisection needs at most %d)", c.o.Variant, sr.Bracket, len(sr.Probes), max))
		}
	}
	if st.Outcome != decide.Adopted {
		errs = append(errs, fmt.Sprintf("step %s (%s): want 8 slots adopted for about twice the capacity", st.Outcome, st.Detail))
	}
	return errs
}

// A group's key names its launch and repeat, whichever trials are left:
// a restarted cluster driver finds the same job name.
func TestGroupKey(t *testing.T) {
	a := &plan.Trial{Kind: "vllm", Version: "v1", Argv: []string{"vllm", "serve", "m"}, Profile: "c1", Key: "k1"}
	b := &plan.Trial{Kind: "vllm", Version: "v1", Argv: []string{"vllm", "serve", "m"}, Profile: "c4", Key: "k2"}
	r := &plan.Trial{Kind: "vllm", Version: "v1", Argv: []string{"vllm", "serve", "m"}, Profile: "c1", Key: "k3", Repeat: 1}
	o := &plan.Trial{Kind: "vllm", Version: "v1", Argv: []string{"vllm", "serve", "m", "--x=1"}, Profile: "c1", Key: "k4"}
	if GroupKey(a) != GroupKey(b) || len(GroupKey(a)) != 16 {
		t.Errorf("one launch, two keys: %s %s", GroupKey(a), GroupKey(b))
	}
	if GroupKey(a) == GroupKey(r) || GroupKey(a) == GroupKey(o) {
		t.Error("a repeat or another configuration shares the group key")
	}
}
