// Package markdown writes a report document as GitHub-flavoured
// Markdown: GFM tables, fenced code, and charts as mermaid xychart-beta
// blocks with the numbers in a table under each chart (GitHub renders
// mermaid; readers without it still get the numbers).
package markdown

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
)

// Options select the Markdown dialect.
type Options struct {
	// ForHTML writes explicit heading ids ({#id}) and charts as
	// ```chart ID``` placeholders for the HTML writer, instead of mermaid.
	ForHTML bool
}

// Write prints doc in p's language.
func Write(w io.Writer, doc *d.Doc, p *i18n.Printer, o Options) error {
	mw := &writer{p: p, o: o}
	mw.line("# " + d.Print(doc.Title, p, f))
	for _, b := range doc.Blocks {
		mw.block(b)
	}
	_, err := io.WriteString(w, strings.TrimRight(mw.b.String(), "\n")+"\n")
	return err
}

type writer struct {
	p *i18n.Printer
	o Options
	b strings.Builder
}

func (w *writer) line(s string) { w.b.WriteString(s + "\n\n") }

func (w *writer) text(t d.Text) string { return d.Print(t, w.p, f) }

func (w *writer) block(b d.Block) {
	switch b := b.(type) {
	case d.Heading:
		h := strings.Repeat("#", b.Level) + " " + w.text(b.Text)
		if w.o.ForHTML && b.ID != "" {
			h += " {#" + b.ID + "}"
		}
		w.line(h)
	case d.Para:
		w.line(w.text(b.Text))
	case d.List:
		for _, it := range b.Items {
			w.b.WriteString("- " + w.text(it) + "\n")
		}
		w.b.WriteString("\n")
	case d.Table:
		w.table(b)
	case d.CodeBlock:
		w.code(b)
	case d.Note:
		label := w.p.T("Note")
		if b.Warn {
			label = w.p.T("Warning")
		}
		// The colon stays outside the bold: CommonMark does not close "**"
		// after a full-width colon followed by a CJK character, so
		// "**注：**原始" would show its asterisks.
		colon := ": "
		if w.p.Lang() == "zh" {
			colon = "："
		}
		w.line("> **" + label + "**" + colon + w.text(b.Text))
	case d.Banner:
		w.line("> **" + w.text(b.Text) + "**")
	case d.Chart:
		w.chart(b)
	case d.Details:
		w.details(b)
	}
}

// details folds its blocks in HTML (the placeholders become <details>
// and </details>); in Markdown they are an appendix section.
func (w *writer) details(x d.Details) {
	if w.o.ForHTML {
		w.line("```details " + x.ID + "\n```")
	} else if !x.InText {
		w.line("## " + w.text(x.Summary))
	}
	for _, b := range x.Blocks {
		w.block(b)
	}
	if w.o.ForHTML {
		w.line("```details-end " + x.ID + "\n```")
	}
}

func (w *writer) table(t d.Table) {
	row := func(cells []d.Text) string {
		s := make([]string, len(cells))
		for i, c := range cells {
			s[i] = pipes(strings.ReplaceAll(w.text(c), "\n", " "))
		}
		return "| " + strings.Join(s, " | ") + " |"
	}
	w.b.WriteString(row(t.Head) + "\n")
	sep := make([]string, len(t.Head))
	for i := range sep {
		sep[i] = "---"
		if i < len(t.Right) && t.Right[i] {
			sep[i] = "--:"
		}
	}
	w.b.WriteString("| " + strings.Join(sep, " | ") + " |\n")
	for _, r := range t.Rows {
		w.b.WriteString(row(r) + "\n")
	}
	w.b.WriteString("\n")
}

// code fences body with more backticks than any run inside it.
func (w *writer) code(c d.CodeBlock) {
	fence := strings.Repeat("`", max(3, longestRun(c.Body, '`')+1))
	w.line(fence + c.Lang + "\n" + strings.TrimRight(c.Body, "\n") + "\n" + fence)
}

