package load

import (
	"bytes"
	"encoding/json"
	"testing"
)

// marshalRequest is the body as encoding/json writes it, the reference
// client.body must match byte for byte.
func marshalRequest(c *client, p Prompt) []byte {
	type streamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	type request struct {
		Model     string        `json:"model"`
		Stream    bool          `json:"stream"`
		MaxTokens int           `json:"max_tokens"`
		MaxCompl  int           `json:"max_completion_tokens"`
		Temp      float64       `json:"temperature"`
		Options   streamOptions `json:"stream_options"`
		IgnoreEOS bool          `json:"ignore_eos,omitempty"`
		Prompt    any           `json:"prompt,omitempty"`
		Messages  []Message     `json:"messages,omitempty"`
	}
	req := request{Model: c.t.Model, Stream: true, MaxTokens: p.MaxTokens, MaxCompl: p.MaxTokens,
		Options: streamOptions{IncludeUsage: true}, IgnoreEOS: c.l.IgnoreEOS}
	switch {
	case c.t.API == "completions" && p.TokenIDs != nil:
		req.Prompt = p.TokenIDs
	case c.t.API == "completions":
		req.Prompt = p.Text
	case p.Messages != nil:
		req.Messages = p.Messages
	default:
		req.Messages = []Message{{Role: "user", Content: p.Text}}
	}
	b, _ := json.Marshal(req)
	return b
}

// FuzzBody: the hand-written body is json.Marshal's, for any text,
// model name, token ids and messages.
func FuzzBody(f *testing.F) {
	f.Add("Qwen/Qwen3-8B", "hello <b>&\"world\"\n\t\u2028\x01\xff é 中", "user", true, true, 16, []byte{1, 2, 3})
	f.Add("m", "", "", false, false, 0, []byte(nil))
	f.Fuzz(func(t *testing.T, model, text, role string, completions, ignore bool, max int, ids []byte) {
		for _, api := range []string{"chat", "completions"} {
			if completions != (api == "completions") {
				continue
			}
			c := &client{t: Target{Model: model, API: api}, l: Load{IgnoreEOS: ignore}}
			ps := []Prompt{{Text: text, MaxTokens: max}}
			if ids != nil {
				tok := make([]int, len(ids))
				for i, x := range ids {
					tok[i] = int(x) * 997
				}
				ps = append(ps, Prompt{TokenIDs: tok, MaxTokens: max})
			}
			if role != "" {
				ps = append(ps, Prompt{Messages: []Message{{Role: role, Content: text}, {Role: "assistant", Content: model}}, MaxTokens: max})
			}
			for _, p := range ps {
				if got, want := c.body(p), marshalRequest(c, p); !bytes.Equal(got, want) {
					t.Fatalf("body\n%s\nwant\n%s", got, want)
				}
			}
		}
	})
}

func BenchmarkBody(b *testing.B) {
	c := &client{t: Target{Model: "Qwen/Qwen3-8B", API: "completions"}, l: Load{IgnoreEOS: true}}
	p := Prompt{TokenIDs: make([]int, 256), MaxTokens: 128}
	for i := range p.TokenIDs {
		p.TokenIDs[i] = 1000 + i*37
	}
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			c.body(p)
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			marshalRequest(c, p)
		}
	})
}
