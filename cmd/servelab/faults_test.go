package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/store"
)

// faultStudy is decided far from every threshold (a variant 1.6x worse,
// one 2x better, against a 5 % rule) on a closed-loop profile, where a
// starved CPU slows every request alike instead of building a queue, so
// an interrupted run must reach the decisions of an uninterrupted one.
const faultStudy = "testdata/faults/study.cue"

// faultMain makes this test binary run servelab's Main (see TestMain)
// when the fault suite starts it as a child process.
const faultMain = "SERVELAB_FAULT_MAIN"

// TestFaultInjection kills `servelab run --simulate` at seeded random
// moments (SIGINT and SIGKILL, at least 20 kills) across a whole study,
// resuming each time, and checks after every kill that the results
// folder holds no corrupt or partial record and no duplicate run, that
// no engine outlives the run that launched it for long, and at the end
// of each resumed study that the decisions equal an uninterrupted run's.
func TestFaultInjection(t *testing.T) {
	study, err := filepath.Abs(faultStudy)
	if err != nil {
		t.Fatal(err)
	}
	sim := filepath.Join(t.TempDir(), "servelab-sim") // a copy of its own: its processes are this test's
	data, err := os.ReadFile(filepath.Join(simDir, "servelab-sim"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sim, data, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &faults{t: t, study: study, sim: sim}

	began := time.Now()
	base := filepath.Join(t.TempDir(), "uninterrupted")
	if out, err := f.run(base); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	full := time.Since(began)
	want, keys := f.decisions(base), f.check(base)
	if len(keys) < 5 || !strings.Contains(want, "adopted fp8") || !strings.Contains(want, "incumbent kept") {
		t.Fatalf("the uninterrupted run decided something else than the study is built for (%d trials):\n%s", len(keys), want)
	}

	rng := rand.New(rand.NewPCG(14, 2026))
	kills, bySignal := 0, map[string]int{}
	for chain := 0; kills < 22; chain++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("chain-%d", chain))
		for k := 0; k < 6; k++ {
			sig := []syscall.Signal{syscall.SIGINT, syscall.SIGKILL}[rng.IntN(2)]
			at := time.Duration(float64(full) * (0.05 + 1.1*rng.Float64()))
			killed, out := f.runKilled(dir, sig, at)
			if os.Getenv("SERVELAB_FAULT_VERBOSE") != "" {
				t.Logf("chain %d kill %d: %s at %s (killed %v):\n%s", chain, k, sig, at, killed, out)
			}
			if !killed {
				break // the study finished first
			}
			kills++
			bySignal[sig.String()]++
			f.check(dir)
			// Before the first launch (the study still loading) SIGINT ends
			// the process at once: nothing was started, nothing is said;
			// after the last word (a loaded machine) nothing is left to say.
			started := strings.Contains(out, "launch ")
			done := strings.Contains(out, "study decided")
			if sig == syscall.SIGINT && started && !done && !strings.Contains(out, "interrupted: the trial in progress was not recorded") {
				t.Errorf("chain %d kill %d: SIGINT at %s did not say what it left:\n%s", chain, k, at, out)
			}
		}
		if out, err := f.run(dir); err != nil {
			t.Fatalf("chain %d: resume: %v\n%s", chain, err, out)
		}
		if got := f.check(dir); !slices.Equal(got, keys) {
			t.Errorf("chain %d: trials %v, an uninterrupted run has %v", chain, got, keys)
		}
		if got := f.decisions(dir); got != want {
			t.Errorf("chain %d: decisions differ from an uninterrupted run's:\n%s\nwant:\n%s\nanalyze:\n%s\nuninterrupted:\n%s", chain, got, want, f.analyze(dir), f.analyze(base))
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".engine-*")); len(left) > 0 {
			t.Errorf("chain %d: pid files left after a complete run: %v", chain, left)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*", ".tmp-*")); len(left) > 0 {
			t.Errorf("chain %d: temporary files left after a complete run: %v", chain, left)
		}
	}
	if bySignal["interrupt"] < 5 || bySignal["killed"] < 5 {
		t.Errorf("kills by signal %v: want both kinds", bySignal)
	}
	f.noEngineLeft()
	t.Logf("%d kills (%v) across the study (uninterrupted: %s)", kills, bySignal, full.Round(time.Millisecond))
}