// chart draws c (one mermaid chart; several series share it, each bar
// labelled with its category and series, as xychart has no legend and
// cannot group bars), says under it why figures are marked (!), and
// always prints the numbers beside it as a table.
func (w *writer) chart(c d.Chart) {
	if w.o.ForHTML {
		w.line("```chart " + c.ID + "\n```") // the HTML writer draws and captions it
	} else {
		if c.Kind == "bar" || c.Kind == "line" {
			if m := mermaid(c, w.p); m != "" {
				w.line(m)
			}
		}
		if c.Doubt != nil {
			w.line("*" + w.text(d.M("Figures marked (!) are ones the warnings about the data call into question: %s.", c.Doubt)) + "*")
		}
	}
	if c.Kind == "pareto" {
		return // mermaid draws no scatter plots: the report tables the points
	}
	if !c.Tabled {
		// A web page draws the chart (values in its tooltips, intervals as
		// error bars), so its numbers are folded under it there; Markdown
		// shows them, since Mermaid draws one series and no intervals.
		if w.o.ForHTML {
			w.line("```details chart-figures-" + c.ID + "\n```")
		}
		w.table(ChartTable(c))
		if w.o.ForHTML {
			w.line("```details-end chart-figures-" + c.ID + "\n```")
		}
	}
}

// ChartTable is the table of a chart's numbers, one row per category,
// one column per series, with the interval where the series has one and
// the marked category labelled.
func ChartTable(c d.Chart) d.Table {
	if c.Kind == "xy" {
		return xyTable(c)
	}
	head := []d.Text{d.Lit("")}
	right := []bool{false}
	for _, s := range c.Series {
		name := s.Name
		if c.Unit != "" {
			name = d.WithUnit{Text: s.Name, Unit: c.Unit}
		}
		head, right = append(head, name), append(right, true)
		if s.Low != nil {
			head, right = append(head, s.BoundsName()), append(right, true)
		}
	}
	for _, l := range c.Lines {
		head, right = append(head, l.Name), append(right, true)
	}
	t := d.Table{Head: head, Right: right}
	for i, cat := range c.Categories {
		if i == c.Marked && c.MarkLabel != nil {
			cat = d.Sentences(cat, d.Paren{Text: c.MarkLabel})
		}
		row := []d.Text{cat}
		for _, s := range c.Series {
			row = append(row, flagged(num(at(s.Values, i)), s.IsFlagged(i)))
			if s.Low != nil {
				row = append(row, span(at(s.Low, i), at(s.High, i)))
			}
		}
		for _, l := range c.Lines {
			row = append(row, lineCell(c, l, i))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// lineCell is a reference line's cell in category i's row: ✓ or ✗ for
// a bound over a chart of one series, else the line's value.
func lineCell(c d.Chart, l d.Line, i int) d.Text {
	if l.Bound == "" || len(c.Series) != 1 || math.IsNaN(at(c.Series[0].Values, i)) {
		return num(l.Value)
	}
	if l.Meets(at(c.Series[0].Values, i)) {
		return d.Lit("✓")
	}
	return d.Lit("✗")
}

// xyTable lists an xy chart's points: series, point, x, y.
func xyTable(c d.Chart) d.Table {
	y := c.YName
	if y == nil {
		y = c.Title
	}
	t := d.Table{Head: []d.Text{d.Lit(""), d.Lit(""), d.WithUnit{Text: c.XName, Unit: c.XUnit},
		d.WithUnit{Text: y, Unit: c.Unit}}, Right: []bool{false, false, true, true}}
	for _, s := range c.Series {
		for i, cat := range c.Categories {
			t.Rows = append(t.Rows, []d.Text{s.Name, cat, num(at(s.X, i)), flagged(num(at(s.Values, i)), s.IsFlagged(i))})
		}
	}
	return t
}

func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return math.NaN()
}

// flagged marks a figure the page's warnings call into question, as
// the benchmark blocks do.
func flagged(t d.Text, on bool) d.Text {
	if !on {
		return t
	}
	return d.Join{Sep: " ", Parts: []d.Text{t, d.Lit("(!)")}}
}

func span(lo, hi float64) d.Text {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return d.Lit("–")
	}
	return d.Join{Sep: "–", Parts: []d.Text{d.Num{V: lo, Prec: 2}, d.Num{V: hi, Prec: 2}}}
}

// pipes escapes the | that code spans leave bare: GFM splits cells at
// every unescaped pipe, even inside code.
func pipes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func num(v float64) d.Text {
	if math.IsNaN(v) {
		return d.Lit("–")
	}
	return d.Num{V: v, Prec: 2}
}

// mermaid writes c as an xychart-beta block: the value axis from 0
// with the unit, bars even for a numeric sweep (Mermaid spaces its
// x-axis evenly, so a line would draw rates 1, 4, 8 and 16 as a straight
// scale). Several series become one bar each per category, labelled
// "category · series" and drawn horizontally so that the long labels
// stay readable. Mermaid has no missing values and would draw one as 0,
// a figure the source never had: a missing bar is left out (the table
// beside shows it as "–"), and with no value at all nothing is drawn.
func mermaid(c d.Chart, p *i18n.Printer) string {
	var cats, vals []string
	top := 0.0
	for _, l := range c.Lines {
		top = max(top, l.Value)
	}
	for i, cat := range c.Categories {
		for _, s := range c.Series {
			v := at(s.Values, i)
			if math.IsNaN(v) {
				continue
			}
			label := d.String(cat, p)
			if len(c.Series) > 1 {
				label += " · " + d.String(s.Name, p)
			}
			cats = append(cats, quote(label))
			vals = append(vals, fmt.Sprintf("%.2f", v))
			top = max(top, v)
		}
	}
	if len(vals) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("```mermaid\nxychart-beta")
	if len(c.Series) > 1 {
		b.WriteString(" horizontal")
	}
	fmt.Fprintf(&b, "\n    title %s\n", quote(d.String(c.Title, p)))
	fmt.Fprintf(&b, "    x-axis [%s]\n", strings.Join(cats, ", "))
	fmt.Fprintf(&b, "    y-axis %s 0 --> %s\n", quote(d.String(c.ValueAxis(), p)), niceTop(top))
	fmt.Fprintf(&b, "    bar [%s]\n", strings.Join(vals, ", "))
	for _, l := range c.Lines {
		lv := make([]string, len(vals))
		for i := range lv {
			lv[i] = fmt.Sprintf("%.2f", l.Value)
		}
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(lv, ", "))
	}
	b.WriteString("```")
	return b.String()
}

