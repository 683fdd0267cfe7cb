package schema

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LoadPaths loads every study named by paths: files, or folders searched
// recursively for *.cue files (skipping cue.mod and hidden folders). It
// returns the studies that loaded and every problem found, including
// two files that define the same study id.
func (l *Loader) LoadPaths(paths []string) ([]*Study, List) {
	var files []string
	var errs List
	for _, p := range paths {
		fs, err := studyFiles(p)
		if err != nil {
			errs = append(errs, err.(Error))
			continue
		}
		files = append(files, fs...)
	}
	var studies []*Study
	byID := map[string]string{}
	for _, f := range files {
		s, err := l.LoadFile(f)
		if err != nil {
			errs = append(errs, err.(List)...)
			continue
		}
		if prev, dup := byID[s.ID]; dup {
			errs = append(errs, fileErr(f, "study %q is also defined in %s", s.ID, prev))
			continue
		}
		byID[s.ID] = f
		studies = append(studies, s)
	}
	return studies, errs
}

func studyFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fileErr(p, "%v", unwrapPathErr(err))
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != p && (d.Name() == "cue.mod" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && filepath.Ext(path) == ".cue" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fileErr(pe.Path, "%v", pe.Err)
		}
		return nil, fileErr(p, "%v", err)
	}
	if len(files) == 0 {
		return nil, fileErr(p, "no .cue files in this folder")
	}
	sort.Strings(files)
	return files, nil
}
