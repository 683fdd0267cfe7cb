package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What is not a benchmark tool's result file is refused before it is
// read, in one line, at once and without reading it into memory: a FIFO
// (whose open would block), a device that never ends, a directory, a
// file far above the size bound. A result with a string count or a
// throughput of 1e308 is read and refused as quickly.
func TestReadRefusesWhatIsNoResultFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// 1 GiB of whitespace as the file system holds it: spaces at both
	// ends, a hole between them (sparse, so the test writes 2 MiB).
	big := filepath.Join(dir, "blank.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	spaces := []byte(strings.Repeat(" ", 1<<20))
	_, err1 := f.Write(spaces)
	_, err2 := f.WriteAt(spaces, 1<<30-1<<20)
	if err := f.Close(); err1 != nil || err2 != nil || err != nil {
		t.Fatal(err1, err2, err)
	}
	result := `{"model_id": "Qwen/Qwen3-8B", "num_prompts": 100, "duration": 44.4, "completed": %s, "failed": 0, ` +
		`"total_input_tokens": 23260, "total_output_tokens": 22061, "output_throughput": %s, "total_token_throughput": 1020.74, ` +
		`"mean_ttft_ms": 64.0, "mean_tpot_ms": 7.38, "mean_itl_ms": 7.78}`
	stringCount, huge := filepath.Join(dir, "string-count.json"), filepath.Join(dir, "huge.json")
	if err := os.WriteFile(stringCount, fmt.Appendf(nil, result, `"100"`, "496.87"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(huge, fmt.Appendf(nil, result, "100", "1e308"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, want string }{
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{dir, "is a directory, not a regular file"},
		{big, "is 1024 MiB, above the 128 MiB an import reads"},
		{stringCount, `completed: "100" is a string where a number belongs`},
		{huge, "output throughput 1e+308 tok/s is above the file's own total token throughput"},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Read(c.file, "auto")
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %v, %d KiB allocated", c.file, took, alloc>>10)
		switch {
		case err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: %v; want one line with %q", c.file, err, c.want)
		case took > 5*time.Second:
			t.Errorf("%s: refused after %v", c.file, took)
		case alloc > 1<<20:
			t.Errorf("%s: %d KiB allocated to refuse it", c.file, alloc>>10)
		}
	}
}

// A file within the bound but of nothing but whitespace is read, and
// refused as no result, in bounded memory.
func TestReadBlankFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "blank.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat(" \n", 4<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"auto", "vllm-text", "vllm-json"} {
		if _, err := Read(file, format); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line refusal", format, err)
		}
	}
}
