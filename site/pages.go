package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/render/export"
	rhtml "servelab.dev/render/html"
	"servelab.dev/render/markdown"
	"servelab.dev/render/report"
)

//go:embed assets/*
var embedded embed.FS

func siteAssets() map[string][]byte {
	out := rhtml.Assets()
	for _, n := range []string{"site.js", "site.css", "favicon.svg"} {
		b, _ := embedded.ReadFile("assets/" + n)
		out[n] = b
	}
	return out
}

// head is what every page puts first in <head>: the CSP, the site's
// stylesheet and script, and the hreflang alternates of the page.
func head(p *i18n.Printer, file string) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<meta http-equiv="Content-Security-Policy" content="%s">`+"\n", template.HTMLEscapeString(CSP))
	b.WriteString(`<link rel="icon" href="../assets/favicon.svg" type="image/svg+xml">` + "\n")
	b.WriteString(`<link rel="stylesheet" href="../assets/site.css">` + "\n")
	b.WriteString(`<script src="../assets/site.js" defer></script>` + "\n")
	for _, l := range i18n.Codes() {
		fmt.Fprintf(&b, `<link rel="alternate" hreflang="%s" href="../%s/%s">`+"\n", l, l, file)
	}
	fmt.Fprintf(&b, `<link rel="alternate" hreflang="x-default" href="../index.html">`+"\n")
	return template.HTML(b.String())
}

// header is the navigation bar: the study index, the Markdown source
// and the language switcher, which keeps the reader on the same page.
func header(p *i18n.Printer, file, source string) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<header class="site"><a href="index.html">%s</a>`, template.HTMLEscapeString(p.T("All studies")))
	if source != "" {
		fmt.Fprintf(&b, ` <a href="%s" type="text/markdown">%s</a>`, template.HTMLEscapeString(source), template.HTMLEscapeString(p.T("Markdown source")))
	}
	fmt.Fprintf(&b, `<span class="spacer"></span><nav class="languages" aria-label="%s">`, template.HTMLEscapeString(p.T("Language")))
	for _, l := range i18n.Codes() {
		cur := ""
		if l == p.Lang() {
			cur = ` aria-current="page"`
		}
		fmt.Fprintf(&b, ` <a href="../%s/%s" hreflang="%s" lang="%s"%s>%s</a>`, l, file, l, l, cur, i18n.Name(l))
	}
	b.WriteString("</nav></header>\n")
	return template.HTML(b.String())
}

func writeStudy(dir string, pg page, p *i18n.Printer, _ []page) error {
	base := filepath.Join(dir, p.Lang(), pg.s.ID)
	if err := export.WriteBeside(filepath.Join(dir, p.Lang()), pg.s, pg.a.Recommended(pg.s), pg.a.Simulated); err != nil {
		return err
	}
	var md bytes.Buffer
	if err := markdown.Write(&md, pg.doc, p, markdown.Options{}); err != nil {
		return err
	}
	if err := writeFile(base+".md", &md); err != nil {
		return err
	}
	var h bytes.Buffer
	o := rhtml.Options{Assets: "../assets/", Head: head(p, pg.s.ID+".html"), Header: header(p, pg.s.ID+".html", pg.s.ID+".md")}
	if err := rhtml.Write(&h, pg.doc, p, o); err != nil {
		return err
	}
	out := bytes.Replace(h.Bytes(), []byte(`<html lang="`+p.Lang()+`">`),
		[]byte(fmt.Sprintf(`<html lang="%s" data-copy="%s" data-copied="%s">`, p.Lang(),
			template.HTMLEscapeString(p.T("Copy")), template.HTMLEscapeString(p.T("Copied")))), 1)
	return os.WriteFile(base+".html", out, 0o644)
}

// row is one study in a language's index.
type row struct {
	Href, Title, Model, GPU, Engines, Newest, Headline string
}

