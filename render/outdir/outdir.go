// Package outdir guards the folders servelab writes documents into
// (render -o, site -o). servelab writes only into a folder that is new,
// empty, or one it created before; it records every file it writes in
// the folder's marker file, and replaces or removes only those files.
// So `-o results` or `-o studies` is refused instead of writing over a
// project's records, and a file a person added to an output folder is
// never lost.
package outdir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"servelab.dev/execute/store"
)

// Marker is the file that marks a folder as servelab's output. It lists
// the files servelab wrote there, one slash-separated path a line.
const Marker = ".servelab-output"

const header = "# servelab output folder: servelab wrote the files listed here and may replace or remove them.\n" +
	"# It never writes over or removes any other file in this folder.\n"

// Dir is an output folder servelab may write into.
type Dir struct {
	Path  string
	flag  string // the flag that named it, for messages ("-o")
	files map[string]bool
}

// Open claims dir for writing: it is created when missing; an existing
// folder must be empty or carry the marker. flag names the option that
// chose the folder, for the message.
func Open(dir, flag string) (*Dir, error) {
	files, err := Written(dir, flag)
	if err != nil {
		return nil, err
	}
	d := &Dir{Path: dir, flag: flag, files: files}
	if err := store.MakeDir(dir); err != nil {
		return nil, fmt.Errorf("%s %w", flag, err)
	}
	return d, d.save()
}

// Adopt is Open for a folder servelab wrote before it had markers: a
// folder without a marker that holds only files named in known (no
// subfolders) is taken as servelab's, and a marker listing them is
// written first; anything else is Open's decision.
func Adopt(dir, flag string, known map[string]bool) (*Dir, error) {
	if _, err := os.Stat(filepath.Join(dir, Marker)); errors.Is(err, fs.ErrNotExist) {
		ents, _ := os.ReadDir(dir)
		own := map[string]bool{}
		for _, e := range ents {
			if !known[e.Name()] || e.IsDir() {
				own = nil
				break
			}
			own[e.Name()] = true
		}
		if len(own) > 0 {
			if err := store.WriteAtomic(filepath.Join(dir, Marker), Manifest(own)); err != nil {
				return nil, err
			}
		}
	}
	return Open(dir, flag)
}

// Written returns the files servelab wrote in dir, as its marker lists
// them: none when dir is missing or empty. A folder with files but no
// marker is refused: servelab did not create it.
func Written(dir, flag string) (map[string]bool, error) {
	files := map[string]bool{}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return files, nil
	case err != nil:
		return nil, err
	case !info.IsDir():
		return nil, fmt.Errorf("%s %s: not a folder; give a new or empty folder", flag, dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, Marker))
	if errors.Is(err, fs.ErrNotExist) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		if len(ents) > 0 {
			return nil, fmt.Errorf("%s %s: the folder exists and servelab did not create it (no %s file in it); nothing was written: give a new or empty folder", flag, dir, Marker)
		}
		return files, nil
	}
	if err != nil {
		return nil, err
	}
	for i, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		// A hand-edited marker must not make servelab touch a file
		// outside the folder (or the marker itself).
		if !filepath.IsLocal(l) || path.Clean(l) != l || l == Marker || strings.Contains(l, "\\") {
			return nil, fmt.Errorf("%s:%d: %q is not a file inside the folder; the marker was edited: fix it or give another %s folder", filepath.Join(dir, Marker), i+1, l, flag)
		}
		files[l] = true
	}
	return files, nil
}

// Write writes data to rel (a slash-separated path inside the folder)
// through a temporary file and a rename. A file servelab did not write
// is never replaced. rel enters the marker before the file is written,
// so an interrupted write leaves nothing unaccounted for.
func (d *Dir) Write(rel string, data []byte) error {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == Marker || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return fmt.Errorf("%s: not a file servelab writes in %s", rel, d.Path)
	}
	path := filepath.Join(d.Path, filepath.FromSlash(rel))
	if !d.files[rel] {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s: servelab did not write this file (it is not in %s); nothing was written over it: move it away or give another %s folder", path, Marker, d.flag)
		}
		d.files[rel] = true
		if err := d.save(); err != nil {
			return err
		}
	}
	if err := store.MakeDir(filepath.Dir(path)); err != nil {
		return err
	}
	if err := store.WriteAtomic(path, data); err != nil {
		return err
	}
	// Published files are read by others (the atomic write's temporary
	// file is private); scripts stay executable.
	mode := os.FileMode(0o644)
	if strings.HasSuffix(rel, ".sh") {
		mode = 0o755
	}
	return os.Chmod(path, mode)
}

func (d *Dir) save() error {
	return store.WriteAtomic(filepath.Join(d.Path, Marker), Manifest(d.files))
}

// Manifest is the marker's content for these files: sorted, so that
// the same files give the same bytes.
func Manifest(files map[string]bool) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	for _, f := range slices.Sorted(maps.Keys(files)) {
		b.WriteString(f + "\n")
	}
	return b.Bytes()
}

// Foreign lists the files under dir that its marker does not name
// (files a person put there), as paths relative to dir.
func Foreign(dir string, files map[string]bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); rel != Marker && !files[rel] {
			out = append(out, rel)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}

// RemoveWritten removes the listed files of dir, its marker, and then
// the folders left empty; anything else stays where it is, and is
// reported.
func RemoveWritten(dir string, files map[string]bool) error {
	for f := range files {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	os.Remove(filepath.Join(dir, Marker))
	var dirs []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, and keeps it, when not empty
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s: kept, it holds files servelab did not write", dir)
	}
	return nil
}
