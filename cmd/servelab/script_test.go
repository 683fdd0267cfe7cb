package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	cuecmd "cuelang.org/go/cmd/cue/cmd"
	"github.com/rogpeppe/go-internal/testscript"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/store"
)

// -update (or SERVELAB_UPDATE=1) rewrites the expected output inside the
// scripts; review every diff before committing it.
var update = flag.Bool("update", false, "rewrite golden output in testdata/script")

// simDir holds a servelab-sim built for the scripts (real processes).
var simDir string

func TestMain(m *testing.M) {
	if os.Getenv(faultMain) != "" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv("SERVELAB_SIM_DIR") == "" {
		dir, err := os.MkdirTemp("", "servelab-sim-")
		if err != nil {
			panic(err)
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "servelab-sim"), "servelab.dev/cmd/servelab-sim").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building servelab-sim: %v\n%s", err, out)
			os.Exit(1)
		}
		os.Setenv("SERVELAB_SIM_DIR", dir)
		defer os.RemoveAll(dir)
	}
	simDir = os.Getenv("SERVELAB_SIM_DIR")
	testscript.Main(m, map[string]func(){
		"servelab": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
		// hold-lock DIR DURATION WHO: holds a results folder's lock, as
		// a long import or run would, so scripts can race it for certain.
		"hold-lock": func() { os.Exit(holdLock(os.Args[1:])) },
		// Stock cue, built from the pinned module: the same code as `cue`.
		"cue": func() { os.Exit(cuecmd.Main()) },
	})
}

func TestScript(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update || os.Getenv("SERVELAB_UPDATE") != "",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"damage":      damage,
			"exists-glob": existsGlob,
			"grep-glob":   grepGlob,
			"snapshot":    snapshot,
			"edit-record": editRecord,
			"unrelated":   unrelated,
			"alive":       alive,
			"unchanged":   unchanged,
			"zgrep-glob":  zgrepGlob,
			"replace":     replace,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "echarts" {
				_, err := os.Stat(filepath.Join(repo, "site", "node_modules", "echarts"))
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			// HTML reports need the pinned ECharts wherever a script renders.
			env.Setenv("SERVELAB_ECHARTS", filepath.Join(repo, "site", "node_modules", "echarts"))
			env.Setenv("PATH", simDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("SERVELAB_SIM_DIR", simDir) // the script's commands re-enter TestMain
			env.Setenv("CUE_REGISTRY", "none")
			return nil
		},
	})
}

// damage flips one bit in the middle of the one file matching a glob.
func damage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: damage GLOB")
	}
	files, _ := filepath.Glob(ts.MkAbs(args[0]))
	if len(files) != 1 {
		ts.Fatalf("damage %s: %d files match, want 1", args[0], len(files))
	}
	b, err := os.ReadFile(files[0])
	ts.Check(err)
	b[len(b)/2] ^= 0x01
	ts.Check(os.WriteFile(files[0], b, 0o644))
}

// existsGlob succeeds when some file matches the glob.
func existsGlob(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: exists-glob GLOB")
	}
	files, _ := filepath.Glob(ts.MkAbs(args[0]))
	if (len(files) > 0) == neg {
		ts.Fatalf("exists-glob %s: %d files", args[0], len(files))
	}
}

// zgrepGlob is grepGlob for gzip-compressed files (the samples
// sidecars), matching line by line.
func zgrepGlob(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: zgrep-glob REGEXP GLOB")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	ts.Check(err)
	files, _ := filepath.Glob(ts.MkAbs(args[1]))
	found := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		ts.Check(err)
		zr, err := gzip.NewReader(bytes.NewReader(b))
		ts.Check(err)
		text, err := io.ReadAll(zr)
		ts.Check(err)
		if re.Match(text) {
			found = true
			break
		}
	}
	if found == neg {
		ts.Fatalf("zgrep-glob %s %s: match %v in %d files", args[0], args[1], found, len(files))
	}
}

// grepGlob succeeds when some file matching the glob has a line matching
// the regular expression (negated: no file has one).
func grepGlob(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: grep-glob REGEXP GLOB")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	files, _ := filepath.Glob(ts.MkAbs(args[1]))
	found := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		ts.Check(err)
		if re.Match(b) {
			found = true
			break
		}
	}
	if found == neg {
		ts.Fatalf("grep-glob %s %s: match %v in %d files", args[0], args[1], found, len(files))
	}
}

