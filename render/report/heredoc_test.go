package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// bash runs the serving block's here-documents and writes each file with
// exactly its content, nothing in it expanded.
func TestHeredocsWriteFiles(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	files := map[string]string{
		"extra-llm-api-options-0123456789abcdef.yaml": "kv_cache_config:\n  dtype: \"fp8\"\n  note: \"$HOME `id` \\\\n\"\n",
		"b.yaml": "a: 1\n",
	}
	dir := t.TempDir()
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", heredocs(files)+"true")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
