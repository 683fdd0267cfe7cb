package ingest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

func setup(t *testing.T) (*store.Store, *schema.Study) {
	t.Helper()
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("testdata/study.cue")
	if err != nil {
		t.Fatal(err)
	}
	return store.Open(t.TempDir()), s
}

func read(t *testing.T, file string) Source {
	t.Helper()
	src, err := Read("testdata/"+file, "vllm-text")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// A block goes into the trial it names with its provenance; the same
// source again adds nothing; it cannot become a run of another trial.
func TestInto(t *testing.T) {
	st, s := setup(t)
	res, err := Into(st, s, read(t, "vllm.txt"), Options{Trial: "engine/vllm/c4", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^testdata/vllm.txt: imported into trial engine/vllm/c4 \([0-9a-f]{12}\) as .*/[0-9a-f]{64}/[0-9a-f]{16}\.json$`).MatchString(res.Message) {
		t.Errorf("message %q", res.Message)
	}
	all, err := st.All()
	if err != nil || len(all) != 1 {
		t.Fatalf("%d trials stored (%v)", len(all), err)
	}
	for _, runs := range all {
		p := runs[0].Record.Provenance
		if len(runs) != 1 || p.Kind != record.Imported || p.Source != "testdata/vllm.txt" || p.SourceFormat != "vllm-text" || len(p.SHA256) != 64 || p.Servelab != "test" {
			t.Errorf("runs %d, provenance %+v", len(runs), p)
		}
	}
	res, err = Into(st, s, read(t, "vllm.txt"), Options{Trial: "engine/vllm/c4"})
	if err != nil || !strings.Contains(res.Message, "(same source, sha256 ") {
		t.Errorf("second import: %q, %v", res.Message, err)
	}
	if _, err := Into(st, s, read(t, "vllm.txt"), Options{Trial: "engine/sglang/c4"}); err == nil || !strings.Contains(err.Error(), "one run cannot be a run of two trials") {
		t.Errorf("into another trial: %v", err)
	}
	if _, err := Into(st, s, read(t, "sglang.txt"), Options{Trial: "batch/64/c4"}); err == nil || !strings.Contains(err.Error(), "is pending") {
		t.Errorf("into a pending trial: %v", err)
	}
}

// Replace puts the new run in and moves the old one aside, recoverable;
// an invalid file in the store is listed, left in place, and no error.
func TestReplaceAndInvalid(t *testing.T) {
	st, s := setup(t)
	if _, err := Into(st, s, read(t, "vllm.txt"), Options{Trial: "engine/vllm/c4"}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(st.Dir, strings.Repeat("a", 64), "0123456789abcdef.json")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Into(st, s, read(t, "sglang.txt"), Options{Trial: "engine/vllm/c4", Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Invalid) == 0 || !strings.Contains(res.Invalid[0].Path, "0123456789abcdef.json") {
		t.Errorf("invalid files: %+v", res.Invalid)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("the invalid file was touched: %v", err)
	}
	m := regexp.MustCompile(`\nreplaced (\S+): moved to (\S+) \(restore it with mv into `).FindStringSubmatch(res.Message)
	if m == nil {
		t.Fatalf("message %q", res.Message)
	}
	if _, err := os.Stat(m[2]); err != nil || !strings.Contains(m[2], store.ReplacedDir) {
		t.Errorf("the replaced run is not at %s: %v", m[2], err)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the replaced run is still at %s", m[1])
	}
}

// A file that does not match the trial is refused, naming both.
func TestMismatch(t *testing.T) {
	st, s := setup(t)
	_, err := Into(st, s, read(t, "vllm.txt"), Options{Trial: "validate/baseline/c8"})
	if err == nil || !strings.Contains(err.Error(), "testdata/vllm.txt") || !strings.Contains(err.Error(), "validate/baseline/c8") {
		t.Errorf("got %v", err)
	}
	if all, _ := st.All(); len(all) != 0 {
		t.Errorf("%d trials stored after a refusal", len(all))
	}
}
