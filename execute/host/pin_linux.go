package host

import (
	"errors"
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

// PinApart pins process a to the first CPU this process may use and b
// to the second, so that neither takes the other's time (a cpuset may
// exclude CPU 0). It returns the two CPUs and a function that gives a's
// threads their former CPU sets back.
func PinApart(a, b int) (cpus [2]int, restore func(), err error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return cpus, func() {}, err
	}
	n := 0
	for c := 0; c < 1024 && n < 2; c++ {
		if set.IsSet(c) {
			cpus[n], n = c, n+1
		}
	}
	if n < 2 {
		return cpus, func() {}, errors.New("fewer than two CPUs")
	}
	if restore, err = Pin(a, cpus[0]); err != nil {
		return cpus, restore, err
	}
	if _, err = Pin(b, cpus[1]); err != nil {
		restore()
		return cpus, func() {}, err
	}
	return cpus, restore, nil
}
