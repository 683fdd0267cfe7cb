package timingcheck

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// probe sleeps to an absolute deadline every millisecond until its
// standard input closes, then prints how late each wake-up came, in µs,
// one a line. It sleeps in clock_nanosleep rather than on a Go timer (an
// idle Go runtime rounds its sleeps up to whole milliseconds), so its
// lateness is the host's; a pause inside the tested process does not
// reach it.
func probe() int {
	var done atomic.Bool
	go func() { io.Copy(io.Discard, os.Stdin); done.Store(true) }()
	const every = int64(time.Millisecond)
	var now unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &now)
	next := now.Nano()
	var late []int64
	for !done.Load() {
		next += every
		ts := unix.NsecToTimespec(next)
		for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
		}
		unix.ClockGettime(unix.CLOCK_MONOTONIC, &now)
		late = append(late, (now.Nano()-next)/1000)
	}
	w := bufio.NewWriter(os.Stdout)
	for _, l := range late {
		fmt.Fprintln(w, l)
	}
	w.Flush()
	return 0
}

// start runs the probe in a process of its own (this test binary, with
// Env set); stop ends it and returns its lateness in ms.
func start(t testing.TB) (stop func() []float64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), Env+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() []float64 {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("wake-up probe: %v", err)
		}
		var ms []float64
		for _, f := range strings.Fields(out.String()) {
			us, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("wake-up probe printed %q, not a lateness in µs: does the package's TestMain call timingcheck.Main?", f)
			}
			ms = append(ms, float64(us)/1000)
		}
		return ms
	}
}
