package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// events collects what h1 hands over.
type events struct {
	got  []Chunk
	stop bool // end the reading at [DONE]
}

func (e *events) event(c Chunk) bool {
	e.got = append(e.got, c)
	return e.stop && c.Done
}

// decode feeds resp to a fresh h1 in pieces of at most step bytes
// (all at once for 0), then the connection's end when eof.
func decode(resp []byte, step int, eof bool) ([]Chunk, bool, error) {
	var p h1
	e := &events{}
	p.reset(e)
	if step <= 0 {
		step = len(resp) + 1
	}
	for len(resp) > 0 {
		n := min(step, len(resp))
		if err := p.feed(resp[:n]); err != nil {
			return e.got, p.ended, err
		}
		resp = resp[n:]
	}
	if eof && !p.ended {
		return e.got, p.ended, p.eof()
	}
	return e.got, p.ended, nil
}

const sseBody = ": keep-alive\n\n" +
	"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
	"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\r\n\r\n" +
	"event: x\ndata:{\"choices\":[{\"delta\":{\"reasoning_content\":\"think\"}}]}\n\n" +
	"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":345}}\n\n" +
	"data: [DONE]\n\n"

var sseWant = []Chunk{{}, {Content: true}, {Content: true}, {HasUsage: true, PromptTokens: 12, CompletionTokens: 345}, {Done: true}}

// chunked frames body as a chunked HTTP/1.1 response, in pieces of n.
func chunked(head, body string, n int) string {
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\n" + head + "Transfer-Encoding: chunked\r\n\r\n")
	for len(body) > 0 {
		k := min(n, len(body))
		fmt.Fprintf(&b, "%x;ext=1\r\n%s\r\n", k, body[:k])
		body = body[k:]
	}
	b.WriteString("0\r\nTrailer: x\r\n\r\n")
	return b.String()
}

// Every framing gives the same events, however the bytes are split.
func TestH1Framings(t *testing.T) {
	ct := "Content-Type: text/event-stream; charset=utf-8\r\n"
	cases := map[string]string{
		"chunked":        chunked(ct, sseBody, 7),
		"one chunk":      chunked(ct, sseBody, len(sseBody)),
		"content-length": fmt.Sprintf("HTTP/1.1 200 OK\r\n%sContent-Length: %d\r\n\r\n%s", ct, len(sseBody), sseBody),
		"to the end":     "HTTP/1.1 200 OK\n" + ct + "\n" + sseBody,
		"early hints":    "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + chunked(ct, sseBody, 64),
	}
	for name, resp := range cases {
		for _, step := range []int{0, 1, 2, 3, 5, 16, 100} {
			got, ended, err := decode([]byte(resp), step, true)
			if err != nil || !ended || !reflect.DeepEqual(got, sseWant) {
				t.Errorf("%s, pieces of %d: ended %v, err %v, events %+v", name, step, ended, err, got)
			}
		}
	}
}

// Responses that are not a stream, or break off, give the reasons the
// client records.
func TestH1Refusals(t *testing.T) {
	ct := "Content-Type: text/event-stream\r\n"
	cases := []struct{ resp, want string }{
		{"HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n\r\n{\"error\":\"simulated\"}", `HTTP 500: {"error":"simulated"`},
		{"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", "HTTP 404: "},
		{"HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", "HTTP 204: "},
		{"HTTP/1.1 503 Busy\r\n\r\nnot ready\n", "HTTP 503: not ready"},
		{"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n<html", `response is "text/html", not an event stream`},
		{chunked(ct, "data: {oops\n\n", 64), "malformed chunk"},
		{strings.TrimSuffix(chunked(ct, sseBody, 9), "0\r\nTrailer: x\r\n\r\n"), "stream cut mid-response"},
		{"HTTP/1.1 200 OK\r\n" + ct + "Content-Length: 500\r\n\r\n" + sseBody, "stream cut mid-response"},
		{"HTTP/1.1 200 OK\r\n" + ct + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed chunked"},
		{"HTTP/1.1 200 OK\r\n" + ct + "Transfer-Encoding: gzip\r\n\r\n", "not supported"},
		{"SSH-2.0-OpenSSH_9.6\r\n", "malformed HTTP response"},
		{"HTTP/1.1 200 OK\r\n" + ct + "X: " + strings.Repeat("y", maxHead) + "\r\n\r\n", "headers longer"},
	}
	for _, c := range cases {
		for _, step := range []int{0, 1, 7} {
			_, _, err := decode([]byte(c.resp), step, true)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%.60q in pieces of %d: err %v, want %q", c.resp, step, err, c.want)
			}
		}
	}
	// A line longer than MaxLine stops the reading with ErrLineTooLong.
	long := "HTTP/1.1 200 OK\r\n" + ct + "\r\ndata: {\"choices\":[{\"text\":\"" + strings.Repeat("x", MaxLine) + "\n"
	if _, _, err := decode([]byte(long), 4096, true); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("endless line: %v", err)
	}
}

