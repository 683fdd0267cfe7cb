package importer

import (
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
)

// The same bytes and entry are the same run, whatever the path and the
// trial; another entry of the same file is not; a record written before
// entries were named matches the entry with its counts.
func TestFindDuplicateBySource(t *testing.T) {
	rs, err := parseFile(t, "vllm-text", "vllm-sweep.log")
	if err != nil {
		t.Fatal(err)
	}
	stored := func(entry string, m record.Metrics) map[string][]store.Run {
		rec := &record.Record{Key: "other", Metrics: m, Provenance: record.Provenance{Kind: record.Imported, SHA256: "abc", Entry: entry}}
		return map[string][]store.Run{"other": {{Path: "results/other/x.json", Record: rec}}}
	}
	e2 := EntryName(rs, 1)
	if d := FindDuplicate(&rs[1], "abc", e2, "mine", stored(e2, rs[1].Metrics)); d == nil || !d.SameSource || d.Run.Record.Key != "other" {
		t.Errorf("same source and entry in another trial not found: %+v", d)
	}
	if d := FindDuplicate(&rs[2], "abc", EntryName(rs, 2), "mine", stored(e2, rs[1].Metrics)); d != nil {
		t.Errorf("another entry of the file taken for a duplicate: %+v", d)
	}
	if d := FindDuplicate(&rs[1], "abc", e2, "mine", stored("", rs[1].Metrics)); d == nil {
		t.Error("a record without an entry name, of the same counts, not recognised")
	}
	if d := FindDuplicate(&rs[1], "abc", e2, "mine", stored("", rs[0].Metrics)); d != nil {
		t.Error("a record without an entry name, of other counts, taken for a duplicate")
	}
	if d := FindDuplicate(&rs[1], "def", e2, "mine", stored(e2, rs[1].Metrics)); d != nil {
		t.Error("other bytes taken for the same source")
	}
}
