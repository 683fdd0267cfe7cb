package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// thin lists every function and method cmd/servelab may hold, with why
// it belongs in a command rather than in the library package that owns
// its stage (docs/architecture.md): a command's entry point, flag
// parsing and checking, printing, or glue between the process and the
// libraries (finding binaries, the test hook). Anything that computes
// figures, builds records or documents, or drives engines belongs to a
// library, where Go callers and unit tests reach it.
var thin = map[string]string{
	"main": "entry", "Main": "entry", "usage": "print", "runVersion": "print",
	"usageError.Error": "flags", "usageError.Unwrap": "flags", "usagef": "flags", "newFlags": "flags", "parse": "flags",

	"runAnalyze": "command", "runBench": "command", "runCalibrate": "command", "runDiff": "command",
	"runExport": "command", "runImport": "command", "runPlan": "command", "runRender": "command",
	"runRun": "command", "runSchema": "command", "runSite": "command", "runVet": "command",

	// bench
	"parseBench": "flags", "benchFlags.options": "flags",
	"parseRandom": "flags", "benchWith": "command: calls execute/bench, prints",
	// diff, plan, render, site
	"failures": "flags: --fail-on, printed", "checkPlan": "print: plan.Unrecorded",
	"loopback": "flags",
	// every command that reads studies and records
	"loadStudy": "glue", "loadRecords": "glue: names invalid records", "env.skipInvalid": "print", "printJSON": "print",
	// run (the bar and the log are execute/event's views of the runner's events)
	"parseRun": "flags", "clusterOptions": "flags",
	"source":     "flags",
	"isTerminal": "print", "progress": "print: picks the terminal bar or the plain log",
}

// cmd/servelab holds flag parsing, one library call per command and
// printing: a function not in thin fails here until it moves to its
// library package or is listed with why it is a command's.
func TestCommandsStayThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := funcName(fd)
			found = append(found, name)
			if _, ok := thin[name]; !ok {
				t.Errorf("%s: %s is not a command's: move it to the library package of its stage (docs/architecture.md) and test it there; if it only parses flags or prints, list it in thin with why", f, name)
			}
		}
	}
	if len(found) < 20 {
		t.Errorf("only %d functions found: is the parse still right?", len(found))
	}
	for name := range thin {
		if !slices.Contains(found, name) {
			t.Logf("%s is listed in thin but gone: drop it from the list", name)
		}
	}
}

// funcName is a function's name, or Type.Method for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
