// Package store keeps result records in a results folder, one
// subfolder per trial key and one file per run:
//
//	results/<key>/<run>.json
//
// where <run> is the first 16 hex digits of the sha256 of the file's
// bytes. Files are written to a temporary name and renamed, never
// rewritten; a file whose bytes do not hash to its name is reported as
// corrupt and left where it is. A lock file (flock) keeps two servelab
// processes from writing one folder at once.
package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"servelab.dev/execute/record"
)

// Store is a results folder.
type Store struct {
	Dir string
	// WriteFile replaces the atomic write, for tests that inject a full
	// disk; nil is the real thing.
	WriteFile func(path string, data []byte) error
}

func (s *Store) write(path string, data []byte) error {
	if s.WriteFile != nil {
		return s.WriteFile(path, data)
	}
	return writeAtomic(path, data)
}

// Open returns the store in dir; the folder is created on first write.
func Open(dir string) *Store { return &Store{Dir: dir} }

// RunName is the file name a record's bytes get.
func RunName(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8]) + ".json"
}

// PutWithSamples stores samples as r's sidecar, named by the hash of its
// bytes and recorded in r.Samples, then stores r as Put does.
func (s *Store) PutWithSamples(r *record.Record, samples []record.Sample) (string, bool, error) {
	return s.PutWithSidecar(r, samples, nil)
}

// PutWithSidecar is PutWithSamples with the engine's metric series in
// the sidecar too (none when engine is nil).
func (s *Store) PutWithSidecar(r *record.Record, samples []record.Sample, engine *record.EngineSeries) (string, bool, error) {
	data, err := record.EncodeSidecar(samples, engine)
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256(data)
	r.Samples = hex.EncodeToString(sum[:8]) + ".samples.jsonl.gz"
	dir := filepath.Join(s.Dir, r.Key)
	if err := MakeDir(dir); err != nil {
		return "", false, err
	}
	if err := s.write(filepath.Join(dir, r.Samples), data); err != nil {
		return "", false, err
	}
	return s.Put(r)
}

// Samples reads the sidecar of a run, checking that its bytes match the
// name the record gives.
func (s *Store) Samples(run Run) ([]record.Sample, error) {
	if run.Record.Samples == "" {
		return nil, nil
	}
	path := filepath.Join(filepath.Dir(run.Path), run.Record.Samples)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:8])+".samples.jsonl.gz" != run.Record.Samples {
		return nil, fmt.Errorf("%s: content does not match its name; left in place: restore it from git", path)
	}
	samples, err := record.DecodeSamples(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; left in place: restore it from git", path, err)
	}
	return samples, nil
}

// Put adds r as a run of its trial. A run with the same status and
// figures as an existing one is not added again (the seeds print some
// blocks twice); added is false then and path names the existing run.
// The caller must hold the lock.
func (s *Store) Put(r *record.Record) (path string, added bool, err error) {
	if err := r.Check(); err != nil {
		return "", false, fmt.Errorf("refusing to store an invalid record: %w", err)
	}
	runs, _, err := s.scanKey(r.Key)
	if err != nil {
		return "", false, err
	}
	for _, old := range runs {
		if sameFigures(old.Record, r) {
			return old.Path, false, nil
		}
	}
	data, err := record.Encode(r)
	if err != nil {
		return "", false, err
	}
	dir := filepath.Join(s.Dir, r.Key)
	if err := MakeDir(dir); err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, RunName(data))
	return path, true, s.write(path, data)
}

func sameFigures(a, b *record.Record) bool {
	ja, _ := json.Marshal(a.Metrics)
	jb, _ := json.Marshal(b.Metrics)
	return a.Status == b.Status && bytes.Equal(ja, jb)
}

// Run is a record and the file it came from.
type Run struct {
	Path   string
	Record *record.Record
}

// Runs loads every run of key, in file-name order. Any unreadable run
// makes it fail, naming the file: figures are never silently dropped.
func (s *Store) Runs(key string) ([]Run, error) {
	runs, bad, err := s.scanKey(key)
	if err != nil {
		return nil, err
	}
	return runs, bad.err()
}

