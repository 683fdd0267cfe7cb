package decide

import (
	"os/exec"
	"strings"
	"testing"
)

// The data flows one way: nothing under execute/ or schema/ may import
// render/ or site/, and the decision package itself does no I/O.
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
