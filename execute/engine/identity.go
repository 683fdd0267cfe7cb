package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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
}

// Identify reads pid's identity from /proc.
func Identify(pid int) (Identity, error) {
	id := Identity{Pid: pid}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return id, err
	}
	if id.Start, err = startTime(stat); err != nil {
		return id, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return id, err
	}
	id.Boot = strings.TrimSpace(string(boot))
	if id.Exe, err = os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil {
		return id, err
	}
	return id, nil
}

// startTime is field 22 of a stat line; the command name (field 2) may
// hold spaces and parentheses, so fields are counted after its last ')'.
func startTime(stat []byte) (uint64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return 0, errors.New("too few fields")
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// pgidOf is field 5 of a stat line, the process group.
func pgidOf(stat []byte) int { return statField(stat, 2) }

// statField is the i-th number after the command name of a stat line
// (1 the parent, 2 the process group); -1 when there is none.
func statField(stat []byte, i int) int {
	j := bytes.LastIndexByte(stat, ')')
	if j < 0 {
		return -1
	}
	f := strings.Fields(string(stat[j+1:]))
	if len(f) <= i {
		return -1
	}
	v, err := strconv.Atoi(f[i])
	if err != nil {
		return -1
	}
	return v
}

// zombie reports a process that has exited and waits for its parent:
// nothing to stop.
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && bytes.HasPrefix(bytes.TrimLeft(stat[i+1:], " "), []byte("Z"))
}

// Encode is the pid file's text.
func (id Identity) Encode() []byte {
	return fmt.Appendf(nil, "pid %d\nstart %d\nboot %s\nexe %s\n", id.Pid, id.Start, id.Boot, id.Exe)
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
func writePidFile(path string, pid int) error {
	id, err := Identify(pid)
	if err != nil {
		return err
	}
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
	err := writePidFile(path, p.cmd.Process.Pid)
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
	now, err := Identify(id.Pid)
	switch {
	case err == nil && now == id:
		stopGroup(id.Pid)
		return fmt.Sprintf("stopped engine process group %d (%s) left by an earlier run", id.Pid, filepath.Base(id.Exe))
	case err == nil:
		return fmt.Sprintf("removed stale %s: pid %d is now another process (%s), left alone", path, id.Pid, filepath.Base(now.Exe))
	}
	if n := stopMembers(id); n > 0 {
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
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if strings.TrimSpace(string(boot)) != id.Boot {
		return 0
	}
	n := 0
	eachProcess(func(pid int, stat []byte) {
		if pgidOf(stat) != id.Pid || zombie(stat) {
			return
		}
		if st, err := startTime(stat); err == nil && st >= id.Start {
			syscall.Kill(pid, syscall.SIGKILL)
			n++
		}
	})
	return n
}

// eachProcess calls fn with the pid and stat line of every process
// /proc lists, skipping those gone before their line was read.
func eachProcess(fn func(pid int, stat []byte)) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		stat, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		fn(pid, stat)
	}
}
