// Package load is servelab's benchmark client: an open-model load
// generator for OpenAI-compatible streaming APIs. A precomputed absolute
// schedule says when each request is due; latencies are measured from
// that intended time (so a late send counts against the server, never
// hides behind the client) and also from the actual write; the stream is
// read without a per-chunk allocation.
package load

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
)

// Chunk is what one SSE data event carried.
type Chunk struct {
	Content bool // a choice delta with non-empty text (content, reasoning or completion text)
	Done    bool // the [DONE] sentinel
	// Usage figures, when the event carries a usage object.
	HasUsage         bool
	PromptTokens     int
	CompletionTokens int
	// CachedTokens is usage.prompt_tokens_details.cached_tokens, when
	// HasCached says the server sent it.
	HasCached    bool
	CachedTokens int
	// Error is an error object or message the server put in the stream.
	Error string
}

// Stream reads server-sent events from r. It reuses one buffer: Next
// returns views into it that are valid until the next call.
type Stream struct {
	r    *bufio.Reader
	data []byte
}

// NewStream wraps r with a large buffer (streamed chunks can be long).
func NewStream(r io.Reader) *Stream {
	return &Stream{r: bufio.NewReaderSize(r, 64<<10)}
}

// streams recycles readers: one per request would be a 16 KiB
// allocation a request, thousands a second at high rates.
var streams = sync.Pool{New: func() any { return &Stream{r: bufio.NewReaderSize(nil, 16<<10)} }}

func getStream(r io.Reader) *Stream {
	s := streams.Get().(*Stream)
	s.r.Reset(r)
	return s
}

func putStream(s *Stream) {
	s.r.Reset(nil)
	if cap(s.data) > 1<<20 {
		s.data = nil // an outsized line's room is not kept
	}
	streams.Put(s)
}

// drain reads what follows the [DONE] event (the end of the chunked
// body, normally a few bytes) so that net/http can put the connection
// back in its keep-alive pool: a body closed before its end closes the
// connection, and the next request would pay for a new one.
func (s *Stream) drain() {
	io.Copy(io.Discard, io.LimitReader(s.r, 64<<10))
}

// ErrMalformed marks an event that is not the JSON of a completion chunk.
var ErrMalformed = errors.New("malformed chunk")

// MaxLine caps one SSE line: a completion chunk is a few hundred bytes
// (a long one some kilobytes), so a line this long is not a completion
// stream, and reading on would grow the buffer without bound.
const MaxLine = 1 << 20

// ErrLineTooLong is a line longer than MaxLine.
var ErrLineTooLong = errors.New("SSE line longer than 1 MiB")

// Next returns the next data event's chunk. io.EOF ends the stream.
func (s *Stream) Next() (Chunk, error) {
	for {
		line, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A very long line: gather it whole.
			s.data = append(s.data[:0], line...)
			for err == bufio.ErrBufferFull {
				if len(s.data) > MaxLine {
					return Chunk{}, ErrLineTooLong
				}
				line, err = s.r.ReadSlice('\n')
				s.data = append(s.data, line...)
			}
			line = s.data
		}
		if len(line) == 0 && err != nil {
			return Chunk{}, err
		}
		line = trimEOL(line)
		if payload, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return ParseChunk(bytes.TrimLeft(payload, " "))
		}
		if err != nil {
			return Chunk{}, err
		}
		// Comments (":"), event:, id:, retry: and blank separators carry
		// nothing a benchmark needs.
	}
}

var doneMarker = []byte("[DONE]")

// ParseChunk reads the fields a benchmark needs from one event's JSON
// in one pass, without decoding it: a chunk counts as content when any
// text field (content, reasoning_content, reasoning, text) holds a
// non-empty string; usage numbers are read inside the usage object.
// Strings are skipped whole, so a field name that only appears inside
// some text (a model writing JSON with an "error" key) is not taken for
// a field. It rejects payloads that are not a JSON object with choices,
// usage or an error.
func ParseChunk(p []byte) (Chunk, error) {
	var c Chunk
	if bytes.Equal(p, doneMarker) {
		c.Done = true
		return c, nil
	}
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' {
		return c, ErrMalformed
	}
	var sc scan
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{', '[':
			sc.depth++
		case '}', ']':
			if sc.depth == sc.usage {
				sc.usage = 0
			}
			sc.depth--
		case '"':
			end, v := member(p, i)
			switch {
			case end < 0 || v >= len(p):
				return c, ErrMalformed
			case v < 0:
				i = end // a value, not a key
				continue
			}
			if sc.field(&c, p[i+1:end], p, v) {
				return c, nil // an error: nothing else counts
			}
			i = v - 1
		}
	}
	if !sc.choices && !c.HasUsage {
		return c, ErrMalformed
	}
	return c, nil
}

