// Package document is the language-neutral and format-neutral model of
// a report: headings, paragraphs, tables, code, charts and notes whose
// text is resolved per language only when a writer prints it. The
// report builder (render/report) produces it from an analysis; the
// Markdown and HTML writers print it.
package document

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"servelab.dev/i18n"
	"servelab.dev/schema"
)

// Text is a piece of prose that prints in a language, in a format: the
// format escapes text from studies and records and marks code.
type Text interface {
	In(p *i18n.Printer, f Format) string
}

// Format is how a writer escapes plain text and shows inline code.
// Catalog messages are trusted and not escaped (a test keeps markup out
// of them); everything that comes from a study or a record is.
type Format interface {
	Esc(s string) string
	Code(s string) string
	// Link marks text (already in the format) as a link to a relative
	// path servelab wrote; plain text drops the target.
	Link(text, href string) string
}

// Plain is the format of text outside markup (chart titles, tests).
var Plain Format = plain{}

type plain struct{}

func (plain) Esc(s string) string     { return s }
func (plain) Code(s string) string    { return s }
func (plain) Link(t, _ string) string { return t }

// String prints t in plain form.
func String(t Text, p *i18n.Printer) string { return Print(t, p, Plain) }

// Print is t in p's language and format f, as a writer puts it on the
// page: a title mark that no enclosing text consumed is dropped.
func Print(t Text, p *i18n.Printer, f Format) string {
	return marks.Replace(t.In(p, f))
}

// Msg is a catalog message; its arguments that are Texts are printed in
// the same language first.
type Msg struct {
	Key  string
	Args []any
}

// M builds a message.
func M(key string, args ...any) Msg { return Msg{key, args} }

func (m Msg) In(p *i18n.Printer, f Format) string {
	args := make([]any, len(m.Args))
	for i, a := range m.Args {
		switch a := a.(type) {
		case Text:
			args[i] = InSentence(a, p, f)
		case string:
			args[i] = f.Esc(a)
		default:
			args[i] = a
		}
	}
	s := lowerInside(p.T(m.Key, args...))
	switch p.Lang() {
	case "zh":
		s = zhSpacing(s)
	case "ru":
		s = ruSpacing(s)
	}
	return s
}

// ruSpacing binds a number to its unit and the groups of its thousands
// with no-break spaces ("15,34 мс", "32 768"), as Russian typography
// does: a line never starts with the unit or half a number.
func ruSpacing(s string) string {
	for t := ""; t != s; {
		t, s = s, ruThousands.ReplaceAllString(s, "$1\u00a0$2")
	}
	return ruCommas.Replace(ruUnit.ReplaceAllString(s, "$1\u00a0$2$3"))
}

// ruCommas drops the comma that closes a participial phrase where the
// sentence's own punctuation follows it: a catalog term such as
// "прогоны, по сути повторяющие друг друга," carries its closing comma,
// which a verb after it needs and a comma, stop or bracket makes double.
var ruCommas = strings.NewReplacer(",,", ",", ",.", ".", ",)", ")", ",:", ":", ",;", ";")

var (
	ruThousands = regexp.MustCompile(`(\d) (\d{3})\b`)
	ruUnit      = regexp.MustCompile(`(\d) (мкс|мс|с|%|ГиБ|ГБ|МиБ|МБ|ТБ/с|ток/с|запр\./с)(\P{L}|$)`)
)

// zhSpacing puts a space between Chinese characters and Latin letters or
// digits next to them ("下的 P99 TPOT"), as Chinese technical writing
// does, and none before a full-width bracket, which carries its own.
func zhSpacing(s string) string {
	s = hanLatin.ReplaceAllString(s, "$1 $2")
	s = latinHan.ReplaceAllString(s, "$1 $2")
	return strings.ReplaceAll(s, " （", "（")
}

var (
	hanLatin = regexp.MustCompile(`(\p{Han})([A-Za-z0-9])`)
	latinHan = regexp.MustCompile(`([A-Za-z0-9])(\p{Han})`)
)

// InSentence prints t as part of a longer text: a study's title is
// marked, so that the text can lower its first letter where the
// language writes it so (lowerInside); Chinese has no case.
func InSentence(t Text, p *i18n.Printer, f Format) string {
	s := t.In(p, f)
	if _, title := t.(Prose); title && p.Lang() != "zh" {
		s = titleStart + s + titleEnd
	}
	return s
}

// titleStart and titleEnd mark a study's title inside a message.
const titleStart, titleEnd = "\x02", "\x03"

var marks = strings.NewReplacer(titleStart, "", titleEnd, "")

