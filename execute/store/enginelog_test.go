package store

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEngineLog(t *testing.T) {
	s := Open(t.TempDir())
	key := strings.Repeat("ab", 32)
	if r, err := s.EngineLog(key); r != nil || err != nil {
		t.Fatalf("no log: got %v, %v", r, err)
	}
	os.MkdirAll(filepath.Join(s.Dir, key), 0o755)
	os.WriteFile(filepath.Join(s.Dir, key, EngineLogName), []byte("started\n"), 0o644)
	r, err := s.EngineLog(key)
	if err != nil || r == nil {
		t.Fatalf("got %v, %v", r, err)
	}
	defer r.Close()
	if b, _ := io.ReadAll(r); string(b) != "started\n" {
		t.Errorf("read %q", b)
	}
	if _, err := s.EngineLog("../" + key[3:]); err == nil {
		t.Error("a key with a path in it is accepted")
	}
}
