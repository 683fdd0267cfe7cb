package report

import (
	"strings"
	"testing"

	"servelab.dev/schema"
)

// Notes stay in view while they fit; what follows is folded only when
// it is as long again, and the first note is always shown.
func TestSplitNotes(t *testing.T) {
	note := func(n int) schema.Text { return schema.Text{EN: strings.Repeat("x", n)} }
	for _, c := range []struct {
		notes       []schema.Text
		shown, more int
	}{
		{[]schema.Text{note(300), note(300)}, 2, 0},
		{[]schema.Text{note(1500), note(300)}, 2, 0},                      // the rest is short: nothing folded
		{[]schema.Text{note(400), note(400), note(800), note(900)}, 2, 2}, // 800 + 900 folded
		{[]schema.Text{note(2000), note(600), note(600)}, 1, 2},           // a long first note, then the rest folded
		{[]schema.Text{note(400), note(700), note(200), note(900)}, 1, 3}, // once one note is folded, the rest follow
	} {
		shown, more := splitNotes(c.notes)
		if len(shown) != c.shown || len(more) != c.more {
			t.Errorf("%d notes: %d shown, %d folded; want %d and %d", len(c.notes), len(shown), len(more), c.shown, c.more)
		}
	}
}