// scan is where ParseChunk is in the object: its depth, the depth
// inside the (outermost) usage object, 0 outside, and whether a choices
// field was seen.
type scan struct {
	depth, usage int
	choices      bool
}

// field reads the value at p[v:] of the field named key into c; true
// when it was an error, which ends the parse.
func (sc *scan) field(c *Chunk, key, p []byte, v int) bool {
	switch string(key) {
	case "error":
		if p[v] != 'n' {
			if c.Error = errorText(p, v); c.Error == "" {
				c.Error = "(an empty error)"
			}
			return true
		}
	case "content", "reasoning_content", "reasoning", "text":
		if p[v] == '"' && v+1 < len(p) && p[v+1] != '"' {
			c.Content = true
		}
	case "choices":
		sc.choices = true
	case "usage":
		if p[v] != 'n' {
			c.HasUsage = true
		}
		if p[v] == '{' && sc.usage == 0 {
			sc.usage = sc.depth + 1
		}
	case "prompt_tokens":
		if sc.usage > 0 {
			c.PromptTokens, _ = intAt(p, v)
		}
	case "completion_tokens":
		if sc.usage > 0 {
			c.CompletionTokens, _ = intAt(p, v)
		}
	case "cached_tokens":
		if sc.usage > 0 {
			c.CachedTokens, c.HasCached = intAt(p, v)
		}
	}
	return false
}

// trimEOL cuts the line ends off line (bytes.TrimRight builds a set of
// its cut characters on every call).
func trimEOL(line []byte) []byte {
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	return line
}

// member reads the string whose opening quote is p[i]: end is its
// closing quote (-1 when it is not closed), v the index of the value it
// names when it is an object's key (followed by ':'), else -1.
func member(p []byte, i int) (end, v int) {
	if end = stringEnd(p, i+1); end < 0 {
		return -1, -1
	}
	if v = skipSpace(p, end+1); v >= len(p) || p[v] != ':' {
		return end, -1
	}
	return end, skipSpace(p, v+1)
}

// stringEnd is the index of the quote that closes the string whose
// first byte is at i, -1 when it is not closed.
func stringEnd(p []byte, i int) int {
	for {
		j := bytes.IndexByte(p[i:], '"')
		if j < 0 {
			return -1
		}
		j += i
		k := j
		for k > i && p[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j
		}
		i = j + 1
	}
}

func skipSpace(p []byte, i int) int {
	for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') {
		i++
	}
	return i
}

// intAt reads the non-negative integer at p[i:], up to 2^40; false
// when the value is not one (a fraction, an exponent, a sign, more
// digits).
func intAt(p []byte, i int) (int, bool) {
	x, j := 0, i
	for ; j < len(p) && p[j] >= '0' && p[j] <= '9'; j++ {
		if x = x*10 + int(p[j]-'0'); x > 1<<40 {
			return 0, false
		}
	}
	if j == i || j < len(p) && strings.IndexByte(",}] \t\r\n", p[j]) < 0 {
		return 0, false
	}
	return x, true
}

// errorText is a short readable form of the error value at p[v:]: the
// string, or an object's message string, else its first bytes.
func errorText(p []byte, v int) string {
	if p[v] == '{' {
		depth := 0
		for i := v; i < len(p); i++ {
			switch p[i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					i = len(p)
				}
			case '"':
				end, w := member(p, i)
				if end < 0 {
					i = len(p)
					break
				}
				if depth == 1 && w >= 0 && w < len(p) && p[w] == '"' && string(p[i+1:end]) == "message" {
					return errorText(p, w)
				}
				i = end
			}
		}
	}
	if p[v] == '"' {
		if end := stringEnd(p, v+1); end >= 0 {
			return string(p[v+1 : min(end, v+121)])
		}
	}
	return string(p[v:min(len(p), v+120)])
}
