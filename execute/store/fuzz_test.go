package store

import (
	"os"
	"path/filepath"
	"testing"

	"servelab.dev/execute/record"
)

// FuzzLoadFile: whatever bytes sit in a run file (named after them, as a
// buggy writer would name them), loading never panics, and what it
// accepts is a valid record of the folder's trial.
func FuzzLoadFile(f *testing.F) {
	good, _ := record.Encode(testRecord(200))
	f.Add(good)
	f.Add(good[:len(good)/2])
	neg := testRecord(200)
	neg.Metrics.Latency = &record.Dist{Mean: record.F(-1)}
	if b, err := record.Encode(neg); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"format":"servelab.record/v1","key":"` + testRecord(0).Key + `"}`))
	key := testRecord(0).Key
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := filepath.Join(t.TempDir(), key)
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, RunName(data))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := LoadFile(path, key)
		if err != nil {
			return
		}
		if r.Key != key || r.Check() != nil {
			t.Fatalf("accepted an invalid record or one of another trial: %v", r.Check())
		}
	})
}
