// Package site builds servelab's static, multilingual docs site from the
// committed studies and results:
//
//	index.html                 language chooser (redirects by browser language; plain links without JS)
//	<lang>/index.html          the studies in that language
//	<lang>/<study>.html        a study's report, with a language switcher and hreflang alternates
//	<lang>/<study>.md          its Markdown source
//	assets/                    ECharts (pinned npm package, with its licence), chart loader, styles
//	sitemap.xml                with absolute URLs, when --base-url gives the site's address
//	.servelab-output           the marker: every file servelab wrote here
//
// Every page carries a Content-Security-Policy that allows requests to
// its own origin only, and loads nothing from anywhere else. Building
// twice gives byte-identical trees: nothing depends on the clock.
package site

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	rhtml "servelab.dev/render/html"
	"servelab.dev/render/outdir"
	"servelab.dev/render/report"
	"servelab.dev/schema"
)

// EChartsSHA256 pins dist/echarts.min.js of npm echarts 5.6.0.
const EChartsSHA256 = rhtml.EChartsSHA256

// Options say where the inputs are.
type Options struct {
	Studies string // folder of study files
	Results string // results folder
	ECharts string // the npm package folder (node_modules/echarts)
	// BaseURL is the absolute http(s) URL of the site root, for the
	// sitemap; "" writes no sitemap.
	BaseURL string
	// Drafts publishes undecided studies too, marked as drafts; by
	// default the site shows decided studies only.
	Drafts bool
}

// CSP allows the page's own origin only. Inline styles stay allowed
// because ECharts' SVG renderer sets style attributes; they load nothing.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"

// page is one study ready to print.
type page struct {
	s   *schema.Study
	a   *decide.Analysis
	doc *d.Doc
	// newest is the latest record time of the study ("" when every record
	// is imported without a date).
	newest string
}

// Build writes the site into a new folder beside out, then replaces out
// with it, so a failed build leaves the old site whole. out must be new,
// empty, or a site servelab built (its marker lists every file): a folder
// holding anything else is refused before any work, and only the files
// servelab wrote are removed with the old site.
func Build(out string, o Options) error {
	if err := CheckBaseURL(o.BaseURL); err != nil {
		return err
	}
	old, err := outdir.Written(out, "-o")
	if err != nil {
		return err
	}
	if foreign, err := outdir.Foreign(out, old); err != nil {
		return err
	} else if len(foreign) > 0 {
		return fmt.Errorf("-o %s: %s was not written by servelab (%d such files); nothing was written: move them away or give another -o folder",
			out, filepath.Join(out, foreign[0]), len(foreign))
	}
	pages, err := load(o)
	if err != nil {
		return err
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".site-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // servelab's own temporary folder
	if err := write(tmp, pages, o); err != nil {
		return err
	}
	if err := mark(tmp); err != nil {
		return err
	}
	return swap(tmp, out, old)
}

// CheckBaseURL accepts "" (no sitemap) or an absolute http(s) URL
// without query or fragment.
func CheckBaseURL(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("--base-url %q: want the absolute URL of the site root, e.g. https://example.org/servelab/", base)
	}
	return nil
}

// mark writes the marker that lists every file of the new site.
func mark(dir string) error {
	files, err := outdir.Foreign(dir, nil)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	for _, f := range files {
		set[f] = true
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	return store.WriteAtomic(filepath.Join(dir, outdir.Marker), outdir.Manifest(set))
}

// swap puts the new site at out and removes the old one's files.
func swap(tmp, out string, old map[string]bool) error {
	prev := tmp + ".old"
	if err := os.Rename(out, prev); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(prev, out)
		return err
	}
	if _, err := os.Stat(prev); err != nil {
		return nil
	}
	return outdir.RemoveWritten(prev, old)
}

func load(o Options) ([]page, error) {
	l, err := schema.NewLoader()
	if err != nil {
		return nil, err
	}
	studies, errs := l.LoadPaths([]string{o.Studies})
	if len(errs) > 0 {
		return nil, errs
	}
	st := store.Open(o.Results)
	runs, samples, err := st.OKWithSamples()
	if err != nil {
		return nil, err
	}
	sort.Slice(studies, func(i, j int) bool { return studies[i].ID < studies[j].ID })
	var pages []page
	for _, s := range studies {
		a, err := decide.Analyze(s, decide.Records{Runs: runs, Samples: samples}, decide.Auto)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		if a.Final == nil && !o.Drafts {
			continue
		}
		doc, err := report.BuildWithLogs(s, a, a.Runs, st)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		if a.Final == nil {
			doc.Blocks = append([]d.Block{d.Banner{Text: d.M("Draft: this study is not decided yet, so its figures are incomplete and it recommends nothing.")}}, doc.Blocks...)
		}
		pages = append(pages, page{s: s, a: a, doc: doc, newest: newest(a, a.Runs)})
	}
	return pages, nil
}

// newest is the latest end (or start) time among the study's records.
func newest(a *decide.Analysis, runs decide.Runs) string {
	best := ""
	for _, t := range a.Plan.Trials {
		for _, r := range runs[t.Key] {
			for _, ts := range []string{r.Provenance.End, r.Provenance.Start} {
				if ts > best {
					best = ts
				}
			}
		}
	}
	return best
}

func write(dir string, pages []page, o Options) error {
	if err := writeAssets(filepath.Join(dir, "assets"), o.ECharts); err != nil {
		return err
	}
	for _, lang := range i18n.Codes() {
		p := i18n.MustNew(lang)
		if err := os.MkdirAll(filepath.Join(dir, lang), 0o755); err != nil {
			return err
		}
		for _, pg := range pages {
			if err := writeStudy(dir, pg, p, pages); err != nil {
				return err
			}
		}
		if err := writeIndex(dir, p, pages); err != nil {
			return err
		}
	}
	if err := writeRoot(dir); err != nil {
		return err
	}
	if o.BaseURL == "" {
		return nil // a sitemap needs absolute URLs (sitemaps.org); the command says so
	}
	return writeSitemap(dir, pages, o.BaseURL)
}

// writeAssets copies the pinned ECharts build (checked against its
// sha256) with its licence, and servelab's own scripts and styles.
func writeAssets(dir string, echarts string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files, err := rhtml.ECharts(echarts)
	if err != nil {
		return err
	}
	for n, b := range siteAssets() {
		files[n] = b
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, b *bytes.Buffer) error {
	return os.WriteFile(path, b.Bytes(), 0o644)
}
