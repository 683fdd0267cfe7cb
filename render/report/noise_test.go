package report

import (
	"strings"
	"testing"
)

// A comparison of single runs is read against the runs of a compared
// configuration where one has two, else against the study's
// near-repeat steps (the recommendation's gain too): 9B's MTP gain is 5.9 times the 1.5% its cap steps
// differ by (named once), its 0.4% performance mode within it; 8B's torch.compile
// step is read against EAGLE3 4/4/16's own two runs, and its engine
// step between the 0.2% of the near-repeat and those runs' 6.6%. Without the
// nearRepeat marks the page falls back to saying nothing of the kind.
func TestNoiseYardstick(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	a.Runs = runs
	md := plainEN(t, s, a)
	wantAll(t, "9B", md,
		"MTP with 1 speculative token (8.8% faster, beyond the study's run-to-run variation)",
		"No interval (each side is a single run): the near-repeat runs (“Max Batch Token” and “Max Num Seqs”) differ by up to 1.5%; this gain of 11.5% is 7.7 times that",
		"the near-repeat runs differ by up to 1.5%; this difference of 8.8% is 5.9 times that",
		"differ by up to 1.5%, as much as this difference of 0.4%, so it may be run-to-run variation. Adopted without an interval, by the rule alone",
		"so its runs are in effect repeats of the current configuration: this difference of 0.8% measures run-to-run variation",
	)
	for i := range s.Steps {
		s.Steps[i].NearRepeat = false
	}
	if md := markdownOf(t, s, a, nil, "en"); strings.Contains(md, "the near-repeat runs (") || !strings.Contains(md, "so this difference may be run-to-run variation") {
		t.Error("9B without nearRepeat steps still reads its comparisons against them")
	}
	s8, a8, runs8 := seed(t, "qwen3-8b-h100-latency")
	a8.Runs = runs8
	md8 := plainEN(t, s8, a8)
	wantAll(t, "8B", md8,
		"the runs of one configuration (2 runs of EAGLE3 4/4/16) differ by up to 6.6%, as much as this difference of 5.9%",
		"No interval (the baseline has a single run): this gain of 103.8% is more than both the 0.2% by which the near-repeat runs (“CUDA Graph Max Batch Size in SGLang”) differ and the 6.6%",
		"this difference of 5.8% is more than the 0.2% by which the near-repeat runs differ, but less than the 6.6% by which the runs of one configuration (2 runs of EAGLE3 4/4/16) differ, so it is not settled",
	)
}

// The serving command leaves out the settings adopted by the rule alone
// (the 9B performance mode and language-model-only flags), as the
// Speculative Decoding step measured it; a note beside it says what that
// run measured and prints the final command, which every figure below
// measured.
func TestCommandWithoutNoiseAdoptions(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	a.Runs = runs
	md := plainEN(t, s, a)
	_, after, ok := strings.Cut(md, "### Serving command")
	if !ok {
		t.Fatal("the 9B page has no serving command")
	}
	cmd, rest, _ := strings.Cut(strings.SplitN(after, "```bash\n", 2)[1], "```")
	if strings.Contains(cmd, "--performance-mode") || strings.Contains(cmd, "--language-model-only") || !strings.Contains(cmd, "mtp") {
		t.Errorf("the serving command is not MTP alone:\n%s", cmd)
	}
	note, final, _ := strings.Cut(rest, "```bash\n")
	wantAll(t, "9B", note,
		"This is the command the Speculative Decoding step measured, at ShareGPT 8RPS only: mean latency 2.39 s against 2.62 s for the baseline",
		"`--performance-mode=interactivity` (0.4%) and `--language-model-only` (2.5%): the study's rule (minimum gain 0%) also adopted these",
	)
	if final, _, _ = strings.Cut(final, "```"); !strings.Contains(final, "--performance-mode=interactivity") || !strings.Contains(final, "--language-model-only") {
		t.Errorf("the note does not print the final command:\n%s", final)
	}
}
