// Package ingest stores another tool's benchmark output as the record
// of one of a study's trials, as `servelab import` does: it finds the
// trial in the study's plan (decided from the records already stored),
// picks the file's entry for it, checks the entry against the trial,
// refuses a run imported twice or into two trials, and puts the record
// in the store; with Replace the trial's other runs (or, for a source
// imported before, the run it gave) are moved aside, never deleted.
package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/importer"
	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Source is a file of another tool's output, read.
type Source struct {
	File, Format string
	// Detected: Format was recognised from the content (--format auto).
	Detected bool
	Data     []byte
	Entries  []importer.Result
}

// The bounds of a read. A benchmark tool's summary is kilobytes to a few
// megabytes; a file far larger, or one that takes this long to read, is
// not one (or sits on a stalled file system), and reading it whole would
// hold the memory or the results folder's lock for nothing.
const (
	MaxSize     = 128 << 20
	ReadTimeout = 30 * time.Second
)

// Read reads file and parses it in format ("auto": recognised from the
// content). Only a regular file of at most MaxSize bytes is read, and the
// read and parse must finish within ReadTimeout.
func Read(file, format string) (Source, error) {
	type result struct {
		src Source
		err error
	}
	done := make(chan result, 1)
	go func() {
		src, err := readSource(file, format)
		done <- result{src, err}
	}()
	timer := time.NewTimer(ReadTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.src, r.err
	case <-timer.C:
		// The read goes on in its goroutine until the system call
		// returns; the command exits before that matters.
		return Source{}, fmt.Errorf("%s: not read within %s (a stalled or very slow file system?): copy the file to a local disk and import the copy", file, ReadTimeout)
	}
}

func readSource(file, format string) (Source, error) {
	data, err := readBounded(file)
	if err != nil {
		return Source{}, err
	}
	src := Source{File: file, Format: format, Data: data}
	if format == importer.Auto {
		if src.Format, err = importer.Detect(data); err != nil {
			return Source{}, fmt.Errorf("%s: %w", file, err)
		}
		src.Detected = true
	}
	if src.Entries, err = importer.Parse(src.Format, data); err != nil {
		return Source{}, fmt.Errorf("%s: %w", file, err)
	}
	return src, nil
}

