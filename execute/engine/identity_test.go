package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// unrelated starts a process in its own group that servelab did not
// launch as an engine, and stops it when the test ends.
func unrelated(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// A stale pid file never makes the reaper signal a process it cannot
// prove is its engine: an old-style file with a bare number, a file
// whose start time differs (the pid was reused), a damaged one. Each is
// removed.
func TestReapNeverTrustsStaleFiles(t *testing.T) {
	cmd := unrelated(t)
	pid := cmd.Process.Pid
	id, err := Identify(pid)
	if err != nil {
		t.Fatal(err)
	}
	reused := id
	reused.Start++
	otherExe := id
	otherExe.Exe = "/usr/bin/vllm"
	for name, content := range map[string][]byte{
		"bare number":       []byte(strconv.Itoa(pid) + "\n"),
		"other start time":  reused.Encode(),
		"other executable":  otherExe.Encode(),
		"damaged":           id.Encode()[:20],
		"duplicated fields": append(id.Encode(), []byte("pid 1\n")...),
	} {
		path := filepath.Join(t.TempDir(), ".engine-x.pid")
		os.WriteFile(path, content, 0o644)
		msg := Reap(path)
		if !alive(pid) {
			t.Fatalf("%s: the reaper killed an unrelated process (%s)", name, msg)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: pid file left in place", name)
		}
		if strings.Contains(msg, "stopped") {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// A pid file that proves its engine gets the engine's group stopped.
func TestReapStopsProvedEngine(t *testing.T) {
	cmd := unrelated(t)
	path := filepath.Join(t.TempDir(), ".engine-x.pid")
	if err := writePidFile(path, cmd.Process.Pid, ""); err != nil {
		t.Fatal(err)
	}
	msg := Reap(path)
	if !strings.HasPrefix(msg, "stopped engine process group") {
		t.Errorf("message %q", msg)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the engine is still running")
	}
}

// The pid file exists while the engine waits for health (an engine
// that hangs at start-up can be reaped) and is gone once it stopped.
func TestPidFileBeforeHealth(t *testing.T) {
	s := spec(t)
	s.Env = map[string]string{"SERVELAB_SIM_FAULT": "unhealthy"}
	s.PidFile = filepath.Join(t.TempDir(), ".engine-x.pid")
	seen := make(chan Identity, 1)
	go func() {
		for i := 0; i < 100; i++ {
			if b, err := os.ReadFile(s.PidFile); err == nil {
				if id, err := ParseIdentity(b); err == nil {
					seen <- id
					return
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		close(seen)
	}()
	_, err := Start(context.Background(), s, 1500*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "not healthy") {
		t.Fatalf("err = %v", err)
	}
	id, ok := <-seen
	if !ok || !strings.HasSuffix(id.Exe, "servelab-sim") {
		t.Fatalf("no identity during the health wait: %+v", id)
	}
	if _, err := os.Stat(s.PidFile); err == nil {
		t.Error("pid file left after the engine stopped")
	}
}

// FuzzParseIdentity: a pid file's text never panics the reaper, and what
// it accepts is complete (a pid of a process, a start time, a boot, an
// executable) and reads back the same.
func FuzzParseIdentity(f *testing.F) {
	f.Add([]byte("pid 4242\nstart 123456\nboot 5f0e6f0e-1b1a-4c0f-9a55-1e2b3c4d5e6f\nexe /usr/bin/python3.12\n"))
	f.Add([]byte("4242\n"))
	f.Add([]byte("pid 1\nstart 1\nboot x\nexe /sbin/init\n"))
	f.Add([]byte("pid 7\npid 8\nstart 1\nboot b\nexe e\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := ParseIdentity(b)
		if err != nil {
			return
		}
		if id.Pid <= 1 || id.Start == 0 || id.Boot == "" || id.Exe == "" {
			t.Fatalf("incomplete identity accepted: %+v", id)
		}
		again, err := ParseIdentity(id.Encode())
		if err != nil || again != id {
			t.Fatalf("%+v reads back as %+v (%v)", id, again, err)
		}
	})
}