var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{.Head}}<title>{{.Title}}</title>
<link rel="stylesheet" href="../assets/report.css">
</head>
<body>
{{.Header}}<main class="report">
<h1>{{.Title}}</h1>
<p>{{.Intro}}</p>
<table class="studies">
<thead><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr><td><a href="{{.Href}}">{{.Title}}</a></td><td><code>{{.Model}}</code></td><td>{{.GPU}}</td><td>{{.Engines}}</td><td>{{.Newest}}</td><td>{{.Headline}}</td></tr>
{{end}}</tbody>
</table>
</main>
</body>
</html>
`))

func writeIndex(dir string, p *i18n.Printer, pages []page) error {
	var rows []row
	for _, pg := range pages {
		rows = append(rows, indexRow(pg, p))
	}
	var b bytes.Buffer
	err := indexPage.Execute(&b, map[string]any{
		"Lang": p.Lang(), "Title": p.T("Studies"), "Head": head(p, "index.html"), "Header": header(p, "index.html", ""),
		"Intro":   p.T("servelab studies: LLM serving tuning, step by step, from recorded benchmarks."),
		"Columns": []string{p.T("Study"), p.T("Model"), p.T("GPU"), p.T("Engines"), p.T("Newest record"), p.T("Result")},
		"Rows":    rows,
	})
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, p.Lang(), "index.html"), &b)
}

func indexRow(pg page, p *i18n.Printer) row {
	s := pg.s
	var engines []string
	for _, name := range slices.Sorted(maps.Keys(pg.s.Engines)) {
		e := s.Engines[name]
		engines = append(engines, report.EngineName(e.Kind)+" "+e.Version)
	}
	r := row{Href: s.ID + ".html", Title: s.Title.In(p.Lang()), Model: s.Model.ID, GPU: fmt.Sprintf("%d × %s", s.Hardware.Count, s.Hardware.GPU),
		Engines: strings.Join(engines, ", "), Newest: pg.newest, Headline: headline(pg, p)}
	if r.Newest == "" {
		r.Newest = p.T("imported, undated")
	}
	if pg.a.Final == nil {
		r.Title = p.T("Draft: %s", r.Title)
	}
	return r
}

// headline is the final configuration's gain on the objective's profile
// (or the first validation profile): "1.13x faster (mean latency at …)".
func headline(pg page, p *i18n.Printer) string {
	if pg.a.Final == nil {
		return p.T("not decided yet")
	}
	if t := report.SLOMissed(pg.s, pg.a); t != nil {
		return d.String(t, p)
	}
	obj := pg.s.Objective
	pick := -1
	for i, v := range pg.a.Validation {
		if v.Ratio != nil && (pick < 0 || v.Profile == obj.Profile) {
			pick = i
		}
	}
	if pick < 0 {
		return ""
	}
	v := pg.a.Validation[pick]
	what := d.M("%s at %s", report.MetricName(obj.Metric), report.ProfileTitle(pg.s, v.Profile))
	return d.String(report.RatioText(obj.Metric, *v.Ratio), p) + " (" + d.String(what, p) + ")"
}

var rootPage = template.Must(template.New("root").Parse(`<!DOCTYPE html>
<html lang="en" data-language-chooser>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<title>servelab</title>
<link rel="icon" href="assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="assets/report.css">
{{range .Langs}}<link rel="alternate" hreflang="{{.Code}}" href="{{.Code}}/index.html">
{{end}}<script src="assets/site.js" defer></script>
</head>
<body>
<main class="report">
<h1>servelab</h1>
<ul>
{{range .Langs}}<li lang="{{.Code}}"><a href="{{.Code}}/index.html" hreflang="{{.Code}}">{{.Name}}</a>: {{.Intro}}</li>
{{end}}</ul>
</main>
</body>
</html>
`))

func writeRoot(dir string) error {
	type lang struct{ Code, Name, Intro string }
	var langs []lang
	for _, l := range i18n.Codes() {
		langs = append(langs, lang{l, i18n.Name(l), i18n.MustNew(l).T("servelab studies: LLM serving tuning, step by step, from recorded benchmarks.")})
	}
	var b bytes.Buffer
	if err := rootPage.Execute(&b, map[string]any{"CSP": CSP, "Langs": langs}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "index.html"), &b)
}

func writeSitemap(dir string, pages []page, base string) error {
	base = strings.TrimSuffix(base, "/") + "/"
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` + "\n")
	files := []string{"index.html"}
	for _, pg := range pages {
		files = append(files, pg.s.ID+".html")
	}
	for _, l := range i18n.Codes() {
		for _, f := range files {
			fmt.Fprintf(&b, "<url><loc>%s%s/%s</loc>", template.HTMLEscapeString(base), l, f)
			for _, alt := range i18n.Codes() {
				fmt.Fprintf(&b, `<xhtml:link rel="alternate" hreflang="%s" href="%s%s/%s"/>`, alt, template.HTMLEscapeString(base), alt, f)
			}
			b.WriteString("</url>\n")
		}
	}
	b.WriteString("</urlset>\n")
	return writeFile(filepath.Join(dir, "sitemap.xml"), &b)
}
