package engine

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/procfs"
)

// ErrPortTaken means another process answers on the engine's port.
var ErrPortTaken = errors.New("port taken")

// held are the ports handed to engines of this process that have not
// stopped. An engine may take minutes to bind its port (vLLM loads the
// weights first), and the runner launches engines on several GPUs at
// once: without this, the kernel may hand the same free port to the
// next launch, and one engine's health check reach the other engine.
var held = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// kernelPort asks the kernel for a free loopback port; tests replace it.
var kernelPort = func() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FreePort is a free loopback port that no engine of this process holds,
// held until releasePort.
func FreePort() (int, error) {
	for range 64 {
		port, err := kernelPort()
		if err != nil {
			return 0, err
		}
		held.Lock()
		free := !held.ports[port]
		if free {
			held.ports[port] = true
		}
		held.Unlock()
		if free {
			return port, nil
		}
	}
	return 0, errors.New("no free loopback port that this run's engines do not hold")
}

func releasePort(port int) {
	held.Lock()
	delete(held.ports, port)
	held.Unlock()
}

// listenedBy says whether the socket listening on port belongs to the
// process pid, one of its descendants or a member of its process group
// (descendants). known is false when /proc
// cannot tell (no listener seen, a process whose descriptors cannot be
// read); the engine is then given the benefit of the doubt.
func listenedBy(pid, port int) (mine, known bool) {
	inodes := listeners(port)
	if len(inodes) == 0 {
		return false, false
	}
	known = true
	for _, pid := range descendants(pid) {
		p, err := procfs.NewProc(pid)
		if err != nil {
			known = false
			continue
		}
		links, err := p.FileDescriptorTargets()
		if err != nil {
			known = false
			continue
		}
		for _, link := range links {
			if inode, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
				return true, true
			}
		}
	}
	return false, known
}

// listeners are the inodes of the TCP sockets listening on port, on any
// address, from /proc/net/tcp and tcp6.
func listeners(port int) map[string]bool {
	const listen = 0x0A // TCP_LISTEN
	inodes := map[string]bool{}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return inodes
	}
	for _, table := range []func() (procfs.NetTCP, error){fs.NetTCP, fs.NetTCP6} {
		lines, _ := table()
		for _, l := range lines {
			if l.St == listen && l.LocalPort == uint64(port) {
				inodes[strconv.FormatUint(l.Inode, 10)] = true
			}
		}
	}
	return inodes
}

// descendants are pid, every process below it, and every process in its
// process group (a child that daemonized left the tree but not the
// group), from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	out := []int{pid}
	eachProcess(func(st procfs.ProcStat) {
		if st.PID != pid && st.PGRP == pid {
			out = append(out, st.PID)
			return
		}
		children[st.PPID] = append(children[st.PPID], st.PID)
	})
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
