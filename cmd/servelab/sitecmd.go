package main

import (
	"fmt"

	"servelab.dev/site"
)

func runSite(e *env, args []string) error {
	fs := newFlags(e, "site", "-o DIR [--serve ADDR]")
	out := fs.String("o", "public", "output folder")
	studies := fs.String("studies", "studies", "folder of study files")
	results := fs.String("results", "results", "results folder")
	echarts := fs.String("echarts", "site/node_modules/echarts", "the pinned npm echarts package (make site installs it)")
	base := fs.String("base-url", "", "absolute URL the site will be published at (e.g. https://example.org/servelab/), for sitemap.xml; without it no sitemap is written")
	drafts := fs.Bool("drafts", false, "also publish undecided studies, marked as drafts")
	serve := fs.String("serve", "", "after building, serve the site on this loopback address (e.g. 127.0.0.1:8080)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if err := site.CheckBaseURL(*base); err != nil {
		return usageError{err.Error()}
	}
	if *serve != "" {
		if err := loopback(*serve); err != nil {
			return err
		}
	}
	if err := site.Build(*out, site.Options{Studies: *studies, Results: *results, ECharts: *echarts, BaseURL: *base, Drafts: *drafts}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "site written to %s (open %s/en/index.html)\n", *out, *out)
	if *base == "" {
		fmt.Fprintln(e.stdout, "no sitemap.xml: a sitemap needs absolute URLs; give --base-url https://HOST/PATH/ for one")
	}
	if *serve == "" {
		return nil
	}
	return site.Serve(*out, *serve, func(addr string) {
		fmt.Fprintf(e.stdout, "serving %s on http://%s/ (Ctrl-C stops)\n", *out, addr)
	})
}

// loopback checks --serve.
func loopback(addr string) error {
	if err := site.CheckServeAddr(addr); err != nil {
		return usagef("--serve %s: %v", addr, err)
	}
	return nil
}
