// Package dataset turns prompt sources into benchmark requests: the
// ShareGPT file layout (as `vllm bench serve` reads it) and vLLM's
// "random" token-id prompts, which need no tokenizer and no file (GPU
// hosts without internet have no ShareGPT copy).
package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"

	"servelab.dev/execute/load"
)

// Tokenizer counts a text's tokens.
type Tokenizer func(text string) (int, error)

// Set is a list of prompts and how their lengths were known.
type Set struct {
	Prompts []load.Prompt
	// Estimated is true when lengths come from a character count because
	// no tokenizer answered: the record says so.
	Estimated bool
}

// ShareGPT reads the ShareGPT_V3 layout: entries with at least two turns,
// shuffled with seed, the first turn as the prompt and the second turn's
// length as the output budget, keeping vLLM's validity filters (prompt
// and output of 4 tokens or more, prompt at most 1024, both at most
// 2048). With fewer valid entries than n, entries are reused in order.
func ShareGPT(path, sha string, n int, seed uint64, tok Tokenizer) (Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Set{}, err
	}
	if sha != "" {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != sha {
			return Set{}, fmt.Errorf("%s: sha256 %s, the study expects %s", path, got, sha)
		}
	}
	var entries []struct {
		Conversations []struct {
			Value string `json:"value"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		return Set{}, fmt.Errorf("%s: not a ShareGPT file: %w", path, err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5ea6e1ab))
	rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	set := Set{}
	if tok == nil {
		tok, set.Estimated = estimate, true
	}
	for _, e := range entries {
		if len(set.Prompts) == n {
			break
		}
		if len(e.Conversations) < 2 {
			continue
		}
		p, o := e.Conversations[0].Value, e.Conversations[1].Value
		pl, err := tok(p)
		if err != nil {
			return Set{}, err
		}
		ol, err := tok(o)
		if err != nil {
			return Set{}, err
		}
		if pl < 4 || ol < 4 || pl > 1024 || pl+ol > 2048 {
			continue
		}
		set.Prompts = append(set.Prompts, load.Prompt{Text: p, MaxTokens: ol, InputTokens: pl})
	}
	if len(set.Prompts) == 0 {
		return Set{}, fmt.Errorf("%s: no valid conversation (two turns, 4..1024 prompt tokens)", path)
	}
	for i := 0; len(set.Prompts) < n; i++ {
		set.Prompts = append(set.Prompts, set.Prompts[i]) // copies of the header: the texts are shared
	}
	return set, nil
}

// estimate counts about four characters a token; only used, and marked,
// when the engine cannot count.
func estimate(text string) (int, error) { return max(1, (len(text)+3)/4), nil }

// Random makes n prompts of token ids, as vLLM's random dataset: lengths
// uniform in [L(1−r), L(1+r)], a shared prefix of prefix tokens, ids
// from a seeded generator. Sent to /v1/completions with ignore_eos, they
// need no tokenizer and produce exactly their output budget.
func Random(in, out int, r float64, prefix, n int, seed uint64) Set {
	src := RandomSource(in, out, r, prefix, n, seed)
	set := Set{Prompts: make([]load.Prompt, n)}
	for i := range set.Prompts {
		set.Prompts[i] = src.At(i)
	}
	return set
}

// RandomSource is Random made lazily: prompt i is drawn from its own
// seeded generator when it is sent, so a run of any length holds only
// the prompts in flight.
func RandomSource(in, out int, r float64, prefix, n int, seed uint64) load.Prompts {
	rng := rand.New(rand.NewPCG(seed, 0x7a2d0f11))
	shared := make([]int, prefix)
	for i := range shared {
		shared[i] = 100 + rng.IntN(20000)
	}
	return &randomSource{in: in, out: out, r: r, shared: shared, n: n, seed: seed}
}

type randomSource struct {
	in, out int
	r       float64
	shared  []int
	n       int
	seed    uint64
}

func (s *randomSource) Len() int { return s.n }

func (s *randomSource) At(i int) load.Prompt {
	rng := rand.New(rand.NewPCG(s.seed, 0x7a2d0f11^(uint64(i+1)*0x9e3779b97f4a7c15)))
	span := func(l int) int {
		lo, hi := int(math.Floor(float64(l)*(1-s.r))), int(math.Ceil(float64(l)*(1+s.r)))
		return max(1, lo+rng.IntN(hi-lo+1))
	}
	ids := append(make([]int, 0, len(s.shared)+s.in), s.shared...)
	for k := span(s.in); k > 0; k-- {
		ids = append(ids, 100+rng.IntN(20000))
	}
	return load.Prompt{TokenIDs: ids, MaxTokens: span(s.out), InputTokens: len(ids)}
}

// RandomFor makes random prompts for api: token ids for the completions
// API (drawn lazily, as RandomSource), text checked against the engine's
// tokenizer for the chat API (refused when the engine has none;
// made before the run, since each prompt costs tokenizer calls that have
// no place between sends).
func RandomFor(t load.Target, in, out int, r float64, prefix, n int, seed uint64) (load.Prompts, error) {
	if t.API == "completions" {
		return RandomSource(in, out, r, prefix, n, seed), nil
	}
	set, err := RandomText(in, out, r, prefix, n, seed, EngineTokenizer(t))
	if err != nil {
		return nil, err
	}
	return load.List(set.Prompts), nil
}

// EngineTokenizer counts tokens with the engine's /tokenize endpoint:
// vLLM and SGLang read "prompt" and answer a count, llama.cpp reads
// "content" and answers the tokens; both fields are sent. Special tokens
// are left out: the server's usage counts its template apart, which the
// client measures once per run. It returns nil when the endpoint is
// absent, so callers fall back to a marked estimate or refuse.
func EngineTokenizer(t load.Target) Tokenizer {
	c := t.Client(30 * time.Second)
	url := strings.TrimRight(t.URL, "/") + "/tokenize"
	count := func(text string) (int, error) {
		body, _ := json.Marshal(map[string]any{"model": t.Model, "prompt": text, "content": text, "add_special_tokens": false})
		resp, err := c.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var r struct {
			Count  *int              `json:"count"`
			Tokens []json.RawMessage `json:"tokens"`
		}
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return 0, fmt.Errorf("%s: %w", url, err)
		}
		switch {
		case r.Count != nil:
			return *r.Count, nil
		case r.Tokens != nil:
			return len(r.Tokens), nil
		}
		return 0, fmt.Errorf("%s: neither a count nor tokens in the answer", url)
	}
	if _, err := count("probe"); err != nil {
		return nil
	}
	return count
}

// ReadFile reads a dataset file and checks it against sha (when not
// ""), with errors that name the file and the fix.
func ReadFile(path, sha string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w: fetch the file (the README lists where) or fix the dataset's path, which is relative to the study file", path, err)
	}
	if sha != "" {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != sha {
			return nil, fmt.Errorf("%s: sha256 %s, the study expects %s: fetch the file the study names, or update its sha256", path, got, sha)
		}
	}
	return data, nil
}
