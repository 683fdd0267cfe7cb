package load

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// pin binds every thread of process pid to one CPU; threads it starts
// later inherit the binding.
func pin(pid, cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, _ := strconv.Atoi(t.Name())
		if err := unix.SchedSetaffinity(tid, &set); err != nil {
			return err
		}
	}
	return nil
}

func simPID(t testing.TB, url string) int {
	pid, ok := simPIDs[url]
	if !ok {
		t.Fatalf("no simulator at %s", url)
	}
	return pid
}
