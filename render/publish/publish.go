// Package publish writes decided studies into an output folder, as
// `servelab render -o` does: the final configuration's files beside the
// reports (render/export), one report per language and output format,
// and the assets the formats link to. Output formats are a registry:
// each writer's file here registers a Writer, so adding a format (a
// PDF, say) is a one-file change.
package publish

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/i18n"
	"servelab.dev/render/document"
	"servelab.dev/render/export"
	"servelab.dev/render/outdir"
	"servelab.dev/render/report"
	"servelab.dev/schema"
)

// A Writer writes a report document in one output format.
type Writer struct {
	// Name is the format's name and its files' extension.
	Name string
	// Rank orders Formats and the files of each language.
	Rank  int
	Write func(w io.Writer, doc *document.Doc, p *i18n.Printer) error
	// Assets loads the files the format's documents link to, written
	// once under assets/; echarts is the pinned npm echarts package
	// folder. nil for a format that links to nothing.
	Assets func(echarts string) (map[string][]byte, error)
}

var writers = map[string]Writer{}

func register(w Writer) bool {
	if _, dup := writers[w.Name]; dup || w.Write == nil {
		panic("publish: writer " + w.Name + " registered twice or without Write")
	}
	writers[w.Name] = w
	return true
}

// Formats are the output formats, in rank order.
func Formats() []string {
	names := make([]string, 0, len(writers))
	for n := range writers {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := writers[names[i]], writers[names[j]]
		return a.Rank < b.Rank || a.Rank == b.Rank && a.Name < b.Name
	})
	return names
}

// Check refuses a name that is not an output format.
func Check(format string) error {
	if _, ok := writers[format]; !ok {
		return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats(), ", "))
	}
	return nil
}

// Assets loads the assets of the chosen formats (before any work, so a
// missing package fails first).
func Assets(formats []string, echarts string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, f := range chosen(formats) {
		if f.Assets == nil {
			continue
		}
		files, err := f.Assets(echarts)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, files)
	}
	return out, nil
}

// WriteAssets writes the assets under dir's assets/ folder.
func WriteAssets(dir *outdir.Dir, files map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := dir.Write("assets/"+name, files[name]); err != nil {
			return err
		}
	}
	return nil
}

// Study decides s from rs and writes, into dir, the final
// configuration's files and s's report in each language and chosen
// format (STUDY.LANG.FORMAT), with the settings the engines printed at
// start-up where logs has their logs (nil: none). It returns the
// reports' paths, in the order written, also those written before an
// error.
func Study(dir *outdir.Dir, s *schema.Study, rs decide.Records, logs report.EngineLogs, langs []*i18n.Printer, formats []string) ([]string, error) {
	a, err := decide.Analyze(s, rs, decide.Auto)
	if err != nil {
		return nil, err
	}
	doc, err := report.BuildWithLogs(s, a, a.Runs, logs)
	if err != nil {
		return nil, err
	}
	beside, err := export.Beside(s, a.Recommended(s), a.Simulated)
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(beside)) {
		if err := dir.Write(name, beside[name]); err != nil {
			return nil, err
		}
	}
	var written []string
	for _, p := range langs {
		for _, f := range chosen(formats) {
			name := s.ID + "." + p.Lang() + "." + f.Name
			var b bytes.Buffer
			if err := f.Write(&b, doc, p); err != nil {
				return written, err
			}
			if err := dir.Write(name, b.Bytes()); err != nil {
				return written, err
			}
			written = append(written, filepath.Join(dir.Path, name))
		}
	}
	return written, nil
}

// chosen are the writers of formats, in rank order.
func chosen(formats []string) []Writer {
	var out []Writer
	for _, name := range Formats() {
		if slices.Contains(formats, name) {
			out = append(out, writers[name])
		}
	}
	return out
}

// ParseFormats reads a comma-separated list of formats, each checked,
// sorted and once.
func ParseFormats(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if err := Check(f); err != nil {
			return nil, err
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out, nil
}
