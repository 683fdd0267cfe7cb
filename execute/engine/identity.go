package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// Identity proves that a process is the engine servelab launched: a pid
// alone can name anything after the engine exited or the host rebooted,
// but pid, start time (in clock ticks since boot), boot and executable
// together cannot be reused. It is written to the pid file right after
// the launch, before the health wait, so that an engine that hangs at
// start-up is reaped too.
type Identity struct {
	Pid   int
	Start uint64 // field 22 of /proc/PID/stat
	Boot  string // /proc/sys/kernel/random/boot_id
	Exe   string // /proc/PID/exe
	// Mark is the launch's markVar value, which the engine's
	// descendants carry wherever they moved ("" in an older file).
	Mark string
}

// Identify reads pid's identity from /proc.
func Identify(pid int) (Identity, error) {
	id := Identity{Pid: pid}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return id, err
	}
	st, err := p.Stat()
	if err != nil {
		return id, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	id.Start = st.Starttime
	if id.Boot, err = bootID(); err != nil {
		return id, err
	}
	if id.Exe, err = p.Executable(); err != nil {
		return id, err
	}
	return id, nil
}

// bootID names this boot: a start time is only comparable within one.
func bootID() (string, error) {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(boot)), err
}

// Encode is the pid file's text.
func (id Identity) Encode() []byte {
	b := fmt.Appendf(nil, "pid %d\nstart %d\nboot %s\nexe %s\n", id.Pid, id.Start, id.Boot, id.Exe)
	if id.Mark != "" {
		b = fmt.Appendf(b, "mark %s\n", id.Mark)
	}
	return b
}

// ParseIdentity reads a pid file's text; anything else (an old file with
// only a number, a damaged one) is an error: such a file is never
// trusted.
func ParseIdentity(b []byte) (Identity, error) {
	var id Identity
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok || seen[k] {
			return id, fmt.Errorf("line %q", line)
		}
		seen[k] = true
		var err error
		switch k {
		case "pid":
			id.Pid, err = strconv.Atoi(v)
		case "start":
			id.Start, err = strconv.ParseUint(v, 10, 64)
		case "boot":
			id.Boot = v
		case "exe":
			id.Exe = v
		case "mark":
			id.Mark = v
		default:
			err = fmt.Errorf("unknown field %q", k)
		}
		if err != nil {
			return id, err
		}
	}
	if id.Pid <= 1 || id.Start == 0 || id.Boot == "" || id.Exe == "" {
		return id, errors.New("incomplete (wants pid, start, boot and exe)")
	}
	return id, nil
}

// writePidFile records the engine's identity beside the results, through
// a temporary file and a rename.
func writePidFile(path string, pid int, mark string) error {
	id, err := Identify(pid)
	if err != nil {
		return err
	}
	id.Mark = mark
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, id.Encode(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// record writes the pid file, if one is asked for. An engine that exited
// at once has no identity left to read, and nothing to reap: the health
// wait reports its exit.
func (p *Process) record(path string) error {
	if path == "" {
		return nil
	}
	err := writePidFile(path, p.cmd.Process.Pid, p.mark)
	if err == nil {
		return nil
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(time.Second):
		return fmt.Errorf("recording the engine's identity in %s: %w", path, err)
	}
}

// Reap acts on a pid file left by a servelab that died: when the process
// it names is still the engine that servelab launched (same pid, start
// time, boot and executable), its process group is stopped (SIGTERM,
// then SIGKILL); when the leader is gone, only the members of its group
// that started after it are. The file is removed either way: a stale one
// is cleaned, never trusted. The result says what was done, for the log.
func Reap(path string) string {
	defer os.Remove(path)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("%s: %v", path, err)
	}
	id, err := ParseIdentity(b)
	if err != nil {
		return fmt.Sprintf("removed %s without signalling anything: not a pid file this servelab wrote (%v)", path, err)
	}
	// Processes carrying the launch's random mark are its own, wherever
	// they moved; they are stopped whatever became of the first one.
	marked := 0
	if id.Mark != "" {
		marked = len(launchProcs(0, id.Mark))
		defer stopLaunch(0, id.Mark, stopGrace)
	}
	now, err := Identify(id.Pid)
	now.Mark = id.Mark
	switch {
	case err == nil && now == id:
		stopGroup(id.Pid)
		return fmt.Sprintf("stopped engine process group %d (%s) left by an earlier run", id.Pid, filepath.Base(id.Exe))
	case err == nil && marked > 0:
		return fmt.Sprintf("removed stale %s: pid %d is now another process (%s), left alone; stopped %d processes of the launch", path, id.Pid, filepath.Base(now.Exe), marked)
	case err == nil:
		return fmt.Sprintf("removed stale %s: pid %d is now another process (%s), left alone", path, id.Pid, filepath.Base(now.Exe))
	}
	if n := stopMembers(id) + marked; n > 0 {
		return fmt.Sprintf("stopped %d processes of engine group %d (%s) left by an earlier run", n, id.Pid, filepath.Base(id.Exe))
	}
	return fmt.Sprintf("removed stale %s: engine %d has exited", path, id.Pid)
}

func stopGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGTERM)
	for i := 0; i < 50 && syscall.Kill(-pgid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// stopMembers signals the processes still in the dead leader's group: a
// group id cannot be given to a new process while the group has members,
// and members of this boot that started after the leader belong to it.
func stopMembers(id Identity) int {
	if boot, _ := bootID(); boot != id.Boot {
		return 0
	}
	n := 0
	eachProcess(func(st procfs.ProcStat) {
		if st.PGRP == id.Pid && st.State != "Z" && st.Starttime >= id.Start {
			syscall.Kill(st.PID, syscall.SIGKILL)
			n++
		}
	})
	return n
}

// eachProcess calls fn with the stat of every process /proc lists,
// skipping those gone before it was read.
func eachProcess(fn func(procfs.ProcStat)) {
	procs, _ := procfs.AllProcs()
	for _, p := range procs {
		if st, err := p.Stat(); err == nil {
			fn(st)
		}
	}
}
