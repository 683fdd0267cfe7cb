package main

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"servelab.dev/execute/store"
	"servelab.dev/i18n"
	"servelab.dev/render/outdir"
	"servelab.dev/render/publish"
)

func runRender(e *env, args []string) error {
	fs := newFlags(e, "render", "STUDY.cue... [--lang en,zh,ru] [--format md,html] -o DIR")
	langs := fs.String("lang", strings.Join(i18n.Codes(), ","), "report languages")
	formats := fs.String("format", "md,html", "output formats: "+strings.Join(publish.Formats(), ", "))
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
	chosen := slices.Sorted(maps.Keys(fm))
	assets, err := publish.Assets(chosen, cmp.Or(*echarts, os.Getenv("SERVELAB_ECHARTS"), "site/node_modules/echarts"))
	if err != nil {
		return err
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
		s, err := loadStudy(file)
		if err != nil {
			return err
		}
		written, err := publish.Study(dir, s, rs, ls, chosen)
		for _, path := range written {
			fmt.Fprintln(e.stdout, path)
		}
		if err != nil {
			return err
		}
	}
	if len(assets) > 0 {
		return publish.WriteAssets(dir, assets)
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
		if err := publish.Check(f); err != nil {
			return nil, usagef("--format: %v", err)
		}
		out[f] = true
	}
	return out, nil
}
