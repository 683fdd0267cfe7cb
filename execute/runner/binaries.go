package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SelfBinary is the path of the servelab running now, as the name it
// was started by resolves: a symlinked install (or the test harness's
// command link) runs the same way on a cluster node, which
// os.Executable would resolve to the link's target.
func SelfBinary() (string, error) {
	if strings.ContainsRune(os.Args[0], filepath.Separator) {
		return filepath.Abs(os.Args[0])
	}
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return filepath.Abs(p)
	}
	return os.Executable()
}

// SimBinary finds servelab-sim: the path given, beside this binary, or
// on PATH.
func SimBinary(given string) (string, error) {
	if given != "" {
		return filepath.Abs(given)
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "servelab-sim")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("servelab-sim"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("servelab-sim not found beside servelab or on PATH (make build builds both; or give --sim)")
}
