package main

import (
	"cmp"
	"fmt"
	"os"
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
	ls, err := i18n.NewList(*langs)
	if err != nil {
		return usagef("--lang: %v", err)
	}
	chosen, err := publish.ParseFormats(*formats)
	if err != nil {
		return usagef("--format: %v", err)
	}
	if _, err := outdir.Written(*out, "-o"); err != nil {
		return err // before any work: a folder servelab did not create is refused
	}
	assets, err := publish.Assets(chosen, cmp.Or(*echarts, os.Getenv("SERVELAB_ECHARTS"), "site/node_modules/echarts"))
	if err != nil {
		return err
	}
	st := store.Open(*results)
	rs, err := loadRecords(e, st)
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
		written, err := publish.Study(dir, s, rs, st, ls, chosen)
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
