package sim

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

type keep struct{}

func (keep) Decide(st schema.Step, _ plan.Candidate, _ []plan.Candidate) plan.Decision {
	// Adopt the first variant: every later step sees one more flag.
	return plan.Decision{Winner: 0, State: plan.StepDecided}
}

// The simulator takes the command line of every trial of the seed
// studies, with the port servelab appends.
func TestAcceptsSeedCommands(t *testing.T) {
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"../../studies/qwen3.5-9b-h100-latency.cue", "../../studies/qwen3-8b-h100-latency.cue"} {
		s, err := l.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.New(s, plan.Options{Decider: keep{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range p.Trials {
			if tr.Argv == nil {
				continue
			}
			c, err := Parse(append(tr.Argv, "--port", "8123"), "", "")
			if err != nil {
				t.Errorf("%s/%s: %v", tr.Step, tr.Variant, err)
				continue
			}
			if c.Port != 8123 || c.Model == "" || c.Kind != tr.Kind {
				t.Errorf("%s/%s: port %d model %q kind %s", tr.Step, tr.Variant, c.Port, c.Model, c.Kind)
			}
		}
	}
}

func TestFlagEffectsParsed(t *testing.T) {
	c, err := Parse([]string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B-FP8",
		"--speculative-algorithm", "EAGLE3", "--speculative-num-draft-tokens", "16", "--max-running-requests", "8", "--disable-radix-cache"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !c.FP8 || c.SpecTokens != 16 || c.Slots != 8 || c.PrefixCache {
		t.Errorf("%+v", c)
	}
	c, _ = Parse([]string{"vllm", "serve", "m", `--speculative-config={"method":"mtp","num_speculative_tokens":1}`, "--no-enable-prefix-caching"}, "", "")
	if c.SpecTokens != 1 || c.PrefixCache {
		t.Errorf("%+v", c)
	}
	if _, err := Parse([]string{"vllm", "serve", "m", "--max-num-seqs", "x"}, "", ""); err == nil {
		t.Error("bad --max-num-seqs accepted")
	}
	if _, err := Parse([]string{"vllm", "serve", "m"}, "", "explode"); err == nil {
		t.Error("unknown fault accepted")
	}
}

// Prefix caching skips the prompt blocks prefilled before, and says
// how many tokens it skipped.
func TestPrefixCache(t *testing.T) {
	words := make([]string, 40)
	for i := range words {
		words[i] = "w"
	}
	req := func(e *engine) (int, int) {
		s := &seq{prompt: words}
		return e.uncached(s), s.cached
	}
	on := newEngine(&Config{PrefixCache: true, CacheBlocks: 100})
	a, _ := req(on)
	b, cached := req(on)
	if a != 40 || b != 8 || cached != 32 {
		t.Errorf("with cache: %d then %d (%d cached), want 40 then 8 (two 16-token blocks cached)", a, b, cached)
	}
	on.resetCache()
	if a, _ := req(on); a != 40 {
		t.Errorf("after a reset: %d uncached, want 40", a)
	}
	off := newEngine(&Config{})
	a, _ = req(off)
	b, _ = req(off)
	if a != 40 || b != 40 {
		t.Errorf("without cache: %d then %d", a, b)
	}
}

// The cache holds at most its limit of blocks and evicts the least
// recently used; a prompt of whole blocks recomputes its last block.
func TestPrefixCacheLRU(t *testing.T) {
	prompt := func(tag string, n int) []string {
		w := make([]string, n)
		for i := range w {
			w[i] = tag + strconv.Itoa(i)
		}
		return w
	}
	c := newPrefixCache(4)
	a, b, x := prompt("a", 32), prompt("b", 32), prompt("x", 32)
	c.admit(a) // a's 2 blocks
	c.admit(b) // b's 2 blocks: full
	if got := c.admit(a); got != 16 {
		t.Errorf("a again: %d cached, want 16 (a whole-block prompt recomputes its last block)", got)
	}
	c.admit(x) // evicts b, the least recently used
	if got := c.admit(append(b, "tail")); got != 0 {
		t.Errorf("b after eviction: %d cached, want 0", got)
	}
	if c.lru.Len() > 4 || len(c.blocks) != c.lru.Len() {
		t.Errorf("cache holds %d blocks (%d keys), limit 4", c.lru.Len(), len(c.blocks))
	}
}

// The cache's size follows the flags that size an engine's KV cache.
func TestCacheSize(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"vllm", "serve", "m"}, defaultCacheTokens / 16},
		{[]string{"vllm", "serve", "m", "--gpu-memory-utilization", "0.45"}, defaultCacheTokens / 32},
		{[]string{"vllm", "serve", "m", "--kv-cache-dtype", "fp8"}, defaultCacheTokens / 8},
		{[]string{"vllm", "serve", "m", "--num-gpu-blocks-override", "100"}, 100},
		{[]string{"python3", "-m", "sglang.launch_server", "--model-path", "m", "--max-total-tokens", "1600"}, 100},
	} {
		c, err := Parse(tc.args, "", "")
		if err != nil || c.CacheBlocks != tc.want {
			t.Errorf("%q: %d blocks (%v), want %d", tc.args, c.CacheBlocks, err, tc.want)
		}
	}
}

// FuzzParseArgs: no command line, timing or faults make the simulator's
// parser panic, and what it accepts is within its model's bounds.
func FuzzParseArgs(f *testing.F) {
	f.Add("vllm\x00serve\x00m/m\x00--port=8000\x00--max-num-seqs=16", "step=6ms", "http500=0.1")
	f.Add("python3\x00-m\x00sglang.launch_server\x00--model-path\x00m\x00--speculative-algorithm\x00EAGLE", "", "cut=NaN")
	f.Add("trtllm-serve\x00m\x00--max_batch_size\x000", "per-seq=-1s", "exit-after=-1")
	f.Add("vllm\x00serve\x00m\x00--speculative-config\x00{\"num_speculative_tokens\":99999}\x00--port=70000", "", "")
	f.Fuzz(func(t *testing.T, line, timing, faults string) {
		c, err := Parse(strings.Split(line, "\x00"), timing, faults)
		if err != nil {
			return
		}
		if c.Model == "" || c.Port < 1 || c.Port > 65535 || c.Slots < 1 || c.Step < 0 || c.SpecTokens > 64 ||
			!(c.Faults.HTTP500 >= 0 && c.Faults.HTTP500 <= 1) || c.Faults.ExitAfter < 0 {
			t.Fatalf("accepted %+v", c)
		}
	})
}

// Lower precision changes the greedy answer to a fixed share of prompts:
// about a quarter under FP8 weights, an eighth under an FP8 KV cache,
// always the same ones, and none at full precision.
func TestWordUnderQuantisation(t *testing.T) {
	full, w8, kv8 := &Config{}, &Config{FP8: true}, &Config{KVFP8: true}
	changed := map[*Config]int{}
	for i := range 800 {
		p := strings.Fields(fmt.Sprintf("prompt %d of the guard", i))
		for _, c := range []*Config{full, w8, kv8} {
			if c.word(p) != full.word(p) || c.word(p) != c.word(p) {
				changed[c]++
			}
		}
		if full.word(p) != "tok " {
			t.Fatalf("full precision changed prompt %d", i)
		}
	}
	if n := changed[w8]; n < 150 || n > 250 {
		t.Errorf("FP8 weights changed %d of 800 answers, want about 200", n)
	}
	if n := changed[kv8]; n < 60 || n > 140 {
		t.Errorf("FP8 KV cache changed %d of 800 answers, want about 100", n)
	}
}
