package gitrev

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a repository with two commits: the first holds
// studies/a.cue, the second changes it and adds results/k/r.json.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid", "HOME="+root)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(path, s string) {
		p := filepath.Join(root, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	write("studies/a.cue", "old")
	run("add", "-A")
	run("commit", "-q", "-m", "one")
	write("studies/a.cue", "new")
	write("results/k/r.json", "{}")
	run("add", "-A")
	run("commit", "-q", "-m", "two")
	write("studies/a.cue", "work tree")
	return root
}

func TestExtract(t *testing.T) {
	root := repo(t)
	top, err := Toplevel(filepath.Join(root, "studies"))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := filepath.EvalSymlinks(root); top != a && top != root {
		t.Errorf("top level %s, want %s", top, root)
	}
	dir := t.TempDir()
	for _, p := range []string{"studies", "results"} {
		if err := Extract(root, "HEAD~1", p, dir); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "studies", "a.cue")); err != nil || string(b) != "old" {
		t.Errorf("studies/a.cue at HEAD~1: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); !os.IsNotExist(err) {
		t.Errorf("results did not exist at HEAD~1, yet: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "studies", "a.cue")); string(b) != "work tree" {
		t.Errorf("the work tree was touched: %q", b)
	}
	if err := Extract(root, "no-such-rev", "studies", t.TempDir()); err == nil || !strings.Contains(err.Error(), "git ls-tree") {
		t.Errorf("unknown revision: %v", err)
	}
}

// An archive entry naming a path outside the folder is refused.
func TestUntarStaysInside(t *testing.T) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	tw.WriteHeader(&tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644})
	tw.Write([]byte("x"))
	tw.Close()
	dir := t.TempDir()
	if err := untar(b.Bytes(), filepath.Join(dir, "in")); err == nil || !strings.Contains(err.Error(), "leaves the folder") {
		t.Errorf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evil")); !os.IsNotExist(err) {
		t.Error("a file was written outside the folder")
	}
}