// readBounded reads a regular file of at most MaxSize bytes. The mode is
// checked before the open, which would block on a FIFO, and again on the
// open file, which may not be the one checked.
func readBounded(file string) ([]byte, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if err := regular(file, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := regular(file, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > MaxSize {
		return nil, tooLarge(file, int64(len(data)))
	}
	return data, nil
}

func regular(file string, fi os.FileInfo) error {
	m := fi.Mode()
	if !m.IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file: import reads only a file a benchmark tool wrote; save the output to a file and import that", file, modeName(m))
	}
	if fi.Size() > MaxSize {
		return tooLarge(file, fi.Size())
	}
	return nil
}

func tooLarge(file string, size int64) error {
	return fmt.Errorf("%s is %d MiB, above the %d MiB an import reads: a benchmark tool's result is far smaller; import the tool's result file, not a log or data set", file, size>>20, MaxSize>>20)
}

func modeName(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// Options say where the source goes.
type Options struct {
	// Trial selects the trial (plan.Select); Entry the file's entry
	// (importer.Pick: an index, or rate=R and/or concurrency=C; "" for
	// the only one matching the trial).
	Trial, Entry string
	// Replace moves the trial's other runs to the store's .replaced
	// folder once the new one is in; re-reading a source imported before,
	// only the run that source gave.
	Replace bool
	// Version is servelab's, recorded in the provenance.
	Version string
}

// Result says what an import did.
type Result struct {
	// Message is one line of what was stored (or why nothing was), then
	// one line for each run moved aside.
	Message string
	// Invalid are the results folder's files that are not valid
	// records: left in place and out of the plan the trial was found in.
	Invalid store.Invalid
}

// Into imports src into the trial o.Trial names. The caller holds the
// store's lock (store.Lock). Invalid files in the store are no error:
// the Result lists them, also when an error is returned.
func Into(st *store.Store, s *schema.Study, src Source, o Options) (Result, error) {
	var res Result
	tg, err := resolve(st, s, src, o, &res)
	if err != nil {
		return res, err
	}
	t, e, entry := tg.trial, tg.entry, tg.name
	sum := sha256.Sum256(src.Data)
	sha := hex.EncodeToString(sum[:])
	stored, err := st.All() // valid runs: an invalid file stays where it is, named
	if err = res.skip(err); err != nil {
		return res, err
	}
	dup := importer.FindDuplicate(e, sha, entry, t.Key, stored)
	if msg, stop, err := duplicate(dup, src.File+entrySuffix(entry), t.Key, o.Replace); stop {
		res.Message = msg
		return res, err
	}
	old, err := st.Runs(t.Key)
	if err = res.skip(err); err != nil {
		return res, err
	}
	if dup != nil && dup.SameSource {
		old = []store.Run{dup.Run} // reading one source again replaces the run it gave, not its siblings
	}
	path, added, err := st.Put(Record(t, e, src, entry, sha, o.Version))
	if err != nil {
		return res, err
	}
	res.Message = importMessage(src, t, e, entry, path, added)
	if added && tg.simRuns > 0 {
		res.Message += setAside(s, tg, path, src.File)
	}
	if o.Replace {
		return res, moveAside(st, old, path, &res)
	}
	return res, nil
}

// importMessage is the line saying what was stored, and a line for what
// the import matched beyond the obvious.
func importMessage(src Source, t *plan.Trial, e *importer.Result, entry, path string, added bool) string {
	where := fmt.Sprintf("trial %s/%s/%s (%s)", t.Step, t.Variant, t.Profile, t.Key[:12])
	read := ""
	if src.Detected {
		read = ", read as " + src.Format
	}
	if !added {
		return fmt.Sprintf("%s%s: same figures as %s, not added again (%s)", src.File, read, path, where)
	}
	msg := fmt.Sprintf("%s%s%s: imported into %s as %s", src.File, entrySuffix(entry), read, where, path)
	for _, n := range e.Notes {
		if n.Msg == importer.NoteAllAtOnce {
			msg += "\nmatched: " + n.String()
		}
	}
	return msg
}

// setAside says that the study's simulated runs no longer count, which
// they are, and how to keep them.
func setAside(s *schema.Study, tg *target, path, file string) string {
	return fmt.Sprintf("\nset aside: study %s had only simulated runs; with this measured run it reads real runs only, "+
		"so its %d simulated runs count for nothing, the study is undecided until its real runs are in, and export waits for them. "+
		"Set aside, kept in the results folder: %s."+
		"\nTo keep the simulated study, keep real runs in a results folder of their own: move %s out of this one and import again with --results DIR (servelab import ... --results DIR %s)",
		s.ID, tg.simRuns, strings.Join(tg.simTrials, ", "), path, file)
}

// Record is the record of entry e of src as a run of trial t: ok, or
// failed when no request completed; its provenance names the file, its
// sha256, format and entry.
func Record(t *plan.Trial, e *importer.Result, src Source, entry, sha, version string) *record.Record {
	r := &record.Record{
		Format: record.Format, Key: t.Key, Trial: *t.Spec, Status: "ok", Metrics: e.Metrics, ImportNotes: e.Notes,
		Provenance: record.Provenance{Kind: record.Imported, Source: src.File, SHA256: sha,
			SourceFormat: src.Format, Servelab: version, Precision: e.Precision, Entry: entry},
	}
	if r.Metrics.Completed == 0 {
		r.Status, r.Reason = "failed", "no request completed"
	}
	return r
}

// moveAside moves the trial's runs other than the one at kept to the
// store's .replaced folder, saying where each went.
func moveAside(st *store.Store, old []store.Run, kept string, res *Result) error {
	for _, o := range old {
		if o.Path == kept {
			continue
		}
		aside, err := st.MoveAside(o)
		if err != nil {
			return fmt.Errorf("%s; replacing %s: %w", res.Message, o.Path, err)
		}
		res.Message += fmt.Sprintf("\nreplaced %s: moved to %s (restore it with mv into %s)", o.Path, aside, filepath.Dir(o.Path))
	}
	return nil
}

// skip adds the invalid records an error lists to the result and
// swallows it; any other error is returned.
func (r *Result) skip(err error) error {
	var bad store.Invalid
	if !errors.As(err, &bad) {
		return err
	}
	r.Invalid = append(r.Invalid, bad...)
	return nil
}

// target is what resolve finds: the trial, the file's entry for it and
// that entry's name, and the simulated runs the study reads until it has
// a real one (decide.SimulatedInUse).
type target struct {
	trial     *plan.Trial
	entry     *importer.Result
	name      string
	simTrials []string
	simRuns   int
}

// resolve finds the trial and the file's entry for it, and checks the
// entry against the trial.
func resolve(st *store.Store, s *schema.Study, src Source, o Options, res *Result) (*target, error) {
	runs, samples, err := st.OKWithSamples()
	if err = res.skip(err); err != nil {
		return nil, err
	}
	recs := decide.Records{Runs: runs, Samples: samples}
	p, err := decide.Plan(s, recs, decide.Real)
	if err != nil {
		return nil, err
	}
	t, err := plan.Select(p, o.Trial)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("trial %s/%s/%s (%s)", t.Step, t.Variant, t.Profile, t.Key[:12])
	i, err := importer.Pick(src.Entries, o.Entry, src.Format, *t.Spec)
	if err != nil {
		return nil, fmt.Errorf("%s, into %s: %w", src.File, where, err)
	}
	e, entry := &src.Entries[i], importer.EntryName(src.Entries, i)
	if bad := importer.Check(e, src.Format, *t.Spec); len(bad) > 0 {
		return nil, fmt.Errorf("%s%s does not match %s:\n  %s", src.File, entrySuffix(entry), where, strings.Join(bad, "\n  "))
	}
	tg := &target{trial: t, entry: e, name: entry}
	if tg.simTrials, tg.simRuns, err = decide.SimulatedInUse(s, recs); err != nil {
		return nil, err
	}
	return tg, nil
}

func entrySuffix(entry string) string {
	if entry == "" {
		return ""
	}
	return ", " + entry
}

// duplicate turns a found duplicate into the import's answer: a second
// import of one source is a no-op, a run's figures coming back (a
// report's block imported) are refused, and a source already imported
// into another trial is refused whatever Replace says.
func duplicate(d *importer.Duplicate, what, key string, replace bool) (string, bool, error) {
	switch {
	case d == nil:
		return "", false, nil
	case d.Run.Record.Key != key:
		return "", true, fmt.Errorf("%s was already imported into trial %s as %s: one run cannot be a run of two trials; if that import was wrong, move %s out of the results folder and import again",
			what, d.Run.Record.Key[:12], d.Run.Path, d.Run.Path)
	case replace:
		return "", false, nil
	case d.SameSource:
		return fmt.Sprintf("%s: already imported as %s (same source, sha256 %s), not added again; --replace reads it again", what, d.Run.Path, d.Run.Record.Provenance.SHA256[:12]), true, nil
	}
	return "", true, fmt.Errorf("%s reproduces the figures of %s to the file's precision: it is that run again (a report's block imported back?), not a new repeat; not imported (--replace replaces the trial's runs with it)",
		what, d.Run.Path)
}
