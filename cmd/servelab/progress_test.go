package main

import (
	"strings"
	"testing"
	"time"
)

func TestTTYProgress(t *testing.T) {
	var b strings.Builder
	p := newTTYProgress(&b, 4, time.Minute)
	p.Write([]byte("launch vllm v1 (2 trials): vllm serve m\ntrial engine/vllm/c1#0 (abc)\n"))
	p.Write([]byte("  ok in 1.0s: 4 ok, 0 failed\n"))
	out := b.String()
	if !strings.Contains(out, "1/4 trials · ") || !strings.Contains(out, "· launch v") || !strings.Contains(out, "[=======") {
		t.Errorf("status line:\n%q", out)
	}
	if !strings.Contains(out, "ETA 0s") && !strings.Contains(out, "ETA ") {
		t.Error("no ETA")
	}
}

// finish erases the status line, and no status line is wider than a
// terminal row (a wrapped line could not be erased).
func TestTTYProgressClears(t *testing.T) {
	var b strings.Builder
	p := newTTYProgress(&b, 2, time.Minute)
	p.Write([]byte("launch " + strings.Repeat("x", 200) + ": cmd\n"))
	p.finish()
	out := b.String()
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("status line not erased at the end: %q", out[max(0, len(out)-40):])
	}
	last := out[strings.LastIndex(out, "\n")+1:]
	for _, seg := range strings.Split(last, "\r\033[K") {
		if n := len([]rune(seg)); n > 80 {
			t.Errorf("status line of %d columns", n)
		}
	}
}