// lowerInside lowers the first letter of each marked title that the
// message places inside a sentence, where the languages write a common
// noun in lower case ("at concurrency 8", "Принято: веса FP8"); a title
// on its own (a heading, a table cell) keeps its capital, and so does
// one after a full stop or in quotation marks. English lowers only a
// title in sentence case (no other word capitalised: "Choosing the
// Inference Engine" stays); Russian its first word unless that is an
// acronym or a name ("SGLang", "ShareGPT").
func lowerInside(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, titleStart)
		j := strings.Index(s[max(i, 0):], titleEnd) + max(i, 0)
		if i < 0 || j < i {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		title := s[i+len(titleStart) : j]
		s = s[j+len(titleEnd):]
		before := strings.TrimRight(b.String(), " ")
		if before == "" {
			// An enclosing text decides ("Итог: " + this message).
			b.WriteString(titleStart + title + titleEnd)
			continue
		}
		last, _ := utf8.DecodeLastRuneInString(before)
		if strings.ContainsRune(".!?\n«\"", last) {
			b.WriteString(title)
			continue
		}
		b.WriteString(lowerFirst(title))
	}
}

// lowerFirst is title with its first letter lowered, where the title's
// language writes it so inside a sentence.
func lowerFirst(title string) string {
	r, n := utf8.DecodeRuneInString(title)
	word, _, _ := strings.Cut(title[n:], " ")
	if !unicode.IsUpper(r) || word == "" || strings.IndexFunc(word, func(c rune) bool { return !unicode.IsLower(c) && unicode.IsLetter(c) }) >= 0 {
		return title // an acronym or a name written in capitals ("SGLang", "ShareGPT")
	}
	if !unicode.Is(unicode.Cyrillic, r) {
		for _, w := range strings.Fields(title)[1:] {
			if c, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(c) {
				return title
			}
		}
	}
	return string(unicode.ToLower(r)) + title[n:]
}

// Lit is text that is the same in every language: numbers, names, ids.
type Lit string

func (l Lit) In(_ *i18n.Printer, f Format) string { return f.Esc(string(l)) }

// Code is a literal shown as code (identifiers, flags, model ids).
type Code string

func (c Code) In(_ *i18n.Printer, f Format) string { return f.Code(string(c)) }

// Prose is study text with its translations.
type Prose schema.Text

func (t Prose) In(p *i18n.Printer, f Format) string {
	raw := schema.Text(t).In(p.Lang())
	var b strings.Builder
	last := 0
	// An engine flag in a study's prose is set as code, its value with
	// it: a browser then never breaks "--parallel 8" at a hyphen.
	for _, m := range flagInProse.FindAllStringSubmatchIndex(raw, -1) {
		b.WriteString(prosePart(raw[last:m[2]], p, f))
		b.WriteString(f.Code(raw[m[2]:m[3]]))
		last = m[3]
	}
	b.WriteString(prosePart(raw[last:], p, f))
	return b.String()
}

// flagInProse is a run of command-line flags in running text, after a
// space, an opening bracket or quote, a comma, a colon, a full stop or
// at the start.
var flagInProse = regexp.MustCompile(`(?:^|[\s(（“«'，、：；。])(` + oneFlag + `(?: ` + oneFlag + `)*)`)

// oneFlag is a flag and its value: a number, a common word, a name
// with a digit (qwen3, q8_0), or ASCII text joined by "=" (a value
// ends where Chinese or Russian prose resumes, even without a space).
const oneFlag = `--[a-z][a-z0-9-]*[a-z0-9](?:=[^\s,;:)\x{80}-\x{10FFFF}]+|\s(?:[0-9][0-9.]*[0-9]|[0-9]|on|off|all|auto|[a-z][a-z_]*[0-9][a-z0-9_]*)\b)?`

func prosePart(s string, p *i18n.Printer, f Format) string {
	s = f.Esc(s)
	switch p.Lang() {
	case "zh":
		s = zhSpacing(s)
	case "ru":
		s = ruSpacing(s)
	}
	return s
}

// Join prints texts one after another with sep between them.
type Join struct {
	Sep   string
	Parts []Text
}

func (j Join) In(p *i18n.Printer, f Format) string {
	s := make([]string, len(j.Parts))
	for i, t := range j.Parts {
		s[i] = InSentence(t, p, f)
	}
	sep := j.Sep
	if p.Lang() == "zh" {
		return zhSpacing(lowerInside(strings.Join(s, zhSep.Replace(sep))))
	}
	return lowerInside(strings.Join(s, sep))
}

// zhSep turns list separators into the full-width forms Chinese text
// uses; spaces alone stay.
var zhSep = strings.NewReplacer("; ", "；", ", ", "，", ": ", "：")

// Sentences joins texts with the language's sentence spacing.
func Sentences(parts ...Text) Text { return sentences(parts) }

type sentences []Text

func (s sentences) In(p *i18n.Printer, f Format) string {
	sep := " "
	if p.Lang() == "zh" {
		sep = ""
	}
	return Join{sep, s}.In(p, f)
}

