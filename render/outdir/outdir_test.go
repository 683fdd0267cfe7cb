package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder servelab did not create is refused; its own is reopened with
// the files it wrote, and a file it did not write is never replaced.
func TestOpenWriteRefuse(t *testing.T) {
	root := t.TempDir()
	foreign := filepath.Join(root, "results")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "a.json"), []byte("x"), 0o644)
	if _, err := Open(foreign, "-o"); err == nil || !strings.Contains(err.Error(), "servelab did not create it") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, Marker)); err == nil {
		t.Fatal("marker written into a foreign folder")
	}
	out := filepath.Join(root, "out")
	d, err := Open(out, "-o")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write("a/b.md", []byte("1")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "mine.md"), []byte("mine"), 0o644)
	d2, err := Open(out, "-o")
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Write("a/b.md", []byte("2")); err != nil {
		t.Errorf("rewriting its own file: %v", err)
	}
	if err := d2.Write("mine.md", []byte("over")); err == nil {
		t.Error("wrote over a file servelab did not write")
	}
	for _, bad := range []string{"../x", Marker, "/etc/passwd"} {
		if err := d2.Write(bad, nil); err == nil {
			t.Errorf("wrote %s", bad)
		}
	}
	files, _ := Written(out, "-o")
	if foreign, _ := Foreign(out, files); len(foreign) != 1 || foreign[0] != "mine.md" {
		t.Errorf("foreign %v", foreign)
	}
	if err := RemoveWritten(out, files); err == nil || !strings.Contains(err.Error(), "kept") {
		t.Errorf("removing: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "mine.md")); string(b) != "mine" {
		t.Error("a file servelab did not write was removed")
	}
	if _, err := os.Stat(filepath.Join(out, "a")); err == nil {
		t.Error("its own emptied folder stays")
	}
}

// FuzzMarker: any marker text is read without panic, and Manifest of
// what was read reads back the same.
func FuzzMarker(f *testing.F) {
	f.Add(string(Manifest(map[string]bool{"en/index.html": true, "assets/x.js": true})))
	f.Add("# comment\n\n../../etc/passwd\n")
	f.Add("a/../../b\n/abs\nok.html\n")
	f.Fuzz(func(t *testing.T, text string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, Marker), []byte(text), 0o644)
		files, err := Written(dir, "-o")
		if err != nil {
			return
		}
		for f := range files {
			if !filepath.IsLocal(f) {
				t.Fatalf("%q accepted: outside the folder", f)
			}
		}
		os.WriteFile(filepath.Join(dir, Marker), Manifest(files), 0o644)
		again, err := Written(dir, "-o")
		if err != nil || len(again) != len(files) {
			t.Fatalf("%d files read back as %d (%v)", len(files), len(again), err)
		}
	})
}

// An export from before markers (only known names) is adopted; a
// folder with anything else in it is refused, untouched.
func TestAdopt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "study.cue"), []byte("old"), 0o644)
	d, err := Adopt(dir, "schema export", map[string]bool{"study.cue": true, "gpus.cue": true})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write("study.cue", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, Marker)); !strings.Contains(string(b), "\nstudy.cue\n") {
		t.Errorf("marker %q", b)
	}

	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "study.cue"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(other, "mine.cue"), []byte("mine"), 0o644)
	if _, err := Adopt(other, "schema export", map[string]bool{"study.cue": true}); err == nil || !strings.Contains(err.Error(), "servelab did not create it") {
		t.Errorf("a folder with a file of the user's: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, Marker)); !os.IsNotExist(err) {
		t.Error("a marker was written into a folder that is not servelab's")
	}
}

func TestDanglingLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "out")
	if err := os.Symlink(filepath.Join(dir, "gone"), link); err != nil {
		t.Fatal(err)
	}
	_, err := Open(link, "-o")
	want := "-o " + link + ": a symbolic link to " + filepath.Join(dir, "gone") + ", which does not exist"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q…", err, want)
	}
}
