// Package html writes a report document as one HTML page: the document
// goes through the Markdown writer and goldmark in its safe mode (no raw
// HTML from studies passes), charts become go-echarts options embedded
// as JSON and drawn by a small local script, and every asset is loaded
// from a local path, never a CDN.
package html

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	gohtml "html"
	"html/template"
	"io"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/render/markdown"
)

//go:embed assets/*
var assets embed.FS

// Assets returns the files a page loads from its assets folder (the
// chart loader and the stylesheet), by name. echarts.min.js itself comes
// from the site's pinned npm package.
func Assets() map[string][]byte {
	out := map[string][]byte{}
	for _, n := range []string{"servelab-charts.js", "report.css"} {
		b, _ := assets.ReadFile("assets/" + n)
		out[n] = b
	}
	return out
}

// Options place the page.
type Options struct {
	// Assets is the path prefix of the assets folder, ending in "/"
	// (relative, so pages work from file:// and under any sub-path).
	Assets string
	// Head is extra trusted markup for <head> (the site's alternates).
	Head template.HTML
	// Header is trusted markup put before the report (the site's
	// navigation and language switcher).
	Header template.HTML
}

// Write prints doc as an HTML page in p's language.
func Write(w io.Writer, doc *d.Doc, p *i18n.Printer, o Options) error {
	var md bytes.Buffer
	if err := markdown.Write(&md, doc, p, markdown.Options{ForHTML: true}); err != nil {
		return err
	}
	body, err := Convert(md.Bytes(), chartsOf(doc, p))
	if err != nil {
		return err
	}
	return page.Execute(w, map[string]any{
		"Lang": p.Lang(), "Title": d.String(doc.Title, p), "Assets": o.Assets,
		"Head": o.Head, "Header": o.Header, "Body": template.HTML(body),
	})
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{.Head}}<title>{{.Title}}</title>
<link rel="stylesheet" href="{{.Assets}}report.css">
<script src="{{.Assets}}echarts.min.js" defer></script>
<script src="{{.Assets}}servelab-charts.js" defer></script>
</head>
<body>
{{.Header}}<main class="report">
{{.Body}}</main>
</body>
</html>
`))

// Convert renders report Markdown with goldmark: GFM, explicit heading
// ids, CJK line joining, no raw HTML; ```chart ID``` fences become the
// trusted chart markup in charts.
func Convert(src []byte, charts map[string]string) ([]byte, error) {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.CJK),
		goldmark.WithParserOptions(parser.WithAttribute(), parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(chartTransformer{}, 500))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(chartRenderer{charts}, 500), util.Prioritized(codeRenderer{}, 200))),
	)
	var out bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(&unicodeIDs{seen: map[string]int{}}))
	err := md.Convert(src, &out, parser.WithContext(ctx))
	return out.Bytes(), err
}

// chartsOf renders each chart of doc to its figure markup, and each
// Details to its opening and closing tags (keys "details ID" and
// "details-end ID").
func chartsOf(doc *d.Doc, p *i18n.Printer) map[string]string {
	out := map[string]string{}
	var walk func([]d.Block)
	walk = func(bs []d.Block) {
		for _, b := range bs {
			switch b := b.(type) {
			case d.Chart:
				out["chart "+b.ID] = figure(b, p)
				if !b.Tabled { // the markdown writer folds the table it adds
					id := "chart-figures-" + b.ID
					out["details "+id] = fmt.Sprintf("<details class=\"chart-figures\" id=\"%s\"><summary>%s</summary>\n", gohtml.EscapeString(id), gohtml.EscapeString(p.T("The figures behind this chart")))
					out["details-end "+id] = "</details>\n"
				}
			case d.Details:
				out["details "+b.ID] = fmt.Sprintf("<details id=\"%s\"><summary>%s</summary>\n", gohtml.EscapeString(b.ID), gohtml.EscapeString(d.String(b.Summary, p)))
				out["details-end "+b.ID] = "</details>\n"
				walk(b.Blocks)
			}
		}
	}
	walk(doc.Blocks)
	return out
}

// figure is a chart's container and its option JSON, with its caption
// when some figures are drawn apart. encoding/json escapes <, > and & as
// \u003c..., so no study string can close the script element; the
// container's label is HTML-escaped. A chart taller than the stylesheet's
// default sets its height in the container's style (the CSP allows
// inline styles).
func figure(c d.Chart, p *i18n.Printer) string {
	o, height, err := option(c, p)
	var opt []byte
	if err == nil {
		opt, err = json.Marshal(o)
	}
	if err != nil {
		return "<!-- chart " + c.ID + ": " + gohtml.EscapeString(err.Error()) + " -->"
	}
	title := gohtml.EscapeString(d.String(c.Title, p))
	style := ""
	if height != baseHeight {
		style = fmt.Sprintf(` style="height:%dpx"`, height)
	}
	caption := ""
	if c.Doubt != nil {
		doubt := d.String(c.Doubt, p)
		text := p.T("Points marked (!) and drawn hollow are figures the warnings about the data call into question: %s.", doubt)
		if c.Kind == "bar" {
			text = p.T("Bars marked (!) and hatched are figures the warnings about the data call into question: %s.", doubt)
		}
		caption = "<figcaption>" + gohtml.EscapeString(text) + "</figcaption>"
	}
	return fmt.Sprintf(`<figure class="chart"><div class="chart-canvas" id="chart-%[1]s" data-chart="chart-data-%[1]s" role="img" aria-label="%[2]s"%[4]s></div>`+
		`<script type="application/json" id="chart-data-%[1]s">%[3]s</script>%[5]s</figure>`+"\n", c.ID, title, opt, style, caption)
}

// chartNode stands for a chart in the Markdown AST.
type chartNode struct {
	ast.BaseBlock
	id string
}

var kindChart = ast.NewNodeKind("Chart")

func (n *chartNode) Kind() ast.NodeKind { return kindChart }

func (n *chartNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"ID": n.id}, nil)
}

// placeholder are the fence languages the Markdown writer uses for
// trusted markup in HTML mode.
var placeholder = map[string]bool{"chart": true, "details": true, "details-end": true}

type chartTransformer struct{}

func (chartTransformer) Transform(doc *ast.Document, r text.Reader, _ parser.Context) {
	var found []*ast.FencedCodeBlock
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fc, ok := n.(*ast.FencedCodeBlock); ok && entering && placeholder[string(fc.Language(r.Source()))] {
			found = append(found, fc)
		}
		return ast.WalkContinue, nil
	})
	for _, fc := range found {
		f := strings.Fields(string(fc.Info.Segment.Value(r.Source())))
		fc.Parent().ReplaceChild(fc.Parent(), fc, &chartNode{id: strings.Join(f, " ")})
	}
}

// codeRenderer writes code spans; in one that holds flags each flag
// stays on one line with its value (class flag), so a browser breaks a
// long span only between flags, never after a flag's leading hyphens.
type codeRenderer struct{}

// maxFlagSpan is the longest flag kept on one line, in bytes; a longer
// one (a JSON value) may need to wrap.
const maxFlagSpan = 40

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindCodeSpan, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var t []byte
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if tx, ok := c.(*ast.Text); ok {
				v := tx.Segment.Value(src)
				if bytes.HasSuffix(v, []byte("\n")) {
					v = append(v[:len(v)-1:len(v)-1], ' ')
				}
				t = append(t, v...)
			}
		}
		_, _ = w.WriteString("<code>")
		for i, g := range flagGroups(string(t)) {
			if i > 0 {
				_ = w.WriteByte(' ')
			}
			if strings.HasPrefix(g, "--") && len(g) <= maxFlagSpan {
				_, _ = w.WriteString(`<span class="flag">`)
				_, _ = w.Write(util.EscapeHTML([]byte(g)))
				_, _ = w.WriteString("</span>")
				continue
			}
			_, _ = w.Write(util.EscapeHTML([]byte(g)))
		}
		_, _ = w.WriteString("</code>")
		return ast.WalkSkipChildren, nil
	})
}

// flagGroups splits a code span that starts with a flag into its flags,
// each with its value; any other span is one group.
func flagGroups(s string) []string {
	if !strings.HasPrefix(s, "--") {
		return []string{s}
	}
	parts := strings.Split(s, " --")
	for i := 1; i < len(parts); i++ {
		parts[i] = "--" + parts[i]
	}
	return parts
}

type chartRenderer struct{ html map[string]string }

func (c chartRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindChart, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString(c.html[n.(*chartNode).id])
		}
		return ast.WalkSkipChildren, nil
	})
}

// unicodeIDs makes heading ids that keep letters of every script
// (goldmark's default drops non-ASCII, leaving "heading-1" for Chinese).
type unicodeIDs struct{ seen map[string]int }

func (s *unicodeIDs) Generate(v []byte, _ ast.NodeKind) []byte {
	var b strings.Builder
	for _, r := range strings.TrimSpace(string(v)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(unicode.ToLower(r))
		case r == ' ':
			b.WriteRune('-')
		}
	}
	id := b.String()
	if id == "" {
		id = "section"
	}
	if n, ok := s.seen[id]; ok {
		s.seen[id] = n + 1
		id = fmt.Sprintf("%s-%d", id, n+1)
	}
	s.seen[id] = 0
	return []byte(id)
}

func (s *unicodeIDs) Put(v []byte) { s.seen[string(v)] = 0 }
