package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

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
	dir, err := schemaDir(filepath.Join(pos[1], "cue.mod", "pkg", filepath.FromSlash(schema.ImportPath)), files)
	if err != nil {
		return err
	}
	mod := filepath.Join(pos[1], "cue.mod", "module.cue")
	if _, err := os.Stat(mod); os.IsNotExist(err) {
		if err := writeAtomic(mod, []byte("module: \"studies.local\"\nlanguage: version: \"v0.17.0\"\n")); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := dir.Write(n, files[n]); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, filepath.Join(dir.Path, n))
	}
	return nil
}

// schemaDir claims the schema's package folder. An export made before
// the folder had a marker holds only the schema's own file names: it is
// taken as servelab's; anything else there is refused.
func schemaDir(dir string, files map[string][]byte) (*outdir.Dir, error) {
	if _, err := os.Stat(filepath.Join(dir, outdir.Marker)); os.IsNotExist(err) {
		ents, _ := os.ReadDir(dir)
		own := map[string]bool{}
		for _, e := range ents {
			if files[e.Name()] == nil || e.IsDir() {
				own = nil
				break
			}
			own[e.Name()] = true
		}
		if len(own) > 0 {
			if err := writeAtomic(filepath.Join(dir, outdir.Marker), outdir.Manifest(own)); err != nil {
				return nil, err
			}
		}
	}
	return outdir.Open(dir, "schema export")
}

// writeAtomic replaces path with data through a temporary file and a
// rename (the store's own writer).
var writeAtomic = store.WriteAtomic
