package schema

import (
	"maps"
	"slices"
)

// datasets checks that each profile's dataset fits the way the profile
// drives it: a trace profile replays a mooncake trace, conversations go
// at a concurrency of conversations over the chat API.
func (c *checker) datasets() {
	api := c.s.Benchmark.API
	for _, name := range slices.Sorted(maps.Keys(c.s.Profiles)) {
		p := c.s.Profiles[name]
		ds := c.s.DatasetOf(p)
		at := []any{"benchmark", "dataset", "name"}
		if p.Dataset != nil {
			at = []any{"profiles", name, "dataset", "name"}
		}
		switch {
		case p.Kind == "trace" && ds.Name != "mooncake":
			c.errorf([]any{"profiles", name, "kind"}, "a trace profile replays the arrival times of a mooncake trace, and its dataset is %s: give the profile dataset: {name: \"mooncake\", path: \"trace.jsonl\"}", ds.Name)
		case ds.Name == "conversations" && p.Kind != "concurrency":
			c.errorf([]any{"profiles", name, "kind"}, "conversations are driven by a number of conversations at once: make profile %s kind: \"concurrency\" (concurrency is the conversations in flight)", name)
		case ds.Name == "conversations" && api == "completions":
			c.errorf(at, "conversations carry their history as chat messages: set benchmark.api: \"chat\"")
		}
	}
}
