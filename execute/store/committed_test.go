package store

import (
	"testing"

	"servelab.dev/execute/record"
)

// No two committed runs that overlapped in time on one host shared a
// GPU: a figure measured beside another trial on the same GPU would not
// be its configuration's own.
func TestCommittedRunsShareNoGPU(t *testing.T) {
	all, err := Open("../../results").OK()
	if err != nil {
		t.Fatal(err)
	}
	var rs []*record.Record
	measured := 0
	for _, runs := range all {
		for _, r := range runs {
			rs = append(rs, r)
			if r.Provenance.Kind == "measured" {
				measured++
			}
		}
	}
	if measured == 0 {
		t.Fatal("no measured records under results/")
	}
	if clash := record.SharedGPUs(rs); len(clash) > 0 {
		t.Errorf("%d pairs of runs shared a GPU:\n%v", len(clash), clash)
	}
}
