package report

import (
	"slices"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/startup"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// finalLaunches is what the final configuration's launches printed.
func (b *builder) finalLaunches() *launchView {
	f := b.a.Final
	if f == nil {
		return nil
	}
	return b.launches(configID(f.Kind, f.Version, f.Argv, f.Env))
}

// startupWarnings calls out, above the final command, each setting its
// engine said at start-up it changed or ignored, and which of the flags
// the message names the command sets: the command may not do all it
// seems to.
func (b *builder) startupWarnings() {
	v := b.finalLaunches()
	if v == nil {
		return
	}
	for _, c := range v.notices {
		said := d.M("At start-up %s logged %s (launches: %d of %d).", d.Lit(engineName(v.kind)), d.Code(c.n.Text), c.k, v.launches)
		var set, unset []d.Text
		for _, f := range c.n.Flags {
			if val, ok := argValue(v.argv, f); ok {
				set = append(set, d.Code(strings.TrimSpace(f+" "+val)))
			} else {
				unset = append(unset, d.Code(f))
			}
		}
		b.doc.Add(d.Note{Cause: "startup", Text: d.Sentences(said, flagsSet(set, unset))})
	}
}

// flagsSet says which of a notice's flags the command sets.
func flagsSet(set, unset []d.Text) d.Text {
	s, u := d.Join{Sep: ", ", Parts: set}, d.Join{Sep: ", ", Parts: unset}
	switch {
	case len(set) > 0 && len(unset) > 0:
		return d.M("%[2]s, which the command does not set, depends on what %[1]s sets, so the engine adjusted it to match. The notice reports that expected change; it is not an error in the command.", s, u)
	case len(set) > 0:
		return d.M("The command sets %s.", s)
	case len(unset) > 0:
		return d.M("The command does not set %s.", u)
	}
	return d.Lit("")
}

// finalSettings shows, below the final command, the settings its engine
// printed at start-up, folded on the web.
func (b *builder) finalSettings() {
	v := b.finalLaunches()
	if v == nil {
		return
	}
	blocks := []d.Block{
		d.Para{Text: d.M("What %s printed about its settings when it started this configuration, and the flags of the command that set them. Launches with a start-up log: %d.", d.Lit(engineName(v.kind)), v.launches)},
		settingsTable(v),
	}
	if len(v.varying) > 0 {
		blocks = append(blocks, d.Para{Text: d.M("Launches of this configuration printed different values of %s; the table shows the first launch's.", codes(v.varying))})
	}
	blocks = append(blocks, d.Para{Text: d.M("The log lines they come from:")}, d.CodeBlock{Lang: "text", Body: sourceLines(v.first)})
	b.doc.Add(d.Details{ID: "startup-final", Summary: d.M("Effective engine settings, from the engine's start-up log"), Blocks: blocks, InText: true})
}

// listed are the settings a table lists: the key ones and those a flag of
// the command sets.
func listed(v *launchView) []startup.Setting {
	var out []startup.Setting
	for _, st := range v.first.Settings {
		if _, inCmd := argValue(v.argv, st.Flag); st.Key || st.Flag != "" && inCmd {
			out = append(out, st)
		}
	}
	return out
}

func settingsTable(v *launchView) d.Table {
	t := d.Table{Head: []d.Text{d.M("Setting"), d.M("Value at start-up"), d.M("Flag"), d.M("In the command")}}
	for _, st := range listed(v) {
		flag, cmd := d.Text(d.Lit("—")), d.Text(d.Lit("—"))
		if st.Flag != "" {
			flag, cmd = d.Code(st.Flag), d.M("not set")
			if val, ok := argValue(v.argv, st.Flag); ok {
				cmd = d.Code(strings.TrimSpace(st.Flag + " " + val))
			}
		}
		t.Rows = append(t.Rows, []d.Text{d.Code(st.Name), d.Code(st.Value), flag, cmd})
	}
	return t
}

// maxSourceLine keeps a page readable: SGLang's arguments line is ten
// kilobytes; its start says which line it is.
const maxSourceLine = 240

// sourceLines are the distinct lines s's settings and notices come from.
func sourceLines(s *startup.Settings) string {
	var out []string
	add := func(l string) {
		if len(l) > maxSourceLine {
			l = strings.ToValidUTF8(l[:maxSourceLine], "") + " …"
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for _, st := range s.Settings {
		add(st.Line)
	}
	for _, n := range s.Notices {
		add(n.Line)
	}
	return strings.Join(out, "\n")
}

func codes(names []string) d.Text {
	var parts []d.Text
	for _, n := range names {
		parts = append(parts, d.Code(n))
	}
	return d.Join{Sep: ", ", Parts: parts}
}

// engineName names the engine as its start-up log does.
func engineName(kind string) string {
	if kind == "llamacpp" {
		return "llama-server"
	}
	return EngineName(kind)
}

// stepSettings shows, in a step, the start-up settings and notices
// that differ between its options, folded on the web: what the options
// changed in the engine, as the engine says, beside what they asked.
func (b *builder) stepSettings(ss *schema.Step, st decide.Step) {
	var names []d.Text
	var views []*launchView
	for _, o := range stepOptions(st) {
		t := b.trial(o.Key)
		if t == nil {
			continue
		}
		if v := b.launches(configID(t.Kind, t.Version, t.Argv, t.Env)); v != nil {
			names, views = append(names, b.optionName(ss, o.Variant)), append(views, v)
		}
	}
	rows := differing(views)
	if len(views) < 2 || len(rows) == 0 {
		return
	}
	t := d.Table{Head: append([]d.Text{d.M("Setting or notice")}, names...), Rows: rows}
	intro := d.Para{Text: d.M("Start-up settings and notices of the engine that differ between the options, as the engine logged them:")}
	b.doc.Add(d.Details{ID: "startup-" + sanitize(st.ID), Summary: d.M("Effective engine settings of the options"), Blocks: []d.Block{intro, t}, InText: true})
}

// stepOptions are the incumbent, then the step's options, each once.
func stepOptions(st decide.Step) []decide.Option {
	var out []decide.Option
	if st.Incumbent != nil {
		out = append(out, *st.Incumbent)
	}
	for _, o := range st.Options {
		if !slices.ContainsFunc(out, func(p decide.Option) bool { return p.Key == o.Key }) {
			out = append(out, o)
		}
	}
	return out
}

// differing are the table rows of the settings, then the notices, whose
// values are not the same in every view, in the order first printed.
func differing(views []*launchView) [][]d.Text {
	var rows [][]d.Text
	var names, notices []string
	for _, v := range views {
		for _, st := range v.first.Settings {
			if !slices.Contains(names, st.Name) {
				names = append(names, st.Name)
			}
		}
		for _, n := range v.notices {
			if !slices.Contains(notices, n.n.Text) {
				notices = append(notices, n.n.Text)
			}
		}
	}
	for _, name := range names {
		vals := make([]string, len(views))
		for i, v := range views {
			vals[i] = settingValue(v.first, name)
		}
		if !allSame(vals) {
			row := []d.Text{d.Code(name)}
			for _, val := range vals {
				row = append(row, orDash(val))
			}
			rows = append(rows, row)
		}
	}
	for _, text := range notices {
		counts := make([]int, len(views))
		for i, v := range views {
			counts[i] = noticeLaunches(v, text)
		}
		if !allSame(counts) || counts[0] != views[0].launches {
			rows = append(rows, noticeRow(text, views, counts))
		}
	}
	return rows
}

func noticeRow(text string, views []*launchView, counts []int) []d.Text {
	row := []d.Text{d.Code(text)}
	for i, v := range views {
		if counts[i] == 0 {
			row = append(row, d.M("not logged"))
		} else {
			row = append(row, d.M("logged (launches: %d of %d)", counts[i], v.launches))
		}
	}
	return row
}

func orDash(v string) d.Text {
	if v == "" {
		return d.Lit("—")
	}
	return d.Code(v)
}

// noticeLaunches counts the launches of v that logged a notice.
func noticeLaunches(v *launchView, text string) int {
	for _, c := range v.notices {
		if c.n.Text == text {
			return c.k
		}
	}
	return 0
}

// allSame reports whether every element equals the first.
func allSame[T comparable](xs []T) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}
