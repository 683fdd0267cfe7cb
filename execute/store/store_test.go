package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

func testRecord(out float64) *record.Record {
	spec := plan.Spec{Schema: 1, Engine: plan.EngineSpec{Kind: "vllm", Version: "v1"}, Model: plan.ModelSpec{ID: "m/m"},
		Argv: []string{"vllm", "serve", "m/m"}, Hardware: plan.HardwareSpec{GPU: "NVIDIA H200", Count: 1},
		Profile:   plan.ProfileSpec{Kind: "concurrency", Requests: 10, Concurrency: 2},
		Benchmark: plan.BenchmarkSpec{Client: "builtin", Dataset: plan.DatasetSpec{Name: "random"}, API: "chat"}}
	return &record.Record{Format: record.Format, Key: spec.Key(), Trial: spec, Status: "ok",
		Provenance: record.Provenance{Kind: record.Simulated, Servelab: "test"},
		Metrics:    record.Metrics{Completed: 10, Duration: 5, OutputTokens: record.I(1000), OutputThroughput: record.F(out)}}
}

func TestPutAndLoad(t *testing.T) {
	s := Open(t.TempDir())
	r := testRecord(200)
	p1, added, err := s.Put(r)
	if err != nil || !added {
		t.Fatal(added, err)
	}
	if _, added, _ := s.Put(testRecord(200)); added {
		t.Error("same figures added twice")
	}
	if _, added, _ := s.Put(testRecord(210)); !added {
		t.Error("a second run was not added")
	}
	runs, err := s.Runs(r.Key)
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	if p1 != runs[0].Path && p1 != runs[1].Path {
		t.Errorf("first run %s not among %s, %s", p1, runs[0].Path, runs[1].Path)
	}
	all, err := s.All()
	if err != nil || len(all[r.Key]) != 2 {
		t.Fatalf("All: %v %v", all, err)
	}
}

// A damaged run is reported with its path and left in place; the other
// runs still load.
func TestCorruptRunsAreReportedNotDeleted(t *testing.T) {
	cases := map[string]func([]byte) []byte{
		"flipped byte": func(b []byte) []byte { b = append([]byte(nil), b...); b[len(b)/2] ^= 0x01; return b },
		"truncated":    func(b []byte) []byte { return b[:len(b)/2] },
		"empty":        func([]byte) []byte { return nil },
	}
	for name, damage := range cases {
		s := Open(t.TempDir())
		p, _, err := s.Put(testRecord(200))
		if err != nil {
			t.Fatal(err)
		}
		s.Put(testRecord(300))
		data, _ := os.ReadFile(p)
		bad := damage(data)
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		all, err := s.All()
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "left in place") {
			t.Errorf("%s: err = %v", name, err)
		}
		if got, _ := os.ReadFile(p); string(got) != string(bad) {
			t.Errorf("%s: the damaged file was changed", name)
		}
		if n := len(all[testRecord(0).Key]); n != 1 {
			t.Errorf("%s: %d good runs loaded, want 1", name, n)
		}
	}
}

// A valid record renamed to the right hash but filed under another key
// is refused too.
func TestRecordUnderWrongKey(t *testing.T) {
	s := Open(t.TempDir())
	p, _, _ := s.Put(testRecord(200))
	other := filepath.Join(s.Dir, strings.Repeat("a", 64))
	os.MkdirAll(other, 0o755)
	os.Rename(p, filepath.Join(other, filepath.Base(p)))
	if _, err := s.All(); err == nil || !strings.Contains(err.Error(), "filed under") {
		t.Errorf("err = %v", err)
	}
}

