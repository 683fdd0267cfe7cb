package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

// runSchema writes the embedded schema as a CUE module package, so that
// stock `cue vet` and editors resolve `import "servelab.dev/schema"` in a
// repository of studies that is not this one.
func runSchema(e *env, args []string) error {
	fs := newFlags(e, "schema", "export DIR")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "export" {
		return usagef("want: servelab schema export DIR")
	}
	dir := filepath.Join(pos[1], "cue.mod", "pkg", filepath.FromSlash(schema.ImportPath))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mod := filepath.Join(pos[1], "cue.mod", "module.cue")
	if _, err := os.Stat(mod); os.IsNotExist(err) {
		if err := writeAtomic(mod, []byte("module: \"studies.local\"\nlanguage: version: \"v0.17.0\"\n")); err != nil {
			return err
		}
	}
	files := schema.Files()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeAtomic(filepath.Join(dir, n), files[n]); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, filepath.Join(dir, n))
	}
	return nil
}

// writeAtomic replaces path with data through a temporary file and a
// rename (the store's own writer).
var writeAtomic = store.WriteAtomic