// scanKey loads the valid runs of key and lists the files that are not.
func (s *Store) scanKey(key string) ([]Run, Invalid, error) {
	dir := filepath.Join(s.Dir, key)
	names, err := runFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	var runs []Run
	var bad Invalid
	for _, n := range names {
		p := filepath.Join(dir, n)
		r, err := LoadFile(p, key)
		if err != nil {
			bad = append(bad, Excluded{Path: p, Key: key, Invalid: true, Reason: err.Error()})
			continue
		}
		runs = append(runs, Run{p, r})
	}
	return runs, bad, nil
}

func runFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// LoadFile reads and checks one run file: its bytes must hash to its
// name and its record must be valid and belong to key.
func LoadFile(path, key string) (*record.Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if want := RunName(data); filepath.Base(path) != want {
		hint := "corrupt or edited by hand"
		if _, derr := record.Decode(data); derr != nil {
			hint = derr.Error()
		}
		return nil, fmt.Errorf("%s: content does not match its name (%s); left in place: restore it from git or remove it", path, hint)
	}
	r, err := record.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; left in place: restore it from git or move it out of the results folder", path, err)
	}
	if r.Key != key {
		return nil, fmt.Errorf("%s: record of trial %s filed under %s; left in place: move it into %s", path, r.Key[:12], key[:min(12, len(key))], r.Key)
	}
	return r, nil
}

// All loads every run in the store, by key. Problems are collected, one
// per bad file (an Invalid error), and the good runs are still returned.
func (s *Store) All() (map[string][]Run, error) {
	out, bad, err := s.scan()
	if err != nil {
		return nil, err
	}
	return out, bad.err()
}

// scan loads every valid run, by key, and lists the invalid files; its
// error is only for a folder it cannot read.
func (s *Store) scan() (map[string][]Run, Invalid, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]Run{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	out := map[string][]Run{}
	var bad Invalid
	for _, e := range ents {
		if !e.IsDir() || len(e.Name()) != 64 {
			continue
		}
		runs, b, err := s.scanKey(e.Name())
		if err != nil {
			return nil, nil, err
		}
		bad = append(bad, b...)
		if len(runs) > 0 {
			out[e.Name()] = runs
		}
	}
	return out, bad, nil
}

// MakeDir creates dir and its parents. Its errors name the folder and
// the fix, where os.MkdirAll says "file exists" of a dangling link.
func MakeDir(dir string) error {
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		return nil
	}
	if to, lerr := os.Readlink(dir); lerr == nil {
		if _, serr := os.Stat(dir); serr != nil {
			return fmt.Errorf("%s: a symbolic link to %s, which does not exist; nothing was written: create that folder or choose another", dir, to)
		}
	}
	return unwritable(dir, err)
}

// unwritable says which folder refused a write and what to do, instead
// of the name of a temporary file that was never created.
func unwritable(dir string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%s: servelab may not write in this folder (%w); nothing was written: make it writable or choose another", dir, fs.ErrPermission)
	}
	return fmt.Errorf("%s: cannot write in the folder: %w", dir, err)
}

