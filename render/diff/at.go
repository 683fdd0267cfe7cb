package diff

import (
	"os"
	"path/filepath"

	"servelab.dev/render/diff/gitrev"
)

// At loads the state of the repository at root as it is at revision rev:
// its studies and results folders (relative to root) are read through
// git into a temporary folder, removed afterwards; the work tree is not
// touched. rev "" is the work tree itself. A folder missing at rev is
// an empty one.
func At(root, rev, studies, results string) (*Side, error) {
	if rev == "" {
		return Load(filepath.Join(root, studies), filepath.Join(root, results))
	}
	dir, err := os.MkdirTemp("", "servelab-diff-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for _, path := range []string{studies, results} {
		if err := gitrev.Extract(root, rev, path, dir); err != nil {
			return nil, err
		}
	}
	os.MkdirAll(filepath.Join(dir, studies), 0o755)
	return Load(filepath.Join(dir, studies), filepath.Join(dir, results))
}