// Link is a text linking to a file servelab wrote beside the document.
type Link struct {
	Text Text
	Href string
}

func (l Link) In(p *i18n.Printer, f Format) string { return f.Link(l.Text.In(p, f), l.Href) }

// Cap prints t with its first letter in upper case (for table cells and
// chart legends that start with a metric name).
type Cap struct{ Text Text }

func (c Cap) In(p *i18n.Printer, f Format) string {
	s := marks.Replace(c.Text.In(p, f))
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+utf8.RuneLen(r):]
	}
	return s
}

// Block is one element of a document.
type Block interface{ block() }

// Heading opens a section; ID is the anchor, the same in every language.
type Heading struct {
	Level int
	Text  Text
	ID    string
}

// Para is a paragraph.
type Para struct{ Text Text }

// List is a bulleted list.
type List struct{ Items []Text }

// Table is a table; cells are Texts.
type Table struct {
	Head []Text
	Rows [][]Text
	// Right marks columns of numbers.
	Right []bool
}

// CodeBlock is verbatim text: commands, benchmark blocks.
type CodeBlock struct {
	Lang string
	Body string
}

// Note is a short remark set apart from the prose (noise, lint, derived
// figures); Warn marks a warning. Cause names what a warning is about
// (a lint code, "warmup", "invalid"), so that a page can show one
// callout per cause.
type Note struct {
	Text  Text
	Warn  bool
	Cause string
}

// Details is a part of the page a reader opens on demand: raw benchmark
// blocks and method. HTML folds it (<details>); Markdown prints it as an
// appendix section under a level-2 heading, or in place (InText).
type Details struct {
	ID      string // [A-Za-z0-9_-]
	Summary Text
	Blocks  []Block
	// InText keeps the blocks where they stand in Markdown, without a
	// heading: a fold that only saves height on a web page.
	InText bool
}

// Banner is shown at the top of every page of the report.
type Banner struct{ Text Text }

// Chart is a chart with the numbers behind it; writers that cannot draw
// print the numbers as a table. Value axes start at 0, so bar heights
// compare as the figures do.
type Chart struct {
	ID string // [A-Za-z0-9_]: it becomes a JavaScript identifier
	// Kind says what the x-axis is:
	//   - "bar": categories that are no scale (options, unrelated
	//     loads), one group of bars per category;
	//   - "line": a numeric sweep of one workload (request rates,
	//     concurrencies): each series through (Series.X, Values) on a
	//     value axis named XName in XUnit, Categories naming the points;
	//   - "xy": each series' points (Series.X, Values) labelled with
	//     their category, joined by a line only when Joined (one
	//     workload at rising loads);
	//   - "pareto": one panel per load (Panels), throughput per GPU (x,
	//     XName in XUnit) against throughput per user (y, YName in
	//     Unit), the frontier drawn through the points no other beats.
	Kind       string
	XUnit      string
	Title      Text
	Unit       string
	Categories []Text
	Series     []Series
	// Lines are horizontal reference lines, such as an SLO bound.
	Lines []Line
	// Marked is the index of the category drawn apart (the incumbent,
	// the current configuration) when MarkLabel, its name in the
	// chart and the table, is set.
	Marked    int
	MarkLabel Text
	// XName names a value x-axis ("line", "xy", "pareto"); XUnit is its
	// unit. YName names the y-axis of a "pareto" chart.
	XName, YName Text
	Joined       bool
	Panels       []Panel
	// Doubt says why the figures marked Flagged are called into
	// question (clauses from the page's warnings about the data); each
	// writer says under the chart how it marks them, and why.
	Doubt Text
	// Tabled says a table just before the chart already gives its
	// numbers, so writers print no second one.
	Tabled bool
}

// Line is a horizontal reference line at Value. Bound is "≤" or "≥"
// when the line is a limit the values must keep to (an SLO bound):
// tables then mark each value ✓ or ✗ rather than repeat the limit.
type Line struct {
	Name  Text
	Value float64
	Bound string
}

// Meets reports whether v keeps to l's bound.
func (l Line) Meets(v float64) bool {
	if l.Bound == "≥" {
		return v >= l.Value
	}
	return v <= l.Value
}

// Series is one named row of a chart; NaN marks a missing value. Low
// and High, when set, bound each value's interval (error bars).
type Series struct {
	Name      Text
	Values    []float64
	Low, High []float64
	// Ranges says Low and High are the lowest and highest of two runs,
	// not an interval; otherwise Level is the interval's confidence
	// (0.95), where known.
	Ranges bool
	Level  float64
	X      []float64 // x of each value, in "line" and "xy" charts
	// Flagged marks the values the page's warnings call into question:
	// writers draw them apart and mark them (!).
	Flagged []bool
	// Reference marks the configuration the others are measured
	// against (the baseline, the configuration to beat): every chart
	// of a page draws it alike, so a colour keeps one role.
	Reference bool
}

