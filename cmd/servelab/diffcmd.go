package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"servelab.dev/i18n"
	"servelab.dev/render/diff"
)

func runDiff(e *env, args []string) error {
	fs := newFlags(e, "diff", "BASE [HEAD] [--lang en|zh|ru] [--json] [--format md|text] [--fail-on missing,regression]")
	lang := fs.String("lang", "en", "language of the Markdown")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	format := fs.String("format", "", "md (default when not a terminal) or text")
	failOn := fs.String("fail-on", "", "exit 1 on: missing (planned trials without records), regression (significantly worse records)")
	studies := fs.String("studies", "studies", "studies folder, relative to the repository root")
	results := fs.String("results", "results", "results folder, relative to the repository root")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("want BASE [HEAD] git revisions")
	}
	p, err := i18n.New(*lang)
	if err != nil {
		return usageError{err.Error()}
	}
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	base, err := sideAt(strings.TrimSpace(root), pos[0], *studies, *results)
	if err != nil {
		return err
	}
	head := ""
	if len(pos) == 2 {
		head = pos[1]
	}
	hd, err := sideAt(strings.TrimSpace(root), head, *studies, *results)
	if err != nil {
		return err
	}
	rep := diff.Compare(base, hd)
	switch {
	case *asJSON:
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	default:
		plain := *format == "text" || *format == "" && isTerminal(e.stdout)
		fmt.Fprint(e.stdout, rep.Write(p, plain))
	}
	return failures(e, rep, *failOn)
}

func failures(e *env, rep diff.Report, failOn string) error {
	var bad []string
	for _, what := range strings.Split(failOn, ",") {
		switch strings.TrimSpace(what) {
		case "":
		case "missing":
			bad = append(bad, rep.Missing()...)
		case "regression":
			bad = append(bad, rep.Regressions()...)
		default:
			return usagef("--fail-on %q: want missing, regression", what)
		}
	}
	for _, b := range bad {
		fmt.Fprintln(e.stderr, "fail-on:", b)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d problems named by --fail-on %s", len(bad), failOn)
	}
	return nil
}

// sideAt loads the studies and results of a revision, read through git
// into a temporary folder (the work tree is not touched); rev "" is the
// work tree itself.
func sideAt(root, rev, studies, results string) (*diff.Side, error) {
	if rev == "" {
		return diff.Load(filepath.Join(root, studies), filepath.Join(root, results))
	}
	dir, err := os.MkdirTemp("", "servelab-diff-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for _, path := range []string{studies, results} {
		if err := extract(root, rev, path, dir); err != nil {
			return nil, err
		}
	}
	os.MkdirAll(filepath.Join(dir, studies), 0o755)
	return diff.Load(filepath.Join(dir, studies), filepath.Join(dir, results))
}

func extract(root, rev, path, dir string) error {
	if out, err := gitOut(root, "ls-tree", "--name-only", rev, "--", path); err != nil {
		return err
	} else if strings.TrimSpace(out) == "" {
		return nil // the folder does not exist at that revision
	}
	cmd := exec.Command("git", "-C", root, "archive", "--format=tar", rev, "--", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git archive %s %s: %v: %s", rev, path, err, strings.TrimSpace(stderr.String()))
	}
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

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