type faults struct {
	t          *testing.T
	study, sim string
}

func (f *faults) command(dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "run", f.study, "--simulate", "--sim", f.sim, "--results", dir)
	// Longer engine steps than the simulator's default, so that a loaded
	// CI machine's scheduling delays stay small beside the differences
	// the study decides on.
	cmd.Env = append(os.Environ(), faultMain+"=1", "SERVELAB_SIM_TIMING=step=12ms")
	return cmd
}

// run runs the study to its end.
func (f *faults) run(dir string) (string, error) {
	out, err := f.command(dir).CombinedOutput()
	return string(out), err
}

// runKilled starts a run and sends sig at the given moment; killed is
// false when the run had ended by then.
func (f *faults) runKilled(dir string, sig syscall.Signal, at time.Duration) (killed bool, out string) {
	var buf bytes.Buffer
	cmd := f.command(dir)
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			f.t.Fatalf("run failed without a kill: %v\n%s", err, buf.String())
		}
		return false, buf.String()
	case <-time.After(at):
	}
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		f.t.Fatalf("servelab run still running 30 s after %s:\n%s", sig, buf.String())
	}
	return true, buf.String()
}

// check proves the results folder sound: every record whole, valid and
// named after its bytes, with its samples; one run per trial; and it
// returns the trial keys.
func (f *faults) check(dir string) []string {
	f.t.Helper()
	st := store.Open(dir)
	all, err := st.All()
	if err != nil {
		f.t.Fatalf("%s: a damaged or partial record: %v", dir, err)
	}
	if _, _, err := st.OKWithSamples(); err != nil {
		f.t.Fatalf("%s: samples: %v", dir, err)
	}
	var keys []string
	for key, runs := range all {
		if len(runs) != 1 {
			f.t.Errorf("%s: trial %s has %d runs, want 1", dir, key[:12], len(runs))
		}
		if runs[0].Record.Status != "ok" {
			f.t.Errorf("%s: trial %s failed: %s", dir, key[:12], runs[0].Record.Reason)
		}
		keys = append(keys, key)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if n := len(files); n != len(keys) {
		f.t.Errorf("%s: %d record files for %d trials", dir, n, len(keys))
	}
	slices.Sort(keys)
	return keys
}

var decisionLine = regexp.MustCompile(`(?m)^(step .*|final .*|  [a-z].*serve .*)$`)

// decisions are analyze's decided lines: each step's verdict and the
// final command, not the figures (which vary from run to run).
//
// A step's reason is left out: for a variant within a percent of its
// incumbent, the simulator's wall-clock timing under load can swap "not
// better" for "below the minimum gain", while what an interruption must
// not change is what was kept or adopted and the final command.
func (f *faults) decisions(dir string) string {
	lines := decisionLine.FindAllString(f.analyze(dir), -1)
	for i, l := range lines {
		lines[i] = reason.ReplaceAllString(l, "$1")
	}
	return strings.Join(lines, "\n")
}

var reason = regexp.MustCompile(`^(step .*) \([a-z-]+\)$`)

func (f *faults) analyze(dir string) string {
	var out, errb bytes.Buffer
	if code := Main([]string{"analyze", f.study, "--results", dir}, &out, &errb); code != 0 {
		f.t.Fatalf("analyze %s: exit %d: %s", dir, code, errb.String())
	}
	return out.String()
}

// noEngineLeft checks that no servelab-sim this test launched still runs
// (an engine of a killed run is stopped by its death signal or reaped by
// the next run).
func (f *faults) noEngineLeft() {
	deadline := time.Now().Add(15 * time.Second)
	for {
		var left []string
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			if exe, err := os.Readlink(p + "/exe"); err == nil && exe == f.sim {
				left = append(left, filepath.Base(p))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			f.t.Errorf("engines still running: pids %v", left)
			for _, p := range left {
				var pid int
				fmt.Sscan(p, &pid)
				if id, err := engine.Identify(pid); err == nil && id.Exe == f.sim {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
