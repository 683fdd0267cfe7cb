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
	if !strings.Contains(out, "1/4 trials · launch vllm v1 (2 trials)") || !strings.Contains(out, "[=======") {
		t.Errorf("status line:\n%q", out)
	}
	if !strings.Contains(out, "ETA 0s") && !strings.Contains(out, "ETA ") {
		t.Error("no ETA")
	}
}
