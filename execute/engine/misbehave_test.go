package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shell is a Spec whose engine is a shell script; the host and port
// flags servelab appends reach the script as its arguments.
func shell(t *testing.T, script string) Spec {
	return Spec{Name: "t", Argv: []string{"sh", "-c", script, "sh"}, FlagStyle: "equals", HostFlag: "host", PortFlag: "port",
		Health: "/health", Log: filepath.Join(t.TempDir(), "engine.log"), StopGrace: time.Second}
}

// leftOf fails the test for every process of p's launch still alive:
// in its process group or carrying its mark.
func leftOf(t *testing.T, p *Process) {
	t.Helper()
	if p == nil {
		t.Fatal("no process to check")
	}
	for _, st := range launchProcs(p.Pgid(), p.mark) {
		t.Errorf("pid %d (%s) of the launch is still alive", st.PID, st.Comm)
	}
}

// vmHWM is this process's peak resident memory in bytes.
func vmHWM(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}

// An engine that prints without pause and never becomes healthy: the
// log stays within its cap, servelab's memory stays bounded, and the
// failure's tail is the end of what it printed.
func TestSpewingEngineIsBounded(t *testing.T) {
	s := shell(t, `while :; do yes "spew spew spew spew spew spew spew spew" | head -c 8388608; done`)
	p, err := Start(context.Background(), s, 4*time.Second)
	if err == nil || !strings.Contains(err.Error(), "not healthy after 4s") || !strings.Contains(err.Error(), "spew spew") {
		t.Fatalf("err = %v", err)
	}
	leftOf(t, p)
	var total int64
	for _, f := range []string{s.Log, s.Log + ".tail", s.Log + ".tail.1"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatalf("%s: %v (the engine printed well beyond the head)", f, err)
		}
		total += fi.Size()
	}
	if limit := int64(LogHead + 2*LogTail + 4096); total > limit {
		t.Errorf("the logs hold %d bytes, over the cap of %d", total, limit)
	}
	if hwm := vmHWM(t); hwm > 200<<20 {
		t.Errorf("peak resident memory %d MiB, want under 200", hwm>>20)
	}
	t.Logf("logs %d MiB in all; peak resident memory %d MiB", total>>20, vmHWM(t)>>20)
}

// A wrapper that starts the server in the background and returns: the
// launch fails saying so, and the server it left is stopped.
func TestWrapperThatReturns(t *testing.T) {
	p, err := Start(context.Background(), shell(t, `"`+simBin+`" vllm serve m/m "$@" & exit 0`), 10*time.Second)
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit status 0: the command returned") {
		t.Fatalf("err = %v", err)
	}
	leftOf(t, p)
}

// A daemon: the engine's worker moves to a session of its own and the
// first process returns. Its mark finds it.
func TestDaemonizedEngine(t *testing.T) {
	p, err := Start(context.Background(), shell(t, `setsid sleep 300 >/dev/null 2>&1 < /dev/null & exit 0`), 10*time.Second)
	if !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v", err)
	}
	leftOf(t, p)
}

// A healthy engine with a worker that ignores SIGTERM: Stop kills it
// after the grace period, and nothing of the group is left.
func TestWorkerIgnoresSIGTERM(t *testing.T) {
	s := shell(t, `(trap "" TERM; exec sleep 300) & exec "`+simBin+`" vllm serve m/m "$@"`)
	p, err := Start(context.Background(), s, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.Stop()
	leftOf(t, p)
	if len(p.Survivors()) > 0 {
		t.Errorf("survivors: %v", p.Survivors())
	}
}

// An engine that dies at once: its last words are in the failure, though
// the process exits before servelab has copied them from its pipe.
func TestCrashSaysWhy(t *testing.T) {
	for i := range 20 {
		p, err := Start(context.Background(), shell(t, `echo "CUDA out of memory" >&2; exit 3`), 10*time.Second)
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "CUDA out of memory") {
			t.Fatalf("launch %d: err = %v", i, err)
		}
		leftOf(t, p)
	}
}

// A relaunch writes a new log: the tail files of an earlier, longer log
// of the same trial are not quoted as its own.
func TestRelaunchForgetsOldTail(t *testing.T) {
	spec := shell(t, `echo "fresh start failed" >&2; exit 3`)
	if err := os.WriteFile(spec.Log+".tail", []byte("old launch's last words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), spec, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "fresh start failed") || strings.Contains(err.Error(), "old launch") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(spec.Log + ".tail"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old tail file is still there: %v", err)
	}
}
