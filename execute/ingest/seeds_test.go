package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
)

// Defect: the committed seed records said failed 0 for blocks that print
// no failed count. Every imported record whose block prints none must
// leave the count unknown, as the import does now.
func TestSeedRecordsKeepFailedUnknown(t *testing.T) {
	all, err := store.Open("../../results").All()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, runs := range all {
		for _, run := range runs {
			p := run.Record.Provenance
			if p.Kind != record.Imported {
				continue
			}
			src, err := os.ReadFile(filepath.Join("../..", p.Source))
			if err != nil {
				t.Errorf("%s: its source: %v", run.Path, err)
				continue
			}
			seen++
			if !bytes.Contains(src, []byte("Failed requests")) && run.Record.Metrics.Failed != nil {
				t.Errorf("%s: failed %d, but %s prints no failed count", run.Path, *run.Record.Metrics.Failed, p.Source)
			}
		}
	}
	if seen < 40 {
		t.Errorf("%d imported seed records checked, want the 40 committed", seen)
	}
}
