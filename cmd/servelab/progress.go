package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// ttyProgress passes the runner's lines through and keeps a status line
// under them: a bar of trials done out of the plan's total, the group
// running, the elapsed time and an ETA that starts from the plan's
// estimate and is corrected by the trials finished so far.
type ttyProgress struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	estimate time.Duration
	done     int
	began    time.Time
	current  string
}

func newTTYProgress(w io.Writer, total int, estimate time.Duration) *ttyProgress {
	return &ttyProgress{w: w, total: max(1, total), estimate: estimate, began: time.Now()}
}

func (p *ttyProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
	for _, line := range strings.SplitAfter(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "launch "):
			p.current = strings.TrimSpace(strings.SplitN(line, ":", 2)[0])
		case strings.HasPrefix(line, "  ok "), strings.HasPrefix(line, "  failed "), strings.HasPrefix(line, "failed "):
			p.done++
		}
	}
	p.w.Write(b)
	p.status()
	return len(b), nil
}

func (p *ttyProgress) status() {
	const width = 30
	n := min(width, width*p.done/p.total)
	elapsed := time.Since(p.began)
	eta := p.estimate - elapsed
	if p.done > 0 {
		eta = elapsed / time.Duration(p.done) * time.Duration(max(0, p.total-p.done))
	}
	line := fmt.Sprintf("[%s%s] %d/%d trials · %s elapsed · ETA %s · %s", strings.Repeat("=", n), strings.Repeat(" ", width-n),
		p.done, p.total, elapsed.Round(time.Second), max(0, eta).Round(time.Second), p.current)
	fmt.Fprint(p.w, clip(line, statusWidth))
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

// finish ends the status line.
func (p *ttyProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
}
