// Package gitrev reads folders of a git repository as they were at a
// revision, through `git archive` into a folder of the caller's, so the
// work tree (and the index) is never touched: `servelab diff` reads a
// pull request's base this way while the head is checked out.
package gitrev

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Toplevel is the root of the work tree holding dir.
func Toplevel(dir string) (string, error) {
	out, err := git(dir, "rev-parse", "--show-toplevel")
	return strings.TrimSpace(out), err
}

// Extract writes path (a file or folder, relative to the repository
// root) as it is at rev into dir, keeping its place under the root. A
// path that does not exist at rev writes nothing and is no error.
func Extract(root, rev, path, dir string) error {
	if out, err := git(root, "ls-tree", "--name-only", rev, "--", path); err != nil {
		return err
	} else if strings.TrimSpace(out) == "" {
		return nil
	}
	cmd := exec.Command("git", "-C", root, "archive", "--format=tar", rev, "--", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git archive %s %s: %v: %s", rev, path, err, strings.TrimSpace(stderr.String()))
	}
	return untar(data, dir)
}

// untar writes the archive's folders and regular files under dir;
// links and names that would leave dir are not followed.
func untar(data []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(os.PathSeparator)) {
			return fmt.Errorf("git archive: %s leaves the folder", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(target), 0o755)
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, b, 0o644); err != nil {
				return err
			}
		}
	}
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
