// Package timingcheck judges the tests that hold wall-clock claims (a
// schedule kept to the millisecond, a step time to a few per cent) on a
// shared machine. Such a test cannot pass while the host itself wakes
// processes late (the hypervisor took the vCPU, another task held the
// core), and a test that merely retried would either fail on a noisy
// host or hide a slow client. So each attempt runs beside a probe: a
// second process, idle but for a 1 ms timer, that measures how late the
// host woke it. An attempt on a host that kept its timers is the code's
// to answer for; one on a host that did not is not judged.
package timingcheck

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

// Env makes a test binary a wake-up probe: Main in its TestMain runs
// the probe instead of the tests.
const Env = "SERVELAB_WAKE_PROBE"

// AloneEnv is set by make test when it runs the timing tests alone,
// after every other package, so that the suite's own load is not the
// noise they are judged in.
const AloneEnv = "SERVELAB_TIMING_ALONE"

// Attempts, and the pause between them that lets a noisy stretch of a
// shared VM pass.
const (
	Attempts = 5
	Gap      = 2 * time.Second
)

// QuietShare is the share of 1 ms wake-ups the host may make more than
// 1 ms late and still count as quiet: a quarter of what a p99 allows.
const QuietShare = 0.0025

// Main runs the wake-up probe and exits when the test binary was started
// as one (Env set); otherwise it returns. Call it first in TestMain.
func Main() {
	if os.Getenv(Env) != "" {
		os.Exit(probe())
	}
}

// Alone skips t unless make test runs it alone (AloneEnv=1).
func Alone(t testing.TB) {
	t.Helper()
	if os.Getenv(AloneEnv) != "1" {
		t.Skipf("a timing test: make test runs it alone, after the other packages (%s=1)", AloneEnv)
	}
}

// Judge runs check up to Attempts times, Gap apart, each beside the
// probe; check returns what missed, nothing when the claim held. The
// first attempt without a miss passes. When all miss, the test fails if
// any attempt was on a quiet host (the code is slow by itself), and
// skips, with the figures, if the host was late in every one. A miss
// on a quiet host does not fail at once: a busy process comes out of a
// noisy stretch later than the idle probe does.
func Judge(t testing.TB, check func() (misses []string)) {
	t.Helper()
	var seen []string
	judged := false
	for attempt := 1; attempt <= Attempts; attempt++ {
		if attempt > 1 {
			time.Sleep(Gap)
		}
		stop := start(t)
		misses := check()
		h := summarize(stop())
		t.Logf("attempt %d: %s", attempt, h)
		if len(misses) == 0 {
			return
		}
		judged = judged || h.quiet()
		seen = append(seen, fmt.Sprintf("%s (%s)", strings.Join(misses, "; "), h.short()))
	}
	if judged {
		t.Fatalf("missed in all %d attempts, at least one on a host that woke an idle process more than 1 ms late at most %.2f %% of the time: the code is late by itself: %s",
			Attempts, 100*QuietShare, strings.Join(seen, " | "))
	}
	t.Skipf("missed in %d attempts, each while the host itself woke processes late: %s; not judged here",
		Attempts, strings.Join(seen, " | "))
}

// host is one attempt's wake-up lateness, in ms, sorted.
type host []float64

func summarize(late []float64) host {
	sort.Float64s(late)
	return host(late)
}

// late is the share of wake-ups more than 1 ms late.
func (h host) late() float64 {
	if len(h) == 0 {
		return 0
	}
	i := sort.SearchFloat64s(h, 1+1e-9)
	return float64(len(h)-i) / float64(len(h))
}

func (h host) quiet() bool { return h.late() <= QuietShare }

func (h host) p99() float64 {
	if len(h) == 0 {
		return 0
	}
	return h[len(h)*99/100]
}

func (h host) String() string {
	return fmt.Sprintf("the host woke an idle process more than 1 ms late %.2f %% of %d times (p99 %.3f ms)", 100*h.late(), len(h), h.p99())
}

func (h host) short() string { return fmt.Sprintf("host late %.2f %%", 100*h.late()) }
