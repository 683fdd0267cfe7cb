package diff

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A revision's studies are read through git, the work tree's as they
// are: a study committed and then replaced in the work tree is in
// HEAD's side only.
func TestAt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	src, err := os.ReadFile("../../studies/qwen3-8b-h100-latency.cue")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid", "HOME="+root)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	os.MkdirAll(filepath.Join(root, "studies"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "studies", "s.cue"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "a study")
	other, err := os.ReadFile("../../studies/qwen3.5-9b-h100-latency.cue")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "studies", "s.cue"), other, 0o644)

	head, err := At(root, "HEAD", "studies", "results")
	if err != nil {
		t.Fatal(err)
	}
	a := head.Analyses["qwen3-8b-h100-latency"]
	if a == nil || len(a.Missing) == 0 || len(head.Runs) != 0 {
		t.Fatalf("HEAD: want the study, undecided for want of records; got %+v", head)
	}
	work, err := At(root, "", "studies", "results")
	if err != nil {
		t.Fatal(err)
	}
	if len(work.Studies) != 1 || work.Studies["qwen3.5-9b-h100-latency"] == nil {
		t.Errorf("the work tree holds the other study, yet %v", work.Studies)
	}
	if _, err := At(root, "no-such-rev", "studies", "results"); err == nil {
		t.Error("an unknown revision was read")
	}
}
