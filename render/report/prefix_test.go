package report

import (
	"strings"
	"testing"
)

// The prefix-caching tables list only loads where a prompt shared a
// prefix or the cache hit: the H200 study's random-prompt runs at
// concurrency 8 reuse nothing, its shared-prefix runs do.
func TestPrefixTableSkipsLoadsWithoutReuse(t *testing.T) {
	s, a := h200Study(t)
	md := markdownOf(t, s, a, nil, "en")
	if strings.Contains(md, "| Concurrency 8 | 0.0% | 0.0% | 0 |") {
		t.Error("a prefix table lists random-prompt runs that reused nothing")
	}
	if !strings.Contains(md, "| Shared prefixes, concurrency 8 | 89.4% |") {
		t.Error("the prefix tables lost the shared-prefix runs")
	}
}
