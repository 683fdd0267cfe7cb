package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/importer"
	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

func runImport(e *env, args []string) error {
	fs := newFlags(e, "import", "STUDY.cue --trial SELECTOR --format FORMAT FILE")
	sel := fs.String("trial", "", "trial key (or 8+ hex prefix), or step/variant/profile[/repeat]")
	format := fs.String("format", "", "file format: "+strings.Join(importer.Formats, ", "))
	entry := fs.Int("entry", 0, "which run of a file holding several (1-based)")
	results := fs.String("results", "results", "results folder")
	wait := fs.Duration("lock-wait", 30*time.Second, "how long to wait for another servelab holding the results folder")
	replace := fs.Bool("replace", false, "replace the trial's existing runs with this one (git history keeps the old ones)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || *sel == "" || *format == "" {
		return usagef("want: servelab import STUDY.cue --trial SELECTOR --format FORMAT FILE")
	}
	s, err := loadStudy(pos[0])
	if err != nil {
		return err
	}
	res, src, err := readImport(pos[1], *format, *entry)
	if err != nil {
		return err
	}
	st := store.Open(*results)
	unlock, err := st.Lock(*wait, "servelab import "+pos[1])
	if err != nil {
		return err
	}
	defer unlock()
	msg, err := importInto(st, s, *sel, *format, pos[1], src, res, *replace)
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

func readImport(file, format string, entry int) (*importer.Result, []byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	all, err := importer.Parse(format, src)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	switch {
	case entry == 0 && len(all) == 1:
		return &all[0], src, nil
	case entry == 0:
		return nil, nil, fmt.Errorf("%s holds %d runs: choose one with --entry 1..%d", file, len(all), len(all))
	case entry < 1 || entry > len(all):
		return nil, nil, fmt.Errorf("%s holds %d runs: --entry %d is out of range", file, len(all), entry)
	}
	return &all[entry-1], src, nil
}

func importInto(st *store.Store, s *schema.Study, sel, format, file string, src []byte, res *importer.Result, replace bool) (string, error) {
	rs, err := loadRecords(st)
	if err != nil {
		return "", err
	}
	p, err := decide.Plan(s, rs, decide.Real)
	if err != nil {
		return "", err
	}
	t, err := selectTrial(p, sel)
	if err != nil {
		return "", err
	}
	if bad := importer.Check(res, format, *t.Spec); len(bad) > 0 {
		return "", fmt.Errorf("%s does not match trial %s/%s/%s (%s):\n  %s", file, t.Step, t.Variant, t.Profile, t.Key[:12], strings.Join(bad, "\n  "))
	}
	sum := sha256.Sum256(src)
	r := &record.Record{
		Format: record.Format, Key: t.Key, Trial: *t.Spec, Status: "ok", Metrics: res.Metrics, Notes: res.Notes,
		Provenance: record.Provenance{Kind: record.Imported, Source: file, SHA256: hex.EncodeToString(sum[:]),
			SourceFormat: format, Servelab: version, Precision: res.Precision},
	}
	if r.Metrics.Completed == 0 {
		r.Status, r.Reason = "failed", "no request completed"
	}
	old, err := st.Runs(t.Key)
	if err != nil {
		return "", err
	}
	path, added, err := st.Put(r)
	if err != nil {
		return "", err
	}
	if replace {
		for _, o := range old {
			if o.Path != path {
				if err := os.Remove(o.Path); err != nil {
					return "", err
				}
			}
		}
	}
	where := fmt.Sprintf("trial %s/%s/%s (%s)", t.Step, t.Variant, t.Profile, t.Key[:12])
	if !added {
		return fmt.Sprintf("%s: same figures as %s, not added again (%s)", file, path, where), nil
	}
	return fmt.Sprintf("%s: imported into %s as %s", file, where, path), nil
}
