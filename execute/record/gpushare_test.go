package record

import (
	"strings"
	"testing"
)

func TestSharedGPUs(t *testing.T) {
	run := func(key, host, start, end string, gpus ...GPU) *Record {
		return &Record{Key: key, Provenance: Provenance{Kind: "measured", Host: host, Start: start, End: end, GPUs: gpus}}
	}
	g0 := GPU{Index: 0, UUID: "GPU-0"}
	g1 := GPU{Index: 1, UUID: "GPU-1"}
	a := run("aaaa", "h", "2026-12-03T10:00:00Z", "2026-12-03T10:00:10Z", g0)
	cases := []struct {
		name  string
		other *Record
		clash bool
	}{
		{"same GPU at once", run("bbbb", "h", "2026-12-03T10:00:05Z", "2026-12-03T10:00:15Z", g0), true},
		{"other GPU at once", run("bbbb", "h", "2026-12-03T10:00:05Z", "2026-12-03T10:00:15Z", g1), false},
		{"same GPU after", run("bbbb", "h", "2026-12-03T10:00:10Z", "2026-12-03T10:00:20Z", g0), false},
		{"same GPU, other host", run("bbbb", "k", "2026-12-03T10:00:05Z", "2026-12-03T10:00:15Z", g0), false},
		{"no GPU list: all of the host", run("bbbb", "h", "2026-12-03T10:00:05Z", "2026-12-03T10:00:15Z"), true},
		{"two GPUs, one shared", run("bbbb", "h", "2026-12-03T10:00:09Z", "2026-12-03T10:00:15Z", g1, g0), true},
		{"imported: no host", run("bbbb", "", "", ""), false},
	}
	for _, c := range cases {
		got := SharedGPUs([]*Record{a, c.other})
		if (len(got) > 0) != c.clash {
			t.Errorf("%s: %v", c.name, got)
		}
		if c.clash && !strings.Contains(got[0], "aaaa and bbbb ran at once on h GPU") {
			t.Errorf("%s: %q", c.name, got[0])
		}
	}
}
