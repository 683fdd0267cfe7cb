package dataset

import (
	"bytes"
	"os"
	"testing"
)

// FuzzParseTrace: no input makes the trace parser panic; what it accepts
// is in time order, within the bounds, and makes prompts of the rows'
// lengths whose blocks follow their hash ids.
func FuzzParseTrace(f *testing.F) {
	if b, err := os.ReadFile(traceSample); err == nil {
		f.Add(b[:min(len(b), 600)], 512)
	}
	f.Add([]byte(`{"timestamp": 0, "input_length": 3, "output_length": 1, "hash_ids": [5]}`+"\n"+`{"timestamp": 0.5, "input_length": 5, "output_length": 2, "hash_ids": [5, 6]}`), 2)
	f.Add([]byte(`{"timestamp": -1, "input_length": 3}`), 1)
	f.Fuzz(func(t *testing.T, b []byte, block int) {
		if block < 1 || block > 1<<16 {
			return
		}
		rows, err := ParseTrace(bytes.NewReader(b), "fuzz.jsonl", block)
		if err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Fatalf("error of several lines: %v", err)
			}
			return
		}
		total := 0
		for i, r := range rows {
			if i > 0 && r.Timestamp < rows[i-1].Timestamp || r.InputLength < 1 || r.OutputLength < 1 || len(r.HashIDs) > (r.InputLength+block-1)/block {
				t.Fatalf("row %d accepted: %+v", i, r)
			}
			total += r.InputLength
		}
		if total > 1<<16 {
			return // long prompts are fine, but slow to build here
		}
		ps := TracePrompts(rows, block, 100, 1)
		for i, r := range rows {
			if p := ps.At(i); len(p.TokenIDs) != r.InputLength || p.MaxTokens < 1 || p.MaxTokens > 100 {
				t.Fatalf("row %d: %d tokens, budget %d", i, len(p.TokenIDs), p.MaxTokens)
			}
		}
		TraceOffsets(rows, 0.5)
	})
}

// FuzzParseConversations: no input makes the conversation parser panic;
// what it accepts has turns, and each turn's prompt ends with its user
// message after the history.
func FuzzParseConversations(f *testing.F) {
	if b, err := os.ReadFile(convSample); err == nil {
		f.Add(b[:min(len(b), 3000)])
	}
	f.Add([]byte(`[{"id": 1, "conversations": [{"role": "system", "content": "s"}, {"role": "user", "content": "a b"}, {"role": "assistant", "content": "c"}]}]`))
	f.Add([]byte(`[{"conversations": [{"from": "gpt", "value": "x"}]}, 3]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		convs, err := ParseConversations(b, "fuzz.json")
		if err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Fatalf("error of several lines: %v", err)
			}
			return
		}
		turns, _, err := ConversationPrompts(convs, 0, 50, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range turns {
			if len(c) == 0 {
				t.Fatal("a conversation without turns accepted")
			}
			for _, p := range c {
				if m := p.Messages; len(m) == 0 || m[len(m)-1].Role != "user" || p.MaxTokens < 1 || p.MaxTokens > 50 {
					t.Fatalf("turn %+v", p)
				}
			}
		}
	})
}
