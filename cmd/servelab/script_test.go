package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	cuecmd "cuelang.org/go/cmd/cue/cmd"
	"github.com/rogpeppe/go-internal/testscript"
)

// -update (or SERVELAB_UPDATE=1) rewrites the expected output inside the
// scripts; review every diff before committing it.
var update = flag.Bool("update", false, "rewrite golden output in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"servelab": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
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
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("CUE_REGISTRY", "none")
			return nil
		},
	})
}
