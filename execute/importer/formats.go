package importer

import (
	"fmt"
	"sort"
	"strings"
)

// A Format is one kind of file Parse reads. Each parser's file registers
// its formats (register in a package-level var), so adding a format
// touches that one file (plus its golden, fuzz target and README row).
type Format struct {
	Name  string
	Parse func(data []byte) ([]Result, error)
	// Rank orders Formats, the list help and error messages show.
	Rank int
	// What Check must know of the layout:
	//   - AnyClient: the layout does not prove which client printed it,
	//     so the study's benchmark client is not checked against it;
	//   - PeakAsCap: a "maximum request concurrency" on a profile without
	//     a cap may be the observed peak (seed 000's vLLM blocks), kept as
	//     the peak with a note rather than refused;
	//   - CapUnsaid: a file without a cap does not say it ran without one.
	AnyClient, PeakAsCap, CapUnsaid bool
	// Sniff recognises the format from a file's content (--format auto).
	Sniff func(*sample) bool
	// RatesOverDuration: the writer computes each throughput as its total
	// over the duration, unrounded, so consistent can hold it to that.
	RatesOverDuration bool
}

var formats = map[string]Format{}

func register(f Format) bool {
	if _, dup := formats[f.Name]; dup || f.Parse == nil || f.Sniff == nil {
		panic("importer: format " + f.Name + " registered twice or without a parser or a sniffer")
	}
	formats[f.Name] = f
	return true
}

// Formats are the names Parse accepts, in rank order.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := formats[names[i]], formats[names[j]]
		return a.Rank < b.Rank || a.Rank == b.Rank && a.Name < b.Name
	})
	return names
}

func lookup(name string) (Format, error) {
	f, ok := formats[name]
	if !ok {
		return Format{}, fmt.Errorf("unknown format %q (want %s)", name, strings.Join(Formats(), ", "))
	}
	return f, nil
}
