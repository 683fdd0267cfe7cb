// Command gen writes schema/flags/llamacpp.json from an extracted
// llama.cpp source tree: go run ./execute/engine/llamacpp/gen SRC OUT.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"servelab.dev/execute/engine/llamacpp"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen LLAMA_CPP_SOURCE OUT.json")
		os.Exit(2)
	}
	src, out := os.Args[1], os.Args[2]
	if err := run(src, out); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	arg, err := os.ReadFile(filepath.Join(src, "common", "arg.cpp"))
	if err != nil {
		return err
	}
	opts, err := llamacpp.ServerOptions(arg)
	if err != nil {
		return err
	}
	commit, err := sourceCommit(src)
	if err != nil {
		return err
	}
	cm, err := os.ReadFile(filepath.Join(src, "CMakeLists.txt"))
	if err != nil {
		return err
	}
	table, err := llamacpp.Table(opts, commit, cmakeVersion(cm))
	if err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, table, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// sourceCommit is the commit recorded when the source was extracted
// (.servelab-commit, kept in the trimmed tarball too), else git's HEAD.
func sourceCommit(src string) (string, error) {
	if b, err := os.ReadFile(filepath.Join(src, ".servelab-commit")); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	b, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("%s: no .servelab-commit and not a git tree: %w", src, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func cmakeVersion(cm []byte) string {
	v := func(part string) string {
		m := regexp.MustCompile(`set\(LLAMA_VERSION_` + part + `\s+(\d+)\)`).FindSubmatch(cm)
		if m == nil {
			return "?"
		}
		return string(m[1])
	}
	return v("MAJOR") + "." + v("MINOR") + "." + v("PATCH")
}
