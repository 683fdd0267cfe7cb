// Package markdown writes a report document as GitHub-flavoured
// Markdown: GFM tables, fenced code, and charts as mermaid xychart-beta
// blocks with the numbers in a table under each chart (GitHub renders
// mermaid; readers without it still get the numbers).
package markdown

import (
	"fmt"
	"io"
	"math"
	"strings"

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
	mw.line("# " + doc.Title.In(p, f))
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

func (w *writer) text(t d.Text) string { return t.In(w.p, f) }

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
		w.line("> **" + label + ":** " + w.text(b.Text))
	case d.Banner:
		w.line("> **" + w.text(b.Text) + "**")
	case d.Chart:
		w.chart(b)
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

func (w *writer) chart(c d.Chart) {
	if c.Kind == "scatter" {
		// Mermaid draws no scatter plots: Markdown keeps the table the
		// report puts beside the chart; HTML draws it.
		if w.o.ForHTML {
			w.line("```chart " + c.ID + "\n```")
		}
		return
	}
	if w.o.ForHTML {
		w.line("```chart " + c.ID + "\n```")
	} else if m := mermaid(c, w.p); m != "" {
		w.line(m)
	}
	head := []d.Text{d.Lit("")}
	for _, cat := range c.Categories {
		head = append(head, cat)
	}
	t := d.Table{Head: head, Right: []bool{false}}
	for range c.Categories {
		t.Right = append(t.Right, true)
	}
	for _, s := range c.Series {
		row := []d.Text{s.Name}
		for _, v := range s.Values {
			row = append(row, num(v))
		}
		t.Rows = append(t.Rows, row)
	}
	for _, l := range c.Lines {
		row := []d.Text{l.Name}
		for range c.Categories {
			row = append(row, num(l.Value))
		}
		t.Rows = append(t.Rows, row)
	}
	w.table(t)
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
	return d.Fixed(v)
}

// mermaid writes an xychart-beta block. Mermaid has no missing values
// and would draw one as 0, a figure the source never had: a category
// with a missing value is left out of the chart (the table under it
// shows every category, "–" where missing), and a chart left with no
// category is not drawn.
func mermaid(c d.Chart, p *i18n.Printer) string {
	keep := complete(c)
	if len(keep) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "    title %s\n", quote(d.String(c.Title, p)))
	var cats []string
	for _, i := range keep {
		cats = append(cats, quote(d.String(c.Categories[i], p)))
	}
	fmt.Fprintf(&b, "    x-axis [%s]\n", strings.Join(cats, ", "))
	fmt.Fprintf(&b, "    y-axis %s\n", quote(c.Unit))
	kind := "bar"
	if c.Kind == "line" {
		kind = "line"
	}
	for _, s := range c.Series {
		var vals []string
		for _, i := range keep {
			vals = append(vals, fmt.Sprintf("%.2f", s.Values[i]))
		}
		fmt.Fprintf(&b, "    %s [%s]\n", kind, strings.Join(vals, ", "))
	}
	for _, l := range c.Lines {
		vals := make([]string, len(c.Categories))
		for i := range vals {
			vals[i] = fmt.Sprintf("%.2f", l.Value)
		}
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(vals, ", "))
	}
	b.WriteString("```")
	return b.String()
}

// complete lists the categories every series has a value for.
func complete(c d.Chart) []int {
	var keep []int
	for i := range c.Categories {
		ok := true
		for _, s := range c.Series {
			ok = ok && i < len(s.Values) && !math.IsNaN(s.Values[i])
		}
		if ok {
			keep = append(keep, i)
		}
	}
	return keep
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
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|~#&!{}", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
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
