package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"servelab.dev/execute/store"
	"servelab.dev/render/outdir"
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
	files := schema.Files()
	known := map[string]bool{}
	for n := range files {
		known[n] = true
	}
	dir, err := outdir.Adopt(filepath.Join(pos[1], schema.PackageDir), "schema export", known)
	if err != nil {
		return err
	}
	mod := filepath.Join(pos[1], schema.ModuleFile)
	if _, err := os.Stat(mod); os.IsNotExist(err) {
		if err := writeAtomic(mod, schema.Module); err != nil {
			return err
		}
	}
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if err := dir.Write(n, files[n]); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, filepath.Join(dir.Path, n))
	}
	return nil
}

// writeAtomic replaces path with data through a temporary file and a
// rename (the store's own writer).
var writeAtomic = store.WriteAtomic
