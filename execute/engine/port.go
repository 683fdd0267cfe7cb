package engine

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
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
	for _, p := range descendants(pid) {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p))
		if err != nil {
			known = false
			continue
		}
		for _, fd := range fds {
			link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", p, fd.Name()))
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
	suffix := fmt.Sprintf(":%04X", port)
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			x := strings.Fields(sc.Text())
			if len(x) > 9 && x[3] == "0A" && strings.HasSuffix(x[1], suffix) {
				inodes[x[9]] = true
			}
		}
		f.Close()
	}
	return inodes
}

// descendants are pid, every process below it, and every process in its
// process group (a child that daemonized left the tree but not the
// group), from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	out := []int{pid}
	eachProcess(func(p int, stat []byte) {
		if p != pid && pgidOf(stat) == pid {
			out = append(out, p)
			return
		}
		parent := statField(stat, 1)
		children[parent] = append(children[parent], p)
	})
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
