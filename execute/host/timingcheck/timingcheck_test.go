package timingcheck

import (
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Main()
	m.Run()
}

// The probe is a real process that wakes once a millisecond until
// stopped and reports each wake-up's lateness.
func TestProbeWakesEveryMillisecond(t *testing.T) {
	stop := start(t)
	time.Sleep(300 * time.Millisecond)
	h := summarize(stop())
	// Start-up of the process takes some of the 300 ms; a loaded host
	// makes late wake-ups, not fewer of them (the deadlines are absolute).
	if len(h) < 100 || len(h) > 400 {
		t.Fatalf("%d wake-ups in 300 ms, want about 300", len(h))
	}
	if h[0] < 0 {
		t.Fatalf("a wake-up before its deadline: %.3f ms", h[0])
	}
	t.Log(h)
}

func TestLateShare(t *testing.T) {
	h := summarize([]float64{0.1, 3, 0.2, 1, 1.5, 0.3, 0.1, 0.1})
	if got := h.late(); got != 2.0/8 {
		t.Errorf("late share %.3f, want 2/8 (1 ms itself is not late)", got)
	}
	if h.quiet() {
		t.Error("a host late 25 % of the time is quiet")
	}
	if !summarize(make([]float64, 400)).quiet() {
		t.Error("a host never late is not quiet")
	}
}
