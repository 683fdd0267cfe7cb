package decide

import (
	"os/exec"
	"strings"
	"testing"
)

// The data flows one way (docs/architecture.md): nothing under execute/
// or schema/ may import render/ or site/; schema/ imports nothing of
// execute/; render/ and site/ read execute's data packages (records,
// the store, decisions, start-up logs), never the runner, engines or
// client; and the decision package itself does no I/O.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "servelab.dev/execute/...", "servelab.dev/schema/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "servelab.dev/render") || strings.HasPrefix(p, "servelab.dev/site") {
			t.Errorf("execute/ or schema/ depends on %s", p)
		}
	}
	out, err = exec.Command("go", "list", "-deps", "servelab.dev/schema/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "servelab.dev/execute") {
			t.Errorf("schema/ depends on %s", p)
		}
	}
	out, err = exec.Command("go", "list", "-deps", "servelab.dev/render/...", "servelab.dev/site/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]bool{"servelab.dev/execute/record": true, "servelab.dev/execute/store": true, "servelab.dev/execute/decide": true,
		"servelab.dev/execute/startup": true}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "servelab.dev/execute/") && !data[p] {
			t.Errorf("render/ or site/ depends on %s: they read records, the store, decisions and start-up logs only", p)
		}
	}
	// The start-up log parser is data: it imports nothing of servelab.
	out, err = exec.Command("go", "list", "-deps", "servelab.dev/execute/startup").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "servelab.dev/") && p != "servelab.dev/execute/startup" {
			t.Errorf("execute/startup depends on %s", p)
		}
	}
	// The packages for tests import testing; a command built on one
	// would gain the test flags.
	mains, err := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "servelab.dev/cmd/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command("go", append([]string{"list", "-deps"}, strings.Fields(string(mains))...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "servelab.dev/execute/host/timingcheck" || p == "servelab.dev/cmd/servelab-sim/simtest" {
			t.Errorf("a command depends on %s, which is for tests", p)
		}
	}
	direct, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "servelab.dev/execute/decide").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(direct)) {
		switch p {
		case "os", "os/exec", "io/fs", "io/ioutil", "net", "net/http", "path/filepath", "servelab.dev/execute/store":
			t.Errorf("execute/decide imports %s: the decision package does no I/O", p)
		}
	}
}
