package host

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Pin binds every thread of process pid to one CPU; threads it starts
// later inherit the binding. It returns a function that gives each
// thread pinned its former CPU set back (threads started since keep
// the pin).
func Pin(pid, cpu int) (restore func(), err error) {
	var set unix.CPUSet
	set.Set(cpu)
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return func() {}, err
	}
	type was struct {
		tid int
		set unix.CPUSet
	}
	var olds []was
	restore = func() {
		for _, o := range olds {
			unix.SchedSetaffinity(o.tid, &o.set)
		}
	}
	for _, t := range tasks {
		tid, _ := strconv.Atoi(t.Name())
		var old unix.CPUSet
		if unix.SchedGetaffinity(tid, &old) != nil {
			continue // the thread has ended
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil {
			restore()
			return func() {}, err
		}
		olds = append(olds, was{tid, old})
	}
	return restore, nil
}
