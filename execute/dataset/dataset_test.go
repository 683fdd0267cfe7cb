package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"reflect"
	"strings"
	"testing"
)

const sample = "testdata/sharegpt-sample.json"

func words(s string) (int, error) { return len(strings.Fields(s)), nil }

func TestShareGPTFilters(t *testing.T) {
	set, err := ShareGPT(sample, "", 100, 1, words)
	if err != nil {
		t.Fatal(err)
	}
	if set.Estimated || len(set.Prompts) != 100 {
		t.Fatalf("estimated %v, %d prompts", set.Estimated, len(set.Prompts))
	}
	distinct := map[string]bool{}
	for _, p := range set.Prompts {
		n, _ := words(p.Text)
		if n < 4 || p.MaxTokens < 4 || n+p.MaxTokens > 2048 || p.InputTokens != n {
			t.Errorf("invalid prompt kept: %d prompt, %d output tokens", n, p.MaxTokens)
		}
		if p.Text == "Hi." {
			t.Error("a too-short prompt was kept")
		}
		distinct[p.Text] = true
	}
	// 48 entries, 7 with one turn, 5 too short (one of them also one turn)
	if len(distinct) > 48-7-4 {
		t.Errorf("%d distinct prompts kept, more than the valid entries", len(distinct))
	}
}

func TestShareGPTSeed(t *testing.T) {
	a, _ := ShareGPT(sample, "", 10, 1, words)
	b, _ := ShareGPT(sample, "", 10, 1, words)
	c, _ := ShareGPT(sample, "", 10, 2, words)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different order")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds, same order")
	}
}

func TestShareGPTChecksAndEstimates(t *testing.T) {
	data, _ := os.ReadFile(sample)
	sum := sha256.Sum256(data)
	if _, err := ShareGPT(sample, hex.EncodeToString(sum[:]), 5, 0, words); err != nil {
		t.Error(err)
	}
	if _, err := ShareGPT(sample, strings.Repeat("0", 64), 5, 0, words); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("wrong hash: %v", err)
	}
	set, err := ShareGPT(sample, "", 5, 0, nil)
	if err != nil || !set.Estimated {
		t.Errorf("without a tokenizer the lengths must be marked estimated: %v %v", set.Estimated, err)
	}
}

func TestRandom(t *testing.T) {
	set := Random(100, 20, 0.5, 10, 50, 3)
	for _, p := range set.Prompts {
		in := len(p.TokenIDs) - 10
		if in < 50 || in > 150 || p.MaxTokens < 10 || p.MaxTokens > 30 {
			t.Errorf("lengths %d / %d outside the range", in, p.MaxTokens)
		}
		if !reflect.DeepEqual(p.TokenIDs[:10], set.Prompts[0].TokenIDs[:10]) {
			t.Error("the prefix is not shared")
		}
	}
	if !reflect.DeepEqual(Random(8, 8, 0, 0, 3, 9), Random(8, 8, 0, 0, 3, 9)) {
		t.Error("not deterministic")
	}
}

// The lazy source makes the same prompts as the list, whatever order
// they are asked in, and holds none: a billion-request source costs
// nothing until its prompts are sent.
func TestRandomSourceIsLazy(t *testing.T) {
	list := Random(64, 8, 0.3, 4, 20, 7).Prompts
	src := RandomSource(64, 8, 0.3, 4, 20, 7)
	for i := len(list) - 1; i >= 0; i-- {
		if !reflect.DeepEqual(src.At(i), list[i]) {
			t.Fatalf("prompt %d differs", i)
		}
	}
	if reflect.DeepEqual(list[0].TokenIDs, list[1].TokenIDs) {
		t.Error("two prompts are the same")
	}
	huge := RandomSource(1024, 128, 0, 0, 1_000_000_000, 1)
	allocs := testing.AllocsPerRun(3, func() { huge.At(999_999_999) })
	if huge.Len() != 1_000_000_000 || allocs > 4 {
		t.Errorf("len %d, %v allocations a prompt", huge.Len(), allocs)
	}
}