// niceTop is the axis top: the largest value rounded up to 1, 2 or 5
// times a power of ten, so the axis starts at 0 and ends on a round
// number.
func niceTop(v float64) string {
	if v <= 0 {
		return "1"
	}
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*e {
			return strconv.FormatFloat(m*e, 'f', -1, 64)
		}
	}
	return strconv.FormatFloat(10*e, 'f', -1, 64)
}

// quote makes a mermaid string; mermaid strings cannot hold a double
// quote or a newline.
func quote(s string) string {
	s = strings.NewReplacer(`"`, "'", "\n", " ", "`", "'").Replace(s)
	return `"` + s + `"`
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// f is the Markdown format: every ASCII punctuation character that could
// start markup is backslash-escaped (CommonMark allows that for all of
// them), so study text can never become a link, HTML or a table cell
// break.
var f d.Format = mdFormat{}

type mdFormat struct{}

func (mdFormat) Esc(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if strings.ContainsRune("\\`*_[]<>|~#&!{}", r) && markup(rs, i) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// markup says whether rs[i] could start or end markup where it stands.
// Three characters are common in prose and harmless in most places, so
// the source stays readable: "!" only opens an image before "[", "<"
// only a tag or autolink before a letter, "/", "!" or "?", and "_"
// inside a word (prompt_save) never delimits emphasis.
func markup(rs []rune, i int) bool {
	next := func() rune {
		if i+1 < len(rs) {
			return rs[i+1]
		}
		return 0
	}
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	switch rs[i] {
	case '!':
		return next() == '['
	case '<':
		n := next()
		return unicode.IsLetter(n) || n == '/' || n == '!' || n == '?'
	case '_':
		return i == 0 || !word(rs[i-1]) || !word(next())
	}
	return true
}

// Link writes an inline link; the target is percent-encoded where
// Markdown would end or misread it, so it stays one path.
func (mdFormat) Link(text, href string) string {
	var b strings.Builder
	for _, c := range []byte(href) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>\\[]`\"'%", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return "[" + text + "](" + b.String() + ")"
}

func (mdFormat) Code(s string) string {
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
