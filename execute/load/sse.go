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
		line = bytes.TrimRight(line, "\r\n")
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

var (
	doneMarker = []byte("[DONE]")
	keyContent = []byte(`"content":`)
	keyReason  = []byte(`"reasoning_content":`)
	keyReason2 = []byte(`"reasoning":`)
	keyText    = []byte(`"text":`)
	keyUsage   = []byte(`"usage":`)
	keyPrompt  = []byte(`"prompt_tokens":`)
	keyCompl   = []byte(`"completion_tokens":`)
	keyCached  = []byte(`"cached_tokens":`)
	keyError   = []byte(`"error":`)
	keyChoices = []byte(`"choices":`)
)

// ParseChunk reads the fields a benchmark needs from one event's JSON
// without decoding it whole: a chunk counts as content when any text
// field holds a non-empty string; usage numbers are read where they are.
// It rejects payloads that are not a JSON object with choices, usage or
// an error.
func ParseChunk(p []byte) (Chunk, error) {
	var c Chunk
	if bytes.Equal(p, doneMarker) {
		c.Done = true
		return c, nil
	}
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' {
		return c, ErrMalformed
	}
	if i := bytes.Index(p, keyError); i >= 0 {
		c.Error = errorText(p[i+len(keyError):])
		return c, nil
	}
	hasChoices := bytes.Contains(p, keyChoices)
	for _, k := range [][]byte{keyContent, keyReason, keyReason2, keyText} {
		if nonEmptyString(p, k) {
			c.Content = true
			break
		}
	}
	if i := bytes.Index(p, keyUsage); i >= 0 {
		u := bytes.TrimLeft(p[i+len(keyUsage):], " ")
		if !bytes.HasPrefix(u, []byte("null")) {
			c.HasUsage = true
			c.PromptTokens = intAfter(u, keyPrompt)
			c.CompletionTokens = intAfter(u, keyCompl)
			if i := bytes.Index(u, keyCached); i >= 0 {
				v := bytes.TrimLeft(u[i+len(keyCached):], " ")
				c.HasCached = len(v) > 0 && v[0] >= '0' && v[0] <= '9'
				c.CachedTokens = intAfter(u, keyCached)
			}
		}
	}
	if !hasChoices && !c.HasUsage {
		return c, ErrMalformed
	}
	return c, nil
}

// nonEmptyString reports whether key is followed by a string with at
// least one character, in any of its occurrences.
func nonEmptyString(p, key []byte) bool {
	for {
		i := bytes.Index(p, key)
		if i < 0 {
			return false
		}
		v := bytes.TrimLeft(p[i+len(key):], " ")
		if len(v) >= 2 && v[0] == '"' && v[1] != '"' {
			return true
		}
		p = p[i+len(key):]
	}
}

func intAfter(p, key []byte) int {
	i := bytes.Index(p, key)
	if i < 0 {
		return 0
	}
	x := 0
	for _, c := range bytes.TrimLeft(p[i+len(key):], " ") {
		if c < '0' || c > '9' || x > 1<<40 {
			break
		}
		x = x*10 + int(c-'0')
	}
	return x
}

// errorText is a short readable form of an error value.
func errorText(v []byte) string {
	v = bytes.TrimLeft(v, " ")
	if i := bytes.Index(v, []byte(`"message":`)); i >= 0 {
		v = bytes.TrimLeft(v[i+10:], " ")
	}
	if len(v) > 0 && v[0] == '"' {
		if end := bytes.IndexByte(v[1:], '"'); end >= 0 {
			return string(v[1 : end+1])
		}
	}
	if len(v) > 120 {
		v = v[:120]
	}
	return string(v)
}
