package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

func runImport(e *env, args []string) error {
	fs := newFlags(e, "import", "STUDY.cue --trial SELECTOR --format FORMAT FILE")
	sel := fs.String("trial", "", "trial key (or 8+ hex prefix), or step/variant/profile[/repeat]")
	format := fs.String("format", "", "file format: "+strings.Join(importer.Formats, ", "))
	entry := fs.String("entry", "", "which run of a file holding several: its index (1-based), or rate=R and/or concurrency=C (default: the only one matching the trial)")
	results := fs.String("results", "results", "results folder")
	wait := fs.Duration("lock-wait", 30*time.Second, "how long to wait for another servelab holding the results folder")
	replace := fs.Bool("replace", false, "replace the trial's existing runs with this one; they move to RESULTS/.replaced/KEY/ (printed), never deleted")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *wait < 0 {
		return usagef("--lock-wait %s: want a duration of 0 or more", *wait)
	}
	if len(pos) != 2 || *sel == "" || *format == "" {
		return usagef("want: servelab import STUDY.cue --trial SELECTOR --format FORMAT FILE")
	}
	s, err := loadStudy(pos[0])
	if err != nil {
		return err
	}
	all, src, err := readImport(pos[1], *format)
	if err != nil {
		return err
	}
	st := store.Open(*results)
	unlock, err := st.Lock(*wait, "servelab import "+pos[1])
	if err != nil {
		return err
	}
	defer unlock()
	msg, err := importInto(e, st, s, importSource{*sel, *format, pos[1], *entry, src, all}, *replace)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, msg)
	holdLock()
	return nil
}

// holdLock keeps the lock for SERVELAB_LOCK_HOLD (a duration) after the
// write: a test hook that makes concurrent imports overlap for certain.
func holdLock() {
	if d, err := time.ParseDuration(os.Getenv("SERVELAB_LOCK_HOLD")); err == nil {
		time.Sleep(d)
	}
}

func readImport(file, format string) ([]importer.Result, []byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	all, err := importer.Parse(format, src)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	return all, src, nil
}

// importSource is what an import reads: the file, its entries, and the
// trial and entry the command line names.
type importSource struct {
	sel, format, file, entry string
	data                     []byte
	all                      []importer.Result
}

func importInto(e *env, st *store.Store, s *schema.Study, in importSource, replace bool) (string, error) {
	t, res, entry, err := resolveImport(e, st, s, in)
	if err != nil {
		return "", err
	}
	where := fmt.Sprintf("trial %s/%s/%s (%s)", t.Step, t.Variant, t.Profile, t.Key[:12])
	sum := sha256.Sum256(in.data)
	sha := hex.EncodeToString(sum[:])
	stored, err := st.All() // valid runs: an invalid file stays where it is, named
	if err = e.skipInvalid(err); err != nil {
		return "", err
	}
	if msg, stop, err := duplicate(importer.FindDuplicate(res, sha, entry, t.Key, stored), in.file+entrySuffix(entry), t.Key, replace); stop {
		return msg, err
	}
	r := &record.Record{
		Format: record.Format, Key: t.Key, Trial: *t.Spec, Status: "ok", Metrics: res.Metrics, ImportNotes: res.Notes,
		Provenance: record.Provenance{Kind: record.Imported, Source: in.file, SHA256: sha,
			SourceFormat: in.format, Servelab: version, Precision: res.Precision, Entry: entry},
	}
	if r.Metrics.Completed == 0 {
		r.Status, r.Reason = "failed", "no request completed"
	}
	old, err := st.Runs(t.Key) // valid runs: an invalid file stays where it is, named above
	if err = e.skipInvalid(err); err != nil {
		return "", err
	}
	path, added, err := st.Put(r)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("%s%s: imported into %s as %s", in.file, entrySuffix(entry), where, path)
	if !added {
		msg = fmt.Sprintf("%s: same figures as %s, not added again (%s)", in.file, path, where)
	}
	if !replace {
		return msg, nil
	}
	for _, o := range old {
		if o.Path == path {
			continue
		}
		aside, err := st.MoveAside(o)
		if err != nil {
			return "", fmt.Errorf("%s; replacing %s: %w", msg, o.Path, err)
		}
		msg += fmt.Sprintf("\nreplaced %s: moved to %s (restore it with mv into %s)", o.Path, aside, filepath.Dir(o.Path))
	}
	return msg, nil
}

// resolveImport finds the trial, the file's entry for it (and its
// name), and checks the entry against the trial.
func resolveImport(e *env, st *store.Store, s *schema.Study, in importSource) (*plan.Trial, *importer.Result, string, error) {
	rs, err := loadRecords(e, st)
	if err != nil {
		return nil, nil, "", err
	}
	p, err := decide.Plan(s, rs, decide.Real)
	if err != nil {
		return nil, nil, "", err
	}
	t, err := selectTrial(p, in.sel)
	if err != nil {
		return nil, nil, "", err
	}
	where := fmt.Sprintf("trial %s/%s/%s (%s)", t.Step, t.Variant, t.Profile, t.Key[:12])
	i, err := importer.Pick(in.all, in.entry, in.format, *t.Spec)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s, into %s: %v", in.file, where, err)
	}
	res, entry := &in.all[i], importer.EntryName(in.all, i)
	if bad := importer.Check(res, in.format, *t.Spec); len(bad) > 0 {
		return nil, nil, "", fmt.Errorf("%s%s does not match %s:\n  %s", in.file, entrySuffix(entry), where, strings.Join(bad, "\n  "))
	}
	return t, res, entry, nil
}

func entrySuffix(entry string) string {
	if entry == "" {
		return ""
	}
	return ", " + entry
}

// duplicate turns a found duplicate into the command's answer: a second
// import of one source is a no-op, a run's figures coming back (a
// report's block imported) are refused, and a source already imported
// into another trial is refused whatever --replace says.
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