// WriteAtomic writes data to path through a temporary file in the same
// folder and a rename, so no reader sees half a file.
func WriteAtomic(path string, data []byte) error { return writeAtomic(path, data) }

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return unwritable(filepath.Dir(path), err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// OK is every valid run with status ok, by trial key: what decisions
// read. When some files are not valid records, they are left out and the
// error is an Invalid naming each (errors.As finds it); the runs are
// returned all the same, so a caller may go on without them.
func (s *Store) OK() (map[string][]*record.Record, error) {
	runs, _, err := s.ok(false)
	return runs, err
}

// OKWithSamples is OK with the per-request samples of the runs that have
// them (measured and simulated runs). A run whose samples are missing or
// damaged is invalid: left out and named.
func (s *Store) OKWithSamples() (map[string][]*record.Record, map[*record.Record][]record.Sample, error) {
	return s.ok(true)
}

func (s *Store) ok(withSamples bool) (map[string][]*record.Record, map[*record.Record][]record.Sample, error) {
	all, bad, err := s.scan()
	if err != nil {
		return nil, nil, err
	}
	runs, samples := map[string][]*record.Record{}, map[*record.Record][]record.Sample{}
	for key, rs := range all {
		for _, r := range rs {
			if r.Record.Status != "ok" {
				continue
			}
			if withSamples && r.Record.Samples != "" {
				ss, err := s.Samples(r)
				if err != nil {
					bad = append(bad, Excluded{Path: r.Path, Key: key, Invalid: true, Reason: r.Path + ": its samples: " + err.Error()})
					continue
				}
				samples[r.Record] = ss
			}
			runs[key] = append(runs[key], r.Record)
		}
	}
	return runs, samples, bad.err()
}

// Excluded is a run file that decisions do not use, and why.
type Excluded struct {
	Path string
	Key  string // the trial key its folder names
	// Invalid is true for a file that is not a valid record (damaged,
	// hand-edited, impossible figures); false for a valid record of a
	// failed run.
	Invalid bool
	Reason  string // the failed run's reason, or what is wrong (file and field)
}

// Invalid lists the files a load left out as invalid. As an error it
// names each, one a line, and says what to do.
type Invalid []Excluded

func (v Invalid) err() error {
	if len(v) == 0 {
		return nil
	}
	return v
}

func (v Invalid) Error() string {
	lines := make([]string, len(v))
	for i, e := range v {
		lines[i] = e.Reason
	}
	return strings.Join(lines, "\n")
}

// Unused lists the runs that decisions leave out: valid records of
// failed runs (with their reasons) and files that are not valid records
// (with what is wrong), sorted by path. analyze prints it.
func (s *Store) Unused() ([]Excluded, error) {
	all, bad, err := s.scan()
	if err != nil {
		return nil, err
	}
	out := append([]Excluded(nil), bad...)
	for key, rs := range all {
		for _, r := range rs {
			if r.Record.Status != "ok" {
				out = append(out, Excluded{Path: r.Path, Key: key, Reason: r.Record.Reason})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Columns splits a list of excluded runs into the parallel slices
// decide.Analysis.Exclude takes (the decision package does no I/O and
// does not know the store's types).
func Columns(ex []Excluded) (keys, paths, reasons []string, invalid []bool) {
	for _, e := range ex {
		keys, paths = append(keys, e.Key), append(paths, e.Path)
		reasons, invalid = append(reasons, e.Reason), append(invalid, e.Invalid)
	}
	return keys, paths, reasons, invalid
}

// ReplacedDir is where replaced runs go, inside the results folder: out
// of every reader's way (no trial key names it), and recoverable with a
// plain mv back into results/<key>/.
const ReplacedDir = ".replaced"

// MoveAside takes run out of the store without losing it: the record
// (and its samples sidecar) move to results/.replaced/<key>/, and the
// new path is returned. Identical bytes already there (names are hashes)
// make the move a removal of a copy. The caller must hold the lock.
func (s *Store) MoveAside(run Run) (string, error) {
	dir := filepath.Join(s.Dir, ReplacedDir, run.Record.Key)
	if err := MakeDir(dir); err != nil {
		return "", err
	}
	files := []string{run.Path}
	if run.Record.Samples != "" {
		files = append(files, filepath.Join(filepath.Dir(run.Path), run.Record.Samples))
	}
	for _, f := range files {
		if err := moveNoClobber(f, filepath.Join(dir, filepath.Base(f))); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, filepath.Base(run.Path)), nil
}

// moveNoClobber renames from to to; when to exists with the same bytes,
// from is a duplicate and goes; when it differs, nothing moves.
func moveNoClobber(from, to string) error {
	if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
		return nil // a sidecar another replaced run already took
	}
	if old, err := os.ReadFile(to); err == nil {
		cur, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, cur) {
			return fmt.Errorf("%s: %s already exists with other bytes; nothing moved", from, to)
		}
		return os.Remove(from)
	}
	return os.Rename(from, to)
}
