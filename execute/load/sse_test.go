package load

import (
	"errors"
	"io"
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
