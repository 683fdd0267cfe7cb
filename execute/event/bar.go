package event

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Bar writes the plain log's lines to a terminal and keeps a status line
// under them: a bar of trials done out of the plan's total, the launch
// or job in hand, the elapsed time and an ETA that starts from the
// plan's estimate and is corrected by the trials finished so far. Its
// clock is the events' own times, so a recorded stream replays the same
// screen.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	estimate time.Duration
	began    time.Time
	now      time.Time
	done     int
	current  string
}

// NewBar is a bar for a run of total trials that the plan estimates
// takes estimate, begun at began.
func NewBar(w io.Writer, total int, estimate time.Duration, began time.Time) *Bar {
	return &Bar{w: w, total: max(1, total), estimate: estimate, began: began, now: began}
}

// Emit writes the event's log line above the status line and redraws it.
func (b *Bar) Emit(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.Time.After(b.now) {
		b.now = e.Time
	}
	switch e.Kind {
	case Launching:
		l := e.Launch
		b.current = fmt.Sprintf("launch %s %s (%d trials%s)", l.Engine, l.Version, l.Trials, onGPUs(l.GPUs))
	case JobSubmitted, JobAttached, JobRunning:
		b.current = "job " + e.Job.ID
		if e.Job.Engine != "" {
			b.current += ": " + e.Job.Engine + " " + e.Job.Version
		}
	case TrialFinished, TrialFailed:
		b.done++
	}
	fmt.Fprint(b.w, "\r\033[K")
	io.WriteString(b.w, Line(e))
	b.status()
}

func (b *Bar) status() {
	const width = 30
	n := min(width, width*b.done/b.total)
	elapsed := b.now.Sub(b.began)
	eta := b.estimate - elapsed
	if b.done > 0 {
		eta = elapsed / time.Duration(b.done) * time.Duration(max(0, b.total-b.done))
	}
	line := fmt.Sprintf("[%s%s] %d/%d trials · %s elapsed · ETA %s · %s", strings.Repeat("=", n), strings.Repeat(" ", width-n),
		b.done, b.total, elapsed.Round(time.Second), max(0, eta).Round(time.Second), b.current)
	fmt.Fprint(b.w, clip(line, statusWidth))
}

// statusWidth keeps the status line on one row of an 80-column
// terminal: a line that wraps cannot be erased with \r\033[K.
const statusWidth = 79

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Finish erases the status line, so what is printed next starts on a
// clean line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprint(b.w, "\r\033[K")
}
