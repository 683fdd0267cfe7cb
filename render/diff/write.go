package diff

import (
	"fmt"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/i18n"
)

// Write renders the report as Markdown for a pull-request comment, or,
// with plain, as text for a terminal.
func (r Report) Write(p *i18n.Printer, plain bool) string {
	w := &writer{p: p, plain: plain}
	w.h(2, p.T("servelab diff: what this change does to the studies"))
	changed := 0
	for _, s := range r.Studies {
		if s.Change == "unchanged" && len(s.Missing) == 0 {
			continue
		}
		changed++
		w.study(s)
	}
	if changed == 0 {
		w.para(p.T("No study, trial, record or decision changed."))
	}
	return strings.TrimRight(w.b.String(), "\n") + "\n"
}

type writer struct {
	p     *i18n.Printer
	plain bool
	b     strings.Builder
}

func (w *writer) h(level int, s string) {
	if w.plain {
		w.b.WriteString(s + "\n" + strings.Repeat("=-"[level%2:level%2+1], len([]rune(s))) + "\n\n")
		return
	}
	w.b.WriteString(strings.Repeat("#", level) + " " + s + "\n\n")
}

func (w *writer) para(s string) { w.b.WriteString(s + "\n\n") }

func (w *writer) code(s string) string {
	if w.plain {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func (w *writer) block(s string) {
	if w.plain {
		w.b.WriteString("    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n\n")
		return
	}
	w.b.WriteString("```bash\n" + s + "\n```\n\n")
}

func (w *writer) table(head []string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	line := func(cells []string) {
		if w.plain {
			w.b.WriteString("  " + strings.Join(cells, "  |  ") + "\n")
			return
		}
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		w.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	line(head)
	if !w.plain {
		w.b.WriteString("|" + strings.Repeat(" --- |", len(head)) + "\n")
	}
	for _, r := range rows {
		line(r)
	}
	w.b.WriteString("\n")
}

func (w *writer) list(title string, items []string) {
	coded := make([]string, len(items))
	for i, it := range items {
		coded[i] = w.code(it)
	}
	w.items(title, coded)
}

// items is list without code spans: items that are prose.
func (w *writer) items(title string, items []string) {
	if len(items) == 0 {
		return
	}
	w.para(title)
	for _, it := range items {
		w.b.WriteString("- " + it + "\n")
	}
	w.b.WriteString("\n")
}

func (w *writer) study(s Study) {
	p := w.p
	w.h(3, p.T("Study %s: %s", s.ID, word(p, s.Change)))
	if s.SLOLine != "" {
		w.para(s.SLOLine)
	}
	if f := s.Final; f != nil {
		if f.Changed {
			w.para(p.T("The recommendation changed. Before:"))
			w.block(orWhy(p, f.Old, f.OldWhy))
			w.para(p.T("After:"))
			w.block(orWhy(p, f.New, f.NewWhy))
		} else {
			w.para(p.T("The recommendation is unchanged."))
		}
		if f.NewWhy != nil && (f.New != "" || !f.Changed) {
			w.para(whyText(p, f.NewWhy))
		}
	}
	var rows [][]string
	var texts []string
	for _, f := range s.Fields {
		if f.Words != "" {
			texts = append(texts, settingName(w, f.Path)+": "+f.Words)
			continue
		}
		rows = append(rows, []string{settingName(w, f.Path), f.Old, f.New})
	}
	w.table([]string{p.T("Setting"), p.T("Before"), p.T("After")}, rows)
	w.items(p.T("Texts changed, word by word (%s removed, %s added):", "[-…-]", "{+…+}"), texts)
	w.list(p.T("Trials added:"), s.Added)
	w.list(p.T("Trials removed:"), s.Removed)
	w.list(p.T("Trials no longer planned, their records kept:"), s.Unplanned)
	rows = nil
	for _, r := range s.Records {
		rows = append(rows, []string{w.code(r.Trial), word(p, r.Change), fig(s.Metric, r.Old), fig(s.Metric, r.New), verdictText(p, r.Verdict)})
	}
	w.table([]string{p.T("Trial"), p.T("Record"), p.T("Before"), p.T("After"), p.T("Verdict")}, rows)
	rows = nil
	for _, d := range s.Decisions {
		rows = append(rows, []string{w.code(d.Step), w.code(d.Old), w.code(d.New)})
	}
	w.table([]string{p.T("Step"), p.T("Before"), p.T("After")}, rows)
	if s.Final != nil && s.Final.Changed {
		rows = nil
		for _, v := range s.Validation {
			rows = append(rows, []string{v.Profile, fig(s.Metric, v.OldFinal) + " " + ratio(v.OldRatio), fig(s.Metric, v.NewFinal) + " " + ratio(v.NewRatio)})
		}
		w.table([]string{p.T("Validation profile"), p.T("Before"), p.T("After")}, rows)
	}
	w.list(p.T("Planned trials without a record:"), s.Missing)
}

// orWhy is a side's command, or why it has none.
func orWhy(p *i18n.Printer, s string, why *Why) string {
	if s != "" {
		return s
	}
	if why != nil {
		return "(" + whyText(p, why) + ")"
	}
	return p.T("(not decided)")
}

func whyText(p *i18n.Printer, w *Why) string {
	if w.Unmeasured {
		return p.T("every run of the final configuration failed, so nothing shows that it serves")
	}
	if w.Pending == 0 {
		return p.T("not decided: %d planned trials have no record", w.Missing)
	}
	return p.T("not decided: %d planned trials have no record, and %d more wait on the decisions they make", w.Missing, w.Pending)
}

func fig(metric string, v *float64) string {
	if v == nil {
		return "–"
	}
	if decide.Unit(metric) == "ms" && strings.HasPrefix(metric, "latency.") {
		return fmt.Sprintf("%.2f s", *v/1000)
	}
	return fmt.Sprintf("%.2f %s", *v, decide.Unit(metric))
}

func ratio(r *float64) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("(%.2fx)", *r)
}

func verdictText(p *i18n.Printer, v string) string {
	if v == "" {
		return "–"
	}
	return word(p, v)
}

// word translates the fixed words of a diff (changes and verdicts).
func word(p *i18n.Printer, w string) string {
	switch w {
	case "added":
		return p.T("added")
	case "removed":
		return p.T("removed")
	case "changed":
		return p.T("changed")
	case "unchanged":
		return p.T("unchanged")
	case "replaced":
		return p.T("replaced")
	case decide.Better:
		return p.T("better")
	case decide.Worse:
		return p.T("worse")
	case decide.NoDifference:
		return p.T("no significant difference")
	case decide.NoNoise:
		return p.T("no noise estimate")
	}
	return w
}

// settingName says where a setting is in study terms: "step batch,
// variant 32: knobs.maxSeqs" for steps[batch].variants[32].knobs.maxSeqs.
func settingName(w *writer, path string) string {
	rest, ok := strings.CutPrefix(path, "steps[")
	if !ok {
		return w.code(path)
	}
	step, rest, _ := strings.Cut(rest, "]")
	rest = strings.TrimPrefix(rest, ".")
	out := w.p.T("step %s", w.code(step))
	for _, k := range []string{"variants[", "select.variants["} {
		if v, ok := strings.CutPrefix(rest, k); ok {
			name, r, _ := strings.Cut(v, "]")
			out += ", " + w.p.T("variant %s", w.code(name))
			rest = strings.TrimPrefix(r, ".")
		}
	}
	if rest == "" {
		return out
	}
	return out + ": " + w.code(rest)
}
