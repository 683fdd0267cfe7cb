package report

import (
	"maps"
	"strings"
	"testing"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/importer"
	"servelab.dev/execute/record"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// An importer's notes appear under the run they concern, in every
// language, without English words in the translated reports.
func TestImportNotesUnderRuns(t *testing.T) {
	id := studies[0]
	s, _, runs := seed(t, id)
	var notes []record.Note
	for _, k := range importer.NoteKeys {
		args := make([]string, strings.Count(k, "%s"))
		for i := range args {
			args[i] = "7"
		}
		notes = append(notes, record.Note{Msg: k, Args: args})
	}
	withNotes := decide.Runs{}
	for k, rs := range runs {
		for _, r := range rs {
			c := *r
			c.ImportNotes = notes
			withNotes[k] = append(withNotes[k], &c)
		}
	}
	a, err := decide.Analyze(s, decide.Records{Runs: withNotes}, decide.Auto)
	if err != nil {
		t.Fatal(err)
	}
	reports := renderAll(t, s, a, withNotes)
	gloss := append(append([]string{}, i18n.Glossary...), "servelab")
	for _, lang := range i18n.Codes() {
		p := i18n.MustNew(lang)
		text := string(reports[id+"."+lang+".md"])
		for _, n := range notes {
			if n.Msg == importer.NoteFailedUnknown {
				// Every seed run completed its profile's 1,000 requests:
				// the derived count stands in the unknown one's place.
				n = record.Note{Msg: importer.NoteFailedNone, Args: []string{"1000"}}
			}
			args := make([]any, len(n.Args))
			for i, a := range n.Args {
				args[i] = a
			}
			if want := d.String(d.M(n.Msg, args...), p); !strings.Contains(text, want) {
				t.Errorf("%s: note missing: %q", lang, want)
			}
		}
		if lang == "en" {
			continue
		}
		text = fenceRE.ReplaceAllString(text, "")
		text = codeSpanRE.ReplaceAllString(text, "")
		text = linkRE.ReplaceAllString(text, "]")
		for _, g := range longestFirst(gloss) {
			text = strings.ReplaceAll(text, g, " ")
		}
		for _, m := range englishRE.FindAllString(text, -1) {
			t.Errorf("%s: English words %q", lang, m)
		}
	}
}

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

// A final engine without a container image has no deployment files,
// and the page says why where the links would be.
func TestNoImageNoDeployLinks(t *testing.T) {
	s, a, runs := seed(t, "qwen3-8b-h100-latency")
	a.Runs = runs
	e := *s.Engines[a.Final.Engine]
	e.Image, e.Def.Image = "", ""
	s.Engines = maps.Clone(s.Engines)
	s.Engines[a.Final.Engine] = &e
	md := plainEN(t, s, a)
	if !strings.Contains(md, "No deployment files: the engine ran outside any container image") || strings.Contains(md, "The same configuration for deployment") {
		t.Error("a page without an image neither says why it has no deployment files nor drops their links")
	}
}
