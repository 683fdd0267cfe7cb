package markdown

import (
	"bytes"
	"html"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
)

// Escaped text reads back as itself: CommonMark renders it as one plain
// paragraph, with no tag, link, image or emphasis made of its characters.
func FuzzEscapeReadsBack(f *testing.F) {
	for _, s := range []string{"prompt_save (!) < 8", "a *b* [c](d) <i>", "![x](y) _e_ <https://x>", "x_ _y", "a&amp;b", "`code`", "~~s~~ |t| #h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || !utf8.ValidString(s) || strings.ContainsAny(s, "\r\n\t\x00") || strings.TrimSpace(s) != s || strings.Contains(s, "  ") || strings.HasSuffix(s, "\\") {
			return // one line of prose, as Esc is given
		}
		var out bytes.Buffer
		if err := goldmark.Convert([]byte("x "+f0.Esc(s)+" y"), &out); err != nil {
			t.Fatal(err)
		}
		body := strings.TrimSuffix(strings.TrimPrefix(out.String(), "<p>"), "</p>\n")
		if strings.Contains(body, "<") {
			t.Fatalf("%q made markup: %s", s, out.String())
		}
		if got := html.UnescapeString(body); got != "x "+s+" y" {
			t.Fatalf("%q reads back as %q", s, got)
		}
	})
}

var f0 = f
