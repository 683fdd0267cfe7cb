package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
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

// simulate stores a simulated run for each trial of the study's first
// step, as `servelab run` with the simulator does.
func simulate(t *testing.T, st *store.Store, s *schema.Study) {
	t.Helper()
	p, err := decide.Plan(s, decide.Records{}, decide.Simulated)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range p.Trials {
		if tr.Spec == nil || tr.Step != "engine" {
			continue
		}
		r := &record.Record{Format: record.Format, Key: tr.Key, Trial: *tr.Spec, Status: "ok",
			Provenance: record.Provenance{Kind: record.Simulated, Servelab: "test"},
			Metrics:    record.Metrics{Completed: 100, Failed: record.I(0), Duration: 40, OutputThroughput: record.F(500)}}
		if _, _, err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
}

// The first measured run of a study of simulated runs sets them aside:
// the import says so, names them, and says how to keep them.
func TestSetAsideSimulated(t *testing.T) {
	st, s := setup(t)
	simulate(t, st, s)
	res, err := Into(st, s, read(t, "vllm.txt"), Options{Trial: "engine/vllm/c4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nset aside: study imp had only simulated runs", "its 2 simulated runs count for nothing",
		"undecided until its real runs are in, and export waits for them", "engine/vllm/c4#0, engine/sglang/c4#0",
		"\nTo keep the simulated study, keep real runs in a results folder of their own", "--results DIR testdata/vllm.txt"} {
		if !strings.Contains(res.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, res.Message)
		}
	}
	res, err = Into(st, s, read(t, "sglang.txt"), Options{Trial: "engine/sglang/c4"})
	if err != nil || strings.Contains(res.Message, "set aside") {
		t.Errorf("the second real run sets nothing aside again: %q, %v", res.Message, err)
	}
}

// --replace on a source imported before replaces the run it gave, and
// leaves the trial's other runs where they are: how the seeds' records,
// imported when an unprinted failed count became 0, are read again.
func TestReplaceSameSource(t *testing.T) {
	st, s := setup(t)
	if _, err := Into(st, s, read(t, "sglang.txt"), Options{Trial: "engine/vllm/c4", Version: "v1"}); err != nil {
		t.Fatal(err)
	}
	p, err := decide.Plan(s, decide.Records{}, decide.Real)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := plan.Select(p, "engine/vllm/c4")
	if err != nil {
		t.Fatal(err)
	}
	src := read(t, "vllm.txt")
	sum := sha256.Sum256(src.Data)
	old := Record(tr, &src.Entries[0], src, "", hex.EncodeToString(sum[:]), "v1")
	old.Metrics.Failed, old.ImportNotes = record.I(0), nil // as servelab wrote it before failed could be unknown
	if _, _, err := st.Put(old); err != nil {
		t.Fatal(err)
	}
	res, err := Into(st, s, read(t, "vllm.txt"), Options{Trial: "engine/vllm/c4", Replace: true, Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Message, "\nreplaced "); n != 1 {
		t.Errorf("%d runs replaced, want the one vllm.txt gave:\n%s", n, res.Message)
	}
	all, err := st.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range all {
		versions := map[string]string{}
		for _, r := range rs {
			versions[filepath.Base(r.Record.Provenance.Source)] = r.Record.Provenance.Servelab
		}
		if len(rs) != 2 || versions["vllm.txt"] != "v2" || versions["sglang.txt"] != "v1" {
			t.Errorf("runs after the replace: %v", versions)
		}
	}
}
