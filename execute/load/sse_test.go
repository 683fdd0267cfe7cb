package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestStream(t *testing.T) {
	body := ": keep-alive\n\n" +
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\r\n\r\n" +
		"event: x\ndata:{\"choices\":[{\"delta\":{\"reasoning_content\":\"think\"}}]}\n\n" +
		"data: {\"choices\":[{\"text\":\" more\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":345}}\n\n" +
		"data: [DONE]\n\n"
	st := NewStream(strings.NewReader(body))
	var got []Chunk
	for {
		c, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	want := []Chunk{{}, {Content: true}, {Content: true}, {Content: true}, {HasUsage: true, PromptTokens: 12, CompletionTokens: 345}, {Done: true}}
	if len(got) != len(want) {
		t.Fatalf("%d chunks: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("chunk %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseChunkRefuses(t *testing.T) {
	for _, bad := range []string{"", "{", "not json", "{\"foo\":1}", "[1,2]"} {
		if _, err := ParseChunk([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	c, err := ParseChunk([]byte(`{"error":{"message":"out of memory","code":500}}`))
	if err != nil || c.Error != "out of memory" {
		t.Errorf("%+v %v", c, err)
	}
	c, _ = ParseChunk([]byte(`{"choices":[{"delta":{"content":null}}],"usage":null}`))
	if c.Content || c.HasUsage {
		t.Errorf("null content or usage counted: %+v", c)
	}
}

// A line longer than the read buffer is gathered whole.
func TestStreamLongLine(t *testing.T) {
	long := "data: {\"choices\":[{\"delta\":{\"content\":\"" + strings.Repeat("x", 200000) + "\"}}]}\n\n"
	c, err := NewStream(strings.NewReader(long)).Next()
	if err != nil || !c.Content {
		t.Fatalf("%+v %v", c, err)
	}
}

// endless is a server that sends one line forever.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += len(p)
	return len(p), nil
}

// An endless line stops at MaxLine with a clear error, having read
// little more than the cap.
func TestStreamEndlessLine(t *testing.T) {
	src := &endless{}
	_, err := NewStream(io.MultiReader(strings.NewReader("data: {"), src)).Next()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v", err)
	}
	if src.read > MaxLine+(128<<10) {
		t.Errorf("read %d bytes for a cap of %d", src.read, MaxLine)
	}
}

// FuzzStream: no input makes the reader panic or loop; every chunk it
// returns is consistent.
func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n"))
	f.Add([]byte("data: {\"error\":\"x\"}\n\n: c\n\nevent: y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := NewStream(strings.NewReader(string(data)))
		for i := 0; i <= len(data)+1; i++ {
			c, err := st.Next()
			if err != nil {
				return
			}
			if c.PromptTokens < 0 || c.CompletionTokens < 0 || (c.Done && (c.Content || c.HasUsage)) {
				t.Fatalf("inconsistent chunk %+v", c)
			}
		}
		t.Fatal("more events than bytes")
	})
}

// Field names inside strings are text, not fields.
func TestParseChunkSkipsStrings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Chunk
	}{
		{`{"choices":[{"delta":{"content":"{\"error\": \"x\"}"}}]}`, Chunk{Content: true}},
		{`{"choices":[{"text":"\"usage\":{\"prompt_tokens\":9}"}]}`, Chunk{Content: true}},
		{`{"choices":[{"delta":{"content":"\\"}}],"prompt_tokens":7}`, Chunk{Content: true}},
		{`{"choices":[{"delta":{"content":""}}],"usage":{"prompt_tokens":3,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":2}}}`,
			Chunk{HasUsage: true, PromptTokens: 3, CompletionTokens: 4, HasCached: true, CachedTokens: 2}},
		{`{"choices":[],"usage":{"completion_tokens":4},"prompt_tokens":5}`, Chunk{HasUsage: true, CompletionTokens: 4}},
		{`{"error":""}`, Chunk{Error: "(an empty error)"}},
		{`{"usage":{"usage":{},"prompt_tokens":1}}`, Chunk{HasUsage: true, PromptTokens: 1}},
		{`{"choices":[],"usage":{"prompt_tokens":3.5,"completion_tokens":1e3}}`, Chunk{HasUsage: true}},
		{`{"choices":[],"usage":{"prompt_tokens":20000000000000,"completion_tokens":-2}}`, Chunk{HasUsage: true}},
		{`{"error":{"code":1,"detail":"said \"message\": \"x\"","message":"real"}}`, Chunk{Error: "real"}},
	} {
		got, err := ParseChunk([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v", tc.in, got, err, tc.want)
		}
	}
}

// reference is ParseChunk's reading done with encoding/json's tokenizer,
// in document order: the chunk a valid JSON object should give.
func reference(p []byte) (c Chunk, ok bool) {
	d := json.NewDecoder(bytes.NewReader(p))
	d.UseNumber()
	type frame struct {
		object, usage bool
		key           string
		wantKey       bool
	}
	var stack []frame
	hasChoices, inUsage := false, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, false
		}
		top := len(stack) - 1
		if tok == json.Delim('}') || tok == json.Delim(']') {
			if stack[top].usage {
				inUsage--
			}
			stack = stack[:top]
			continue
		}
		if top >= 0 && stack[top].object && stack[top].wantKey {
			if k, isKey := tok.(string); isKey {
				stack[top].key, stack[top].wantKey = k, false
				if k == "choices" {
					hasChoices = true
				}
				continue
			}
		}
		key := ""
		if top >= 0 && stack[top].object {
			key = stack[top].key
			stack[top].wantKey = true
		}
		switch key {
		case "error":
			if tok != nil {
				c.Error = "x"
				return c, true
			}
		case "content", "reasoning_content", "reasoning", "text":
			if s, isStr := tok.(string); isStr && s != "" {
				c.Content = true
			}
		case "usage":
			if tok != nil {
				c.HasUsage = true
			}
		case "prompt_tokens", "completion_tokens", "cached_tokens":
			n, isNum := tok.(json.Number)
			x, err := strconv.Atoi(string(n))
			if inUsage == 0 || !isNum || err != nil || x < 0 || x > 1<<40 {
				break
			}
			switch key {
			case "prompt_tokens":
				c.PromptTokens = x
			case "completion_tokens":
				c.CompletionTokens = x
			default:
				c.CachedTokens, c.HasCached = x, true
			}
		}
		if tok == json.Delim('{') || tok == json.Delim('[') {
			u := key == "usage" && tok == json.Delim('{')
			if u {
				inUsage++
			}
			stack = append(stack, frame{object: tok == json.Delim('{'), usage: u, wantKey: true})
		}
	}
	if !hasChoices && !c.HasUsage {
		return c, false
	}
	return c, true
}

