package schema

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzLoad: whatever a study file holds, loading it either succeeds or
// returns located errors; it never panics and never returns an error
// without the file's name.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"../studies/qwen3-8b-h100-latency.cue", "../studies/qwen3.5-9b-h100-latency.cue", "plan/testdata/ordered.cue"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("package x\n"))
	f.Add([]byte(`import "servelab.dev/schema"` + "\nx: schema.#Study & {title: en: 1}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		l := loader(t) // a fresh CUE context: one shared across inputs only grows
		file := filepath.Join(dir, "study.cue")
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var s *Study
		var err error
		go func() { s, err = l.LoadFile(file); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("LoadFile did not return in 5s on:\n%s", src)
		}
		if err == nil {
			if s == nil || s.ID == "" {
				t.Fatal("no error and no study")
			}
			return
		}
		var list List
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error is not a List: %v", err)
		}
		for _, e := range list {
			if e.File != file {
				t.Fatalf("error without the file: %v", e)
			}
		}
	})
}
