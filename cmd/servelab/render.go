package main

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/i18n"
	"servelab.dev/render/export"
	"servelab.dev/render/html"
	"servelab.dev/render/markdown"
	"servelab.dev/render/outdir"
	"servelab.dev/render/report"
)

func runRender(e *env, args []string) error {
	fs := newFlags(e, "render", "STUDY.cue... [--lang en,zh,ru] [--format md,html] -o DIR")
	langs := fs.String("lang", strings.Join(i18n.Codes, ","), "report languages")
	formats := fs.String("format", "md,html", "output formats: md, html")
	out := fs.String("o", "", "output folder")
	results := fs.String("results", "results", "results folder")
	echarts := fs.String("echarts", "", "the pinned npm echarts package the HTML charts need (default: $SERVELAB_ECHARTS, else site/node_modules/echarts, which make site-deps installs)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || *out == "" {
		return usagef("want: servelab render STUDY.cue... -o DIR")
	}
	ls, err := languages(*langs)
	if err != nil {
		return err
	}
	fm, err := outFormats(*formats)
	if err != nil {
		return err
	}
	if _, err := outdir.Written(*out, "-o"); err != nil {
		return err // before any work: a folder servelab did not create is refused
	}
	var ech map[string][]byte
	if fm["html"] {
		if *echarts == "" {
			*echarts = cmp.Or(os.Getenv("SERVELAB_ECHARTS"), "site/node_modules/echarts")
		}
		if ech, err = html.ECharts(*echarts); err != nil {
			return err
		}
	}
	rs, err := loadRecords(e, store.Open(*results))
	if err != nil {
		return err
	}
	dir, err := outdir.Open(*out, "-o")
	if err != nil {
		return err
	}
	for _, file := range pos {
		if err := renderStudy(e, file, dir, ls, fm, rs); err != nil {
			return err
		}
	}
	if fm["html"] {
		return writeAssets(dir, ech)
	}
	return nil
}

func languages(list string) ([]*i18n.Printer, error) {
	var out []*i18n.Printer
	for _, l := range strings.Split(list, ",") {
		p, err := i18n.New(strings.TrimSpace(l))
		if err != nil {
			return nil, usagef("--lang: %v", err)
		}
		out = append(out, p)
	}
	return out, nil
}

func outFormats(list string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f != "md" && f != "html" {
			return nil, usagef("--format: unknown format %q (want md, html)", f)
		}
		out[f] = true
	}
	return out, nil
}

func renderStudy(e *env, file string, dir *outdir.Dir, ls []*i18n.Printer, fm map[string]bool, rs decide.Records) error {
	s, err := loadStudy(file)
	if err != nil {
		return err
	}
	a, err := decide.Analyze(s, rs, decide.Auto)
	if err != nil {
		return err
	}
	doc := report.Build(s, a, a.Runs)
	beside, err := export.Beside(s, a.Plan.Final)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(beside)) {
		if err := dir.Write(name, beside[name]); err != nil {
			return err
		}
	}
	for _, p := range ls {
		base := s.ID + "." + p.Lang()
		if fm["md"] {
			var b bytes.Buffer
			if err := markdown.Write(&b, doc, p, markdown.Options{}); err != nil {
				return err
			}
			if err := dir.Write(base+".md", b.Bytes()); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, filepath.Join(dir.Path, base+".md"))
		}
		if fm["html"] {
			var b bytes.Buffer
			if err := html.Write(&b, doc, p, html.Options{Assets: "assets/"}); err != nil {
				return err
			}
			if err := dir.Write(base+".html", b.Bytes()); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, filepath.Join(dir.Path, base+".html"))
		}
	}
	return nil
}

func writeAssets(dir *outdir.Dir, echarts map[string][]byte) error {
	files := html.Assets()
	for name, data := range echarts {
		files[name] = data
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := dir.Write("assets/"+name, files[name]); err != nil {
			return err
		}
	}
	return nil
}
