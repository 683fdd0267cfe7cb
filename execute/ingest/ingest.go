// Package ingest stores another tool's benchmark output as the record
// of one of a study's trials, as `servelab import` does: it finds the
// trial in the study's plan (decided from the records already stored),
// picks the file's entry for it, checks the entry against the trial,
// refuses a run imported twice or into two trials, and puts the record
// in the store; with Replace the trial's other runs are moved aside,
// never deleted.
package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	Data         []byte
	Entries      []importer.Result
}

// Read reads file and parses it in format.
func Read(file, format string) (Source, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Source{}, err
	}
	all, err := importer.Parse(format, data)
	if err != nil {
		return Source{}, fmt.Errorf("%s: %w", file, err)
	}
	return Source{File: file, Format: format, Data: data, Entries: all}, nil
}

// Options say where the source goes.
type Options struct {
	// Trial selects the trial (plan.Select); Entry the file's entry
	// (importer.Pick: an index, or rate=R and/or concurrency=C; "" for
	// the only one matching the trial).
	Trial, Entry string
	// Replace moves the trial's other runs to the store's .replaced
	// folder once the new one is in.
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
	t, e, entry, err := resolve(st, s, src, o, &res)
	if err != nil {
		return res, err
	}
	sum := sha256.Sum256(src.Data)
	sha := hex.EncodeToString(sum[:])
	stored, err := st.All() // valid runs: an invalid file stays where it is, named
	if err = res.skip(err); err != nil {
		return res, err
	}
	if msg, stop, err := duplicate(importer.FindDuplicate(e, sha, entry, t.Key, stored), src.File+entrySuffix(entry), t.Key, o.Replace); stop {
		res.Message = msg
		return res, err
	}
	old, err := st.Runs(t.Key)
	if err = res.skip(err); err != nil {
		return res, err
	}
	r := Record(t, e, src, entry, sha, o.Version)
	path, added, err := st.Put(r)
	if err != nil {
		return res, err
	}
	where := fmt.Sprintf("trial %s/%s/%s (%s)", t.Step, t.Variant, t.Profile, t.Key[:12])
	res.Message = fmt.Sprintf("%s%s: imported into %s as %s", src.File, entrySuffix(entry), where, path)
	if !added {
		res.Message = fmt.Sprintf("%s: same figures as %s, not added again (%s)", src.File, path, where)
	}
	if o.Replace {
		return res, moveAside(st, old, path, &res)
	}
	return res, nil
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

// resolve finds the trial, the file's entry for it (and its name), and
// checks the entry against the trial.
func resolve(st *store.Store, s *schema.Study, src Source, o Options, res *Result) (*plan.Trial, *importer.Result, string, error) {
	runs, samples, err := st.OKWithSamples()
	if err = res.skip(err); err != nil {
		return nil, nil, "", err
	}
	p, err := decide.Plan(s, decide.Records{Runs: runs, Samples: samples}, decide.Real)
	if err != nil {
		return nil, nil, "", err
	}
	t, err := plan.Select(p, o.Trial)
	if err != nil {
		return nil, nil, "", err
	}
	where := fmt.Sprintf("trial %s/%s/%s (%s)", t.Step, t.Variant, t.Profile, t.Key[:12])
	i, err := importer.Pick(src.Entries, o.Entry, src.Format, *t.Spec)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s, into %s: %w", src.File, where, err)
	}
	e, entry := &src.Entries[i], importer.EntryName(src.Entries, i)
	if bad := importer.Check(e, src.Format, *t.Spec); len(bad) > 0 {
		return nil, nil, "", fmt.Errorf("%s%s does not match %s:\n  %s", src.File, entrySuffix(entry), where, strings.Join(bad, "\n  "))
	}
	return t, e, entry, nil
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