// Panel is one load's part of a "pareto" chart.
type Panel struct {
	Title  Text
	Points []Point
}

// Point is one option at one load in a "pareto" chart.
type Point struct {
	Label    Text
	X, Y     float64
	Frontier bool // no other point of the panel beats it on both axes
	Flagged  bool // as Series.Flagged
}

// IsFlagged reports whether value i of s is marked.
func (s Series) IsFlagged(i int) bool { return i < len(s.Flagged) && s.Flagged[i] }

// BoundsName is what the series' Low and High are: an interval, or the
// two runs' own range.
func (s Series) BoundsName() Text {
	if s.Ranges {
		return M("range of runs")
	}
	if s.Level > 0 {
		return M("%s interval", Num{V: 100 * s.Level, Unit: "%"})
	}
	return M("interval")
}

func (Heading) block()   {}
func (Para) block()      {}
func (List) block()      {}
func (Table) block()     {}
func (CodeBlock) block() {}
func (Note) block()      {}
func (Banner) block()    {}
func (Chart) block()     {}
func (Details) block()   {}

// Doc is a report.
type Doc struct {
	ID     string
	Title  Text
	Blocks []Block
}

// Add appends blocks.
func (d *Doc) Add(b ...Block) { d.Blocks = append(d.Blocks, b...) }

// Fixed formats a figure with two decimals, as the seeds print them,
// for code and machine-read places (chart data, benchmark blocks).
func Fixed(v float64) Lit { return Lit(fmt.Sprintf("%.2f", v)) }

// Num is a figure in prose: written with Prec decimals (negative: as
// many as it has, up to two, or up to -Prec when that is more) and the
// language's decimal mark and grouping, followed by its unit in the
// language's symbols ("1,26 с" in Russian).
type Num struct {
	V    float64
	Prec int
	Unit string
}

// N is a figure with two decimals and a unit ("" for none).
func N(v float64, unit string) Num { return Num{V: v, Prec: 2, Unit: unit} }

func (n Num) In(p *i18n.Printer, f Format) string {
	prec := n.Prec
	if prec < 0 {
		most := max(2, -n.Prec)
		prec = 0
		for prec < most && math.Abs(n.V*math.Pow10(prec)-math.Round(n.V*math.Pow10(prec))) > 1e-9 {
			prec++
		}
	}
	s := p.Num(n.V, prec)
	switch n.Unit {
	case "":
	case "%":
		// Russian typography sets the sign apart; English and Chinese
		// technical writing do not (the studies' own texts write "1%").
		if p.Lang() == "ru" {
			s += "\u00a0"
		}
		s += "%"
	default:
		s += "\u00a0" + p.Unit(n.Unit)
	}
	return f.Esc(s)
}

// Unit is a unit symbol in the language's spelling (мс, с in Russian).
type Unit string

func (u Unit) In(p *i18n.Printer, f Format) string { return f.Esc(p.Unit(string(u))) }

// Paren puts t in parentheses: full-width in Chinese.
type Paren struct{ Text Text }

func (x Paren) In(p *i18n.Printer, f Format) string {
	if p.Lang() == "zh" {
		return "（" + x.Text.In(p, f) + "）"
	}
	return "(" + x.Text.In(p, f) + ")"
}

// WithUnit is a quantity's name with its unit, as a column or axis is
// headed: "Mean latency, s"; Chinese brackets the unit, "平均延迟（s）".
type WithUnit struct {
	Text Text
	Unit string
}

func (w WithUnit) In(p *i18n.Printer, f Format) string {
	if p.Lang() == "zh" {
		// One bracket, not two in a row: "X（未必采用，tok/s）".
		t := w.Text.In(p, f)
		if strings.HasSuffix(t, "）") {
			return strings.TrimSuffix(t, "）") + "，" + Unit(w.Unit).In(p, f) + "）"
		}
		return t + "（" + Unit(w.Unit).In(p, f) + "）"
	}
	return w.Text.In(p, f) + ", " + Unit(w.Unit).In(p, f)
}

// ValueAxis names a chart's value axis: the quantity (YName, or the one
// series' name) with its unit, and which way is better, so that a
// reader need not know the metric to read the bars. Times are better
// short; rates, throughputs and capacities high.
func (c Chart) ValueAxis() Text {
	name := c.YName
	if name == nil && len(c.Series) == 1 {
		name = c.Series[0].Name
	}
	var t Text = Unit(c.Unit)
	if name != nil {
		t = WithUnit{Text: name, Unit: c.Unit}
	}
	if c.Unit == "s" || c.Unit == "ms" {
		return M("%s; lower is better", t)
	}
	return M("%s; higher is better", t)
}