func TestLockExcludes(t *testing.T) {
	s := Open(t.TempDir())
	unlock, err := s.Lock(0, "first")
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to open files, so a second open in this process
	// contends like another process would.
	if _, err := s.Lock(50*time.Millisecond, "second"); err == nil || !strings.Contains(err.Error(), "pid") {
		t.Errorf("second lock: %v", err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		u, err := s.Lock(5*time.Second, "waiter")
		if err != nil {
			t.Error(err)
			return
		}
		u()
	}()
	time.Sleep(100 * time.Millisecond)
	unlock()
	wg.Wait()
}

func TestSamplesSidecar(t *testing.T) {
	s := Open(t.TempDir())
	samples := []record.Sample{
		{Intended: 0, Sent: 0.0004, TTFT: 31.5, Latency: 812, Gaps: []float64{7.1, 7.3, 14.0}, InputTokens: 120, OutputTokens: 101},
		{Intended: 0.5, Sent: 0.5002, Error: "HTTP 500"},
	}
	p, _, err := s.PutWithSamples(testRecord(200), samples)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(testRecord(0).Key)
	if err != nil || len(runs) != 1 || runs[0].Path != p {
		t.Fatal(runs, err)
	}
	got, err := s.Samples(runs[0])
	if err != nil || len(got) != 2 || got[0].Gaps[2] != 14.0 || got[1].Error != "HTTP 500" {
		t.Fatalf("%+v %v", got, err)
	}
	side := filepath.Join(filepath.Dir(p), runs[0].Record.Samples)
	data, _ := os.ReadFile(side)
	os.WriteFile(side, data[:len(data)-4], 0o644)
	if _, err := s.Samples(runs[0]); err == nil || !strings.Contains(err.Error(), "left in place") {
		t.Errorf("truncated sidecar: %v", err)
	}
}

// A record with impossible figures stored under its own hash (as a buggy
// writer would) is left out of OK, named by file and field, and listed
// by Unused with the failed runs; the good runs are still read.
func TestInvalidRecordsSkippedAndListed(t *testing.T) {
	s := Open(t.TempDir())
	good, _, _ := s.Put(testRecord(200))
	failed := testRecord(0)
	failed.Status, failed.Reason = "failed", "engine did not start"
	failed.Metrics.Completed = 0
	fp, _, err := s.Put(failed)
	if err != nil {
		t.Fatal(err)
	}
	bad := testRecord(190)
	bad.Metrics.Latency = &record.Dist{Mean: record.F(-5)}
	data, _ := record.Encode(bad)
	badPath := filepath.Join(s.Dir, bad.Key, RunName(data))
	os.WriteFile(badPath, data, 0o644)

	runs, err := s.OK()
	var inv Invalid
	if !errors.As(err, &inv) || len(inv) != 1 || !strings.Contains(inv[0].Reason, badPath+": metrics.latencyMs.mean: -5 is negative") {
		t.Fatalf("err = %v", err)
	}
	if n := len(runs[bad.Key]); n != 1 || *runs[bad.Key][0].Metrics.OutputThroughput != 200 {
		t.Errorf("%d ok runs, want the good one", n)
	}
	unused, err := s.Unused()
	if err != nil || len(unused) != 2 {
		t.Fatalf("%v %+v", err, unused)
	}
	for _, u := range unused {
		switch u.Path {
		case fp:
			if u.Invalid || u.Reason != "engine did not start" {
				t.Errorf("failed run: %+v", u)
			}
		case badPath:
			if !u.Invalid {
				t.Errorf("invalid file: %+v", u)
			}
		default:
			t.Errorf("listed %s (good is %s)", u.Path, good)
		}
	}
	// Storing next to it still works: the invalid file does not block Put.
	if _, added, err := s.Put(testRecord(230)); err != nil || !added {
		t.Errorf("put beside an invalid record: %v %v", added, err)
	}
	if _, err := os.Stat(badPath); err != nil {
		t.Error("the invalid file was not left in place")
	}
}

// CleanTemp removes only what servelab's writers leave: a file a person
// named like one is kept.
func TestCleanTempOnlyOwnFiles(t *testing.T) {
	s := Open(t.TempDir())
	key := filepath.Join(s.Dir, strings.Repeat("b", 64))
	os.MkdirAll(key, 0o755)
	own := []string{filepath.Join(key, ".tmp-123456"), filepath.Join(s.Dir, ".engine-0123456789abcdef.pid.tmp")}
	mine := []string{filepath.Join(key, ".tmp-notes.txt"), filepath.Join(s.Dir, ".tmp-keep")}
	for _, f := range append(append([]string(nil), own...), mine...) {
		os.WriteFile(f, []byte("x"), 0o644)
	}
	gone := s.CleanTemp()
	if len(gone) != len(own) {
		t.Errorf("removed %v", gone)
	}
	for _, f := range mine {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed", f)
		}
	}
}

func TestColumns(t *testing.T) {
	keys, paths, reasons, invalid := Columns([]Excluded{
		{Path: "a/1.json", Key: "a", Reason: "engine exited"},
		{Path: "b/2.json", Key: "b", Invalid: true, Reason: "b/2.json: bad"},
	})
	if !reflect.DeepEqual(keys, []string{"a", "b"}) || !reflect.DeepEqual(paths, []string{"a/1.json", "b/2.json"}) ||
		!reflect.DeepEqual(reasons, []string{"engine exited", "b/2.json: bad"}) || !reflect.DeepEqual(invalid, []bool{false, true}) {
		t.Errorf("columns: %v %v %v %v", keys, paths, reasons, invalid)
	}
}

func TestFolderMessages(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "results")
	if err := os.Symlink(filepath.Join(dir, "gone"), link); err != nil {
		t.Fatal(err)
	}
	_, err := (&Store{Dir: link}).Lock(0, "test")
	if err == nil || !strings.Contains(err.Error(), "a symbolic link to "+filepath.Join(dir, "gone")+", which does not exist") {
		t.Errorf("dangling link: %v", err)
	}
	tmp := &fs.PathError{Op: "open", Path: "ro/.tmp-291746443", Err: syscall.EACCES}
	err = unwritable("ro", tmp)
	if !errors.Is(err, fs.ErrPermission) || strings.Contains(err.Error(), ".tmp-") || !strings.HasPrefix(err.Error(), "ro: ") {
		t.Errorf("read-only folder: %v", err)
	}
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders; the message was checked above")
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	err = WriteAtomic(filepath.Join(ro, "f"), []byte("x"))
	if err == nil || !strings.HasPrefix(err.Error(), ro+": servelab may not write") {
		t.Errorf("read-only folder: %v", err)
	}
}
