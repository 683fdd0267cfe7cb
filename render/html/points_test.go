package html

import (
	"slices"
	"testing"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
)

// A point's label drops the words every category shares, down to a name
// with a letter in it, so it can sit beside its own point.
func TestPointNames(t *testing.T) {
	p := i18n.MustNew("en")
	for _, c := range []struct{ in, want []string }{
		{[]string{"ShareGPT, concurrency 1", "ShareGPT, concurrency 8"}, []string{"concurrency 1", "concurrency 8"}},
		{[]string{"ShareGPT 1RPS", "ShareGPT 16RPS"}, []string{"1RPS", "16RPS"}},
		{[]string{"Concurrency 1", "Concurrency 8"}, []string{"Concurrency 1", "Concurrency 8"}},
		{[]string{"ShareGPT 并发 1", "ShareGPT 并发 8"}, []string{"并发 1", "并发 8"}},
		{[]string{"Concurrency 1", "Shared prefixes, concurrency 8"}, []string{"Concurrency 1", "Shared prefixes, concurrency 8"}},
	} {
		var ch d.Chart
		for _, s := range c.in {
			ch.Categories = append(ch.Categories, d.Lit(s))
		}
		if got := pointNames(ch, p); !slices.Equal(got, c.want) {
			t.Errorf("pointNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
