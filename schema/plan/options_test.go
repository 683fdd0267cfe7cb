package plan

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestOptionsFileDeterministic(t *testing.T) {
	a := map[string]any{"kv_cache_config.dtype": "fp8", "kv_cache_config.enable_block_reuse": false, "cuda_graph_config.max_batch_size": 8}
	b := map[string]any{"cuda_graph_config.max_batch_size": 8, "kv_cache_config.enable_block_reuse": false, "kv_cache_config.dtype": "fp8"}
	n1, b1 := optionsFile(a)
	n2, b2 := optionsFile(b)
	if n1 != n2 || b1 != b2 {
		t.Fatalf("same options, different files: %s %q / %s %q", n1, b1, n2, b2)
	}
	want := "cuda_graph_config:\n  max_batch_size: 8\nkv_cache_config:\n  dtype: \"fp8\"\n  enable_block_reuse: false\n"
	if b1 != want {
		t.Errorf("body %q, want %q", b1, want)
	}
	a["kv_cache_config.dtype"] = "auto"
	if n3, _ := optionsFile(a); n3 == n1 {
		t.Error("other content, same file name: the key would not see the change")
	}
}

// bash runs the printed launch line: it writes the options file with
// exactly the planned content before the command.
func TestShellLaunchWritesFiles(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	name, body := optionsFile(map[string]any{"kv_cache_config.dtype": "it's \"fp8\"\n$HOME", "a.b.c": 1.5})
	l := Launch{Argv: []string{"true", "--extra_llm_api_options", name}, Env: map[string]string{"A": "1"}, Files: map[string]string{name: body}}
	line, err := ShellLaunch(l)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", line)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash %s: %v\n%s", line, err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != body {
		t.Errorf("bash wrote %q, want %q", got, body)
	}
	if !strings.HasSuffix(line, "A=1 true --extra_llm_api_options "+name) {
		t.Errorf("line %q does not end in the command", line)
	}
}