// FuzzParseChunk: on valid JSON objects whose keys carry no escapes,
// ParseChunk reads what encoding/json's tokenizer reads.
func FuzzParseChunk(f *testing.F) {
	f.Add([]byte(`{"choices":[{"delta":{"content":"{\"error\": 1}"}}],"usage":null}`))
	f.Add([]byte(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":2}}}`))
	f.Add([]byte(`{"error":{"message":"out of memory"}}`))
	f.Add([]byte(`{"choices":[{"text":"a\\"}],"x":[1,{"usage":{"prompt_tokens":1}}]}`))
	f.Add([]byte(`{"usage":{"usage":{},"prompt_tokens":1}}`))
	f.Add([]byte(`{"choices":[],"usage":{"prompt_tokens":3.5,"completion_tokens":20000000000000}}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		got, err := ParseChunk(p)
		var v map[string]any
		if json.Unmarshal(p, &v) != nil || bytes.Contains(p, []byte(`\u`)) || len(p) == 0 || p[len(p)-1] != '}' {
			return // not a plain JSON object: only no panic is asked
		}
		want, ok := reference(p)
		if !ok {
			if err == nil && got.Error == "" {
				t.Fatalf("%s: accepted as %+v", p, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: %v, want %+v", p, err, want)
		}
		if (got.Error != "") != (want.Error != "") || (want.Error == "" && got != want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", p, got, want)
		}
	})
}
