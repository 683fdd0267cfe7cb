package dataset

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/host/timingcheck"
	"servelab.dev/execute/load"
	"servelab.dev/execute/sim"
)

func TestMain(m *testing.M) {
	timingcheck.Main()
	os.Exit(m.Run())
}

// simTarget starts the simulator in-process, on the bubble's virtual
// clock, and returns the target that reaches it.
func simTarget(t *testing.T) load.Target {
	in, err := sim.Launcher{Clock: sim.Timer, Timing: "step=1ms,per-seq=0s,prefill=0s"}.Launch(context.Background(),
		engine.Spec{Argv: []string{"vllm", "serve", "m/m"}}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Stop)
	return load.Target{URL: in.Endpoint(), Model: "m/m", API: "chat", Dial: in.(engine.Dialer).DialContext}
}

// `--random 256,32` with the chat API: every request reaches the
// simulator with a non-empty message that its tokenizer counts as 256
// tokens ± 2 %, and the server's usage agrees with what the client
// claimed.
func TestRandomChatPromptsReachSim(t *testing.T) { synctest.Test(t, testRandomChatPromptsReachSim) }

func testRandomChatPromptsReachSim(t *testing.T) {
	tg := simTarget(t)
	prompts, err := RandomFor(tg, 256, 32, 0, 0, 20, 7)
	if err != nil {
		t.Fatal(err)
	}
	s, err := load.RunPrompts(context.Background(), tg,
		load.Load{Kind: "concurrency", Concurrency: 4, Requests: 20, IgnoreEOS: true}, prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range s {
		if x.Error != "" {
			t.Fatalf("request %d: %s", i, x.Error)
		}
		// The sim's usage is its own tokenizer's count of the message it got.
		if math.Abs(float64(x.InputTokens-256)) > 0.02*256 || x.OutputTokens != 32 {
			t.Errorf("request %d: the sim counted %d input tokens (want 256 ± 2 %%), %d output", i, x.InputTokens, x.OutputTokens)
		}
		if x.Claimed != x.InputTokens {
			t.Errorf("request %d: claimed %d, the sim counted %d", i, x.Claimed, x.InputTokens)
		}
	}
	if m := load.Summarize(s); m.InputMismatch != 0 {
		t.Errorf("%d mismatches", m.InputMismatch)
	}
}

// Without a tokenizer endpoint the chat combination is refused with the
// way out; the completions API still gets token ids.
func TestRandomChatRefusedWithoutTokenizer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := RandomFor(load.Target{URL: srv.URL, Model: "m", API: "chat"}, 256, 32, 0, 0, 4, 1)
	if err == nil || !strings.Contains(err.Error(), "use the completions API") {
		t.Errorf("error %v", err)
	}
	ids, err := RandomFor(load.Target{URL: srv.URL, Model: "m", API: "completions"}, 256, 32, 0, 0, 4, 1)
	if err != nil || ids.Len() != 4 || len(ids.At(0).TokenIDs) != 256 {
		t.Errorf("completions: %v, %+v", err, ids)
	}
}

// Text prompts follow vLLM's random lengths, share their prefix, fit
// the tokenizer's count, and repeat exactly with the seed.
func TestRandomTextLengths(t *testing.T) {
	calls := 0
	tok := func(s string) (int, error) { calls++; return len(strings.Fields(s)), nil }
	a, err := RandomText(100, 20, 0.5, 16, 50, 3, tok)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RandomText(100, 20, 0.5, 16, 50, 3, tok)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different prompts")
	}
	prefix := strings.Join(strings.Fields(a.Prompts[0].Text)[:16], " ")
	for i, p := range a.Prompts {
		n, _ := tok(p.Text)
		if n != p.InputTokens || n < 16+50 || n > 16+150 || p.MaxTokens < 10 || p.MaxTokens > 30 {
			t.Errorf("prompt %d: %d tokens (claims %d), budget %d", i, n, p.InputTokens, p.MaxTokens)
		}
		if !strings.HasPrefix(p.Text, prefix+" ") {
			t.Errorf("prompt %d does not start with the shared prefix", i)
		}
	}
	if calls > 2*(1+1+50*3) {
		t.Errorf("%d tokenizer calls for two sets of 50 prompts", calls)
	}
}