// snapshot NAME DIR... records the sha256 of every file under the
// folders, so that `unchanged NAME` can prove a failed command lost or
// changed nothing.
func snapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: snapshot NAME DIR...")
	}
	var b strings.Builder
	for _, dir := range args[1:] {
		root := ts.MkAbs(dir)
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				if e != nil && e.Name() == ".snapshots" {
					return filepath.SkipDir
				}
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%x %s\n", sha256.Sum256(data), p)
			return nil
		})
		ts.Check(err)
	}
	ts.Check(os.MkdirAll(ts.MkAbs(".snapshots"), 0o755))
	ts.Check(os.WriteFile(ts.MkAbs(".snapshots/"+args[0]), []byte(b.String()), 0o644))
}

// unchanged NAME [DIR] fails unless every file snapshot NAME saw is
// still there with the same bytes (new files are allowed); with DIR, a
// file may instead have moved anywhere under DIR, bytes unchanged.
func unchanged(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: unchanged NAME [DIR]")
	}
	list, err := os.ReadFile(ts.MkAbs(".snapshots/" + args[0]))
	ts.Check(err)
	moved := map[string]string{} // sha256 → path, under DIR
	if len(args) == 2 {
		filepath.WalkDir(ts.MkAbs(args[1]), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				if data, err := os.ReadFile(p); err == nil {
					moved[fmt.Sprintf("%x", sha256.Sum256(data))] = p
				}
			}
			return nil
		})
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		sum, path, _ := strings.Cut(line, " ")
		data, err := os.ReadFile(path)
		switch {
		case err == nil && fmt.Sprintf("%x", sha256.Sum256(data)) == sum:
		case moved[sum] != "":
			ts.Logf("%s moved to %s", path, moved[sum])
		case err != nil:
			ts.Fatalf("%s is gone: %v", path, err)
		default:
			ts.Fatalf("%s changed", path)
		}
		n++
	}
	ts.Logf("%d files unchanged", n)
}

// unrelated NAME starts a process servelab has nothing to do with (a
// sleep in its own process group), stopped when the script ends, and
// writes NAME.pid (its pid, as an old pid file had it) and NAME.forged
// (its identity with another start time, as after a pid was reused).
func unrelated(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unrelated NAME")
	}
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ts.Check(cmd.Start())
	ts.Defer(func() { cmd.Process.Kill(); cmd.Wait() })
	id, err := engine.Identify(cmd.Process.Pid)
	ts.Check(err)
	id.Start++
	ts.Check(os.WriteFile(ts.MkAbs(args[0]+".pid"), []byte(strconv.Itoa(id.Pid)+"\n"), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]+".forged"), id.Encode(), 0o644))
}

// alive NAME fails unless the process of NAME.pid is still running.
func alive(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: alive NAME")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0] + ".pid"))
	ts.Check(err)
	stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/stat")
	up := err == nil && !strings.Contains(string(stat), ") Z ")
	if up == neg {
		ts.Fatalf("process %s running: %v", strings.TrimSpace(string(b)), up)
	}
}

// edit-record GLOB OLD NEW [WITH] replaces OLD by NEW in the one record
// that matches GLOB (and holds WITH) and renames it after the hash of its
// new bytes, as a buggy tool that wrote impossible figures would have
// stored it.
func editRecord(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: edit-record GLOB OLD NEW [WITH]")
	}
	var files []string
	all, _ := filepath.Glob(ts.MkAbs(args[0]))
	for _, f := range all {
		if b, _ := os.ReadFile(f); len(args) < 4 || strings.Contains(string(b), args[3]) {
			files = append(files, f)
		}
	}
	if len(files) != 1 {
		ts.Fatalf("edit-record %s: %d files match, want 1", args[0], len(files))
	}
	b, err := os.ReadFile(files[0])
	ts.Check(err)
	if !strings.Contains(string(b), args[1]) {
		ts.Fatalf("%s holds no %q", files[0], args[1])
	}
	b = []byte(strings.Replace(string(b), args[1], args[2], 1))
	ts.Check(os.Remove(files[0]))
	ts.Check(os.WriteFile(filepath.Join(filepath.Dir(files[0]), store.RunName(b)), b, 0o644))
}

// replace writes FILE with every OLD replaced by NEW, and fails when
// there is none.
func replace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace OLD NEW FILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[2]))
	ts.Check(err)
	if !strings.Contains(string(b), args[0]) {
		ts.Fatalf("replace: no %q in %s", args[0], args[2])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(strings.ReplaceAll(string(b), args[0], args[1])), 0o644))
}

func holdLock(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hold-lock DIR DURATION WHO")
		return 2
	}
	d, err := time.ParseDuration(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	unlock, err := store.Open(args[0]).Lock(0, args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("holding")
	time.Sleep(d)
	unlock()
	return 0
}