// After [DONE] the rest of the body is read but not parsed: a malformed
// line there does not fail the request, and the response still ends
// cleanly so that the connection can be reused.
func TestH1DrainsAfterDone(t *testing.T) {
	resp := chunked("Content-Type: text/event-stream\r\n", "data: [DONE]\n\ndata: {oops\n\n", 5)
	var p h1
	e := &events{stop: true}
	p.reset(e)
	if err := p.feed([]byte(resp)); err != nil || !p.ended || len(e.got) != 1 {
		t.Fatalf("err %v, ended %v, events %+v", err, p.ended, e.got)
	}
	if err := p.feed([]byte("HTTP")); err != errTrailing {
		t.Errorf("bytes after the response: %v", err)
	}
}

// FuzzResponse: no input makes the parser panic, loop or grow without
// bound; the events do not depend on how the bytes are split; and
// where net/http and the Stream reader read a 200 event stream without
// error, h1 gives the same events.
func FuzzResponse(f *testing.F) {
	ct := "Content-Type: text/event-stream\r\n"
	f.Add([]byte(chunked(ct, sseBody, 11)), uint16(3))
	f.Add([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\n%sContent-Length: %d\r\n\r\n%s", ct, len(sseBody), sseBody)), uint16(1))
	f.Add([]byte("HTTP/1.0 200 OK\r\n"+ct+"\r\ndata: {\"choices\":[{\"text\":\"a\"}]}"), uint16(0))
	f.Add([]byte("HTTP/1.1 500 x\r\nContent-Length: 3\r\n\r\nabc"), uint16(2))
	f.Fuzz(func(t *testing.T, resp []byte, step uint16) {
		whole, endedW, errW := decode(resp, 0, true)
		split, endedS, errS := decode(resp, int(step%64)+1, true)
		if (errW == nil) != (errS == nil) || endedW != endedS || !reflect.DeepEqual(whole, split) {
			t.Fatalf("whole: %v %v %+v; in pieces of %d: %v %v %+v", endedW, errW, whole, step%64+1, endedS, errS, split)
		}
		for _, c := range whole {
			if c.PromptTokens < 0 || c.CompletionTokens < 0 || (c.Done && (c.Content || c.HasUsage)) {
				t.Fatalf("inconsistent chunk %+v", c)
			}
		}
		if errW != nil {
			return
		}
		ref, ok := netHTTPEvents(resp)
		if ok && !reflect.DeepEqual(ref, whole) {
			t.Fatalf("net/http: %+v\nh1: %+v", ref, whole)
		}
	})
}

// netHTTPEvents reads resp with net/http and the Stream reader; false
// when either refuses it.
func netHTTPEvents(resp []byte) ([]Chunk, bool) {
	r, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(resp)), nil)
	if err != nil || r.StatusCode != 200 || checkResponse(r) != nil {
		return nil, false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, false
	}
	var out []Chunk
	st := NewStream(bytes.NewReader(body))
	for {
		c, err := st.Next()
		if err == io.EOF {
			return out, true
		}
		if err != nil {
			return nil, false
		}
		out = append(out, c)
	}
}
