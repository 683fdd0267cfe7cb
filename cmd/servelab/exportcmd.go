package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/render/export"
	"servelab.dev/render/outdir"
)

func runExport(e *env, args []string) error {
	fs := newFlags(e, "export", "STUDY.cue --format docker|compose|k8s|gpustack|all [-o DIR]")
	format := fs.String("format", "all", "docker, compose, k8s, gpustack, or all (comma-separated for several)")
	out := fs.String("o", "", "folder to write the files to (default: print one format to stdout)")
	results := fs.String("results", "results", "results folder")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one study file, got %d arguments", len(pos))
	}
	formats := strings.Split(*format, ",")
	for _, f := range formats {
		if f != "all" && !slices.Contains(export.Formats(), f) {
			return usagef("--format %q: want %s or all", f, strings.Join(export.Formats(), ", "))
		}
	}
	if *out == "" && (len(formats) != 1 || formats[0] == "all") {
		return usagef("several formats need -o DIR; without it, give one --format to print")
	}
	if *out != "" {
		if _, err := outdir.Written(*out, "-o"); err != nil {
			return err // before any work: a folder servelab did not create is refused
		}
	}
	s, err := loadStudy(pos[0])
	if err != nil {
		return err
	}
	rs, err := loadRecords(e, store.Open(*results))
	if err != nil {
		return err
	}
	// The configuration the study's page recommends, so that these files
	// are the ones its deploy links give.
	a, err := decide.Analyze(s, rs, decide.Auto)
	if err != nil {
		return err
	}
	files, err := export.Files(s, a.Recommended(s), a.Simulated, formats)
	if err != nil {
		return err
	}
	if *out == "" {
		for _, b := range files {
			_, err := e.stdout.Write(b)
			return err
		}
	}
	dir, err := outdir.Open(*out, "-o")
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := dir.Write(name, files[name]); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, filepath.Join(*out, name))
	}
	return nil
}
