package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// markVar is set in every engine's environment, which its descendants
// inherit: a process that left the engine's group (setsid, a daemon's
// double fork) still carries the launch's mark, and Stop and Reap find
// it by that.
const markVar = "SERVELAB_LAUNCH"

// stopGrace is how long a process has between SIGTERM and SIGKILL.
const stopGrace = 10 * time.Second

// launchMark names one launch: the trial's key and random bytes, so
// that no two launches, of this servelab or another, share one.
func launchMark(name string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return name + "-" + hex.EncodeToString(b)
}

// stopLaunch ends every process left in group pgid or carrying mark:
// SIGTERM, SIGKILL after grace, and returns those still there a
// second later ("pid 123 (python3)").
func stopLaunch(pgid int, mark string, grace time.Duration) []string {
	left := launchProcs(pgid, mark)
	// A process in the middle of exec shows no environment for a moment
	// (a daemon's setsid child): look again before calling it gone.
	for i := 0; len(left) == 0 && i < 3; i++ {
		time.Sleep(20 * time.Millisecond)
		left = launchProcs(pgid, mark)
	}
	if len(left) == 0 {
		return nil
	}
	signal(left, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		left = launchProcs(pgid, mark)
	}
	signal(left, syscall.SIGKILL)
	for range 20 {
		if left = launchProcs(pgid, mark); len(left) == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	var names []string
	for _, st := range left {
		names = append(names, fmt.Sprintf("pid %d (%s)", st.PID, st.Comm))
	}
	return names
}

func signal(ps []procfs.ProcStat, sig syscall.Signal) {
	for _, st := range ps {
		syscall.Kill(st.PID, sig)
	}
}

// launchProcs are the live processes (not zombies) in group pgid or
// with mark in their environment; servelab itself is never one.
func launchProcs(pgid int, mark string) []procfs.ProcStat {
	var out []procfs.ProcStat
	want := []byte("\x00" + markVar + "=" + mark + "\x00")
	self := os.Getpid()
	eachProcess(func(st procfs.ProcStat) {
		switch {
		case st.State == "Z" || st.PID == self:
		case st.PGRP == pgid && pgid > 1:
			out = append(out, st)
		case mark != "":
			env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", st.PID))
			if err == nil && bytes.Contains(append(append([]byte{0}, env...), 0), want) {
				out = append(out, st)
			}
		}
	})
	return out
}
