// Command servelab-flagscan prints the flags a Python argument parser
// source declares (argparse add_argument, click options) as flag-table
// entries, for a new schema/flags/<kind>.json or a new engine version,
// and lists on stderr every flag whose type or choices the source does
// not state literally, and every default written as an expression:
// those are finished by hand.
//
//	servelab-flagscan arg_utils.py cli_args.py > flags.json
package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	"servelab.dev/schema"
	"servelab.dev/schema/flagscan"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: servelab-flagscan FILE.py...")
		os.Exit(2)
	}
	var flags []schema.FlagSpec
	for _, file := range os.Args[1:] {
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "servelab-flagscan: %v\n", err)
			os.Exit(1)
		}
		r := flagscan.Scan(string(src))
		flags = append(flags, r.Flags...)
		for _, name := range slices.Sorted(maps.Keys(r.Unresolved)) {
			fmt.Fprintf(os.Stderr, "%s: --%s: unresolved: %s\n", file, name, r.Unresolved[name])
		}
		for _, name := range slices.Sorted(maps.Keys(r.NoDefault)) {
			fmt.Fprintf(os.Stderr, "%s: --%s: default not a literal: %s\n", file, name, r.NoDefault[name])
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any{"flags": flags}); err != nil {
		fmt.Fprintf(os.Stderr, "servelab-flagscan: %v\n", err)
		os.Exit(1)
	}
}
