package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"servelab.dev/execute/record"
)

// Target is the endpoint driven.
type Target struct {
	URL   string // base URL, e.g. http://127.0.0.1:8000
	Model string
	API   string // "chat" or "completions"
}

// Prompt is one request's input and output budget.
type Prompt struct {
	Text      string
	TokenIDs  []int // sent as the prompt of /v1/completions when set
	MaxTokens int
	// InputTokens is the prompt length the dataset measured (0 when the
	// server's usage must say).
	InputTokens int
}

// Load is how requests are sent.
type Load struct {
	Kind        string // constant, poisson, concurrency
	Rate        float64
	Burstiness  float64
	Concurrency int // slots for "concurrency"; an optional cap for rate profiles
	Requests    int
	Warmup      int
	Seed        uint64
	Timeout     time.Duration // per request; 0 means none
	MaxDuration time.Duration // for the whole run; 0 means none
	IgnoreEOS   bool
}

// Prompts is where requests take their prompts: a List, or a generator
// that makes prompt i when it is sent, so that a long run holds no
// prompt it is not sending.
type Prompts interface {
	Len() int
	At(i int) Prompt
}

// List is prompts held in memory.
type List []Prompt

func (l List) Len() int        { return len(l) }
func (l List) At(i int) Prompt { return l[i] }

// offset is prompts from the n-th on, cyclically.
type offset struct {
	p Prompts
	n int
}

func (o offset) Len() int        { return o.p.Len() }
func (o offset) At(i int) Prompt { return o.p.At((o.n + i) % o.p.Len()) }

// Run is RunPrompts with prompts held in memory.
func Run(ctx context.Context, t Target, l Load, prompts []Prompt) ([]record.Sample, error) {
	return RunPrompts(ctx, t, l, List(prompts))
}

// RunPrompts sends the warm-up requests, then the measured ones on the
// load's schedule, and returns one sample per request. prompts are used
// in order and reused cyclically.
func RunPrompts(ctx context.Context, t Target, l Load, prompts Prompts) ([]record.Sample, error) {
	if prompts.Len() == 0 {
		return nil, errors.New("no prompts")
	}
	c := newClient(t, l)
	if l.MaxDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.MaxDuration)
		defer cancel()
	}
	warm := c.warmup(ctx, l, prompts)
	rest := offset{prompts, l.Warmup % prompts.Len()}
	var measured []record.Sample
	if l.Kind == "concurrency" {
		measured = c.closed(ctx, l, rest)
	} else {
		measured = c.open(ctx, l, rest)
	}
	return append(warm, measured...), nil
}

type client struct {
	t    Target
	l    Load
	http *http.Client
	url  string
}

func newClient(t Target, l Load) *client {
	slots := max(l.Concurrency, 64, int(l.Rate*4))
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        slots * 2,
		MaxIdleConnsPerHost: slots * 2, // the default 2 would churn connections under load
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ReadBufferSize:      64 << 10,
		WriteBufferSize:     16 << 10,
	}
	path := "/v1/chat/completions"
	if t.API == "completions" {
		path = "/v1/completions"
	}
	return &client{t: t, l: l, http: &http.Client{Transport: tr}, url: strings.TrimRight(t.URL, "/") + path}
}

// warmup sends the warm-up requests one slot at a time (or with the
// profile's slots), all before the measured schedule starts.
func (c *client) warmup(ctx context.Context, l Load, prompts Prompts) []record.Sample {
	if l.Warmup <= 0 {
		return nil
	}
	w := l
	w.Requests, w.Concurrency = l.Warmup, max(1, l.Concurrency)
	out := c.closed(ctx, w, prompts)
	for i := range out {
		out[i].Warmup = true
	}
	return out
}

// open sends each request at its scheduled time, whether or not earlier
// ones have finished (an open model). With a concurrency cap a request
// may wait for a slot; its latency still counts from when it was due.
func (c *client) open(ctx context.Context, l Load, prompts Prompts) []record.Sample {
	offs := Schedule(l.Kind, l.Rate, l.Burstiness, l.Requests, l.Seed)
	out := make([]record.Sample, l.Requests)
	var slots chan struct{}
	if l.Concurrency > 0 {
		slots = make(chan struct{}, l.Concurrency)
	}
	start := time.Now().Add(5 * time.Millisecond)
	var wg sync.WaitGroup
	for i, off := range offs {
		due := start.Add(off)
		if !sleepUntil(ctx, due) {
			for j := i; j < len(offs); j++ {
				out[j] = notSent(start, start.Add(offs[j]), "not sent: the run reached its time limit")
			}
			break
		}
		wg.Add(1)
		go func(i int, due time.Time) {
			defer wg.Done()
			if slots != nil {
				slots <- struct{}{}
				defer func() { <-slots }()
			}
			out[i] = c.do(ctx, start, due, prompts.At(i%prompts.Len()))
		}(i, due)
	}
	wg.Wait()
	return out
}

// closed keeps l.Concurrency requests in flight: each slot sends its
// next request when the previous one ends, so none is ever late.
func (c *client) closed(ctx context.Context, l Load, prompts Prompts) []record.Sample {
	out := make([]record.Sample, l.Requests)
	var next atomic.Int64 // the next request to send, shared by the slots
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < max(1, l.Concurrency); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < l.Requests; i = int(next.Add(1) - 1) {
				now := time.Now()
				if ctx.Err() != nil {
					out[i] = notSent(start, now, "not sent: the run reached its time limit")
					continue
				}
				out[i] = c.do(ctx, start, now, prompts.At(i%prompts.Len()))
			}
		}()
	}
	wg.Wait()
	return out
}

func notSent(start, due time.Time, why string) record.Sample {
	t := due.Sub(start).Seconds()
	return record.Sample{Intended: t, Sent: t, Error: why}
}

// sleepUntil waits for t: a timer for most of the wait, then a short
// spin, because the Go timer alone is late by up to a millisecond.
func sleepUntil(ctx context.Context, t time.Time) bool {
	if d := time.Until(t) - 500*time.Microsecond; d > 0 {
		tm := time.NewTimer(d)
		select {
		case <-ctx.Done():
			tm.Stop()
			return false
		case <-tm.C:
		}
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
	return ctx.Err() == nil
}

// body is the request JSON; ignore_eos is a vLLM/SGLang extension that
// makes the server produce exactly max_tokens.
func (c *client) body(p Prompt) []byte {
	req := map[string]any{
		"model": c.t.Model, "stream": true, "max_tokens": p.MaxTokens, "temperature": 0,
		"stream_options": map[string]any{"include_usage": true},
	}
	if c.l.IgnoreEOS {
		req["ignore_eos"] = true
	}
	switch {
	case c.t.API == "completions" && p.TokenIDs != nil:
		req["prompt"] = p.TokenIDs
	case c.t.API == "completions":
		req["prompt"] = p.Text
	default:
		req["messages"] = []map[string]string{{"role": "user", "content": p.Text}}
	}
	b, _ := json.Marshal(req)
	return b
}

// do sends one request and reads its stream to the end.
func (c *client) do(ctx context.Context, start, due time.Time, p Prompt) (s record.Sample) {
	s.Intended = due.Sub(start).Seconds()
	s.Sent = s.Intended
	if c.l.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.l.Timeout)
		defer cancel()
	}
	var wrote time.Time
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { wrote = time.Now() }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), "POST", c.url, bytes.NewReader(c.body(p)))
	if err != nil {
		s.Error = err.Error()
		return s
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.http.Do(req)
	if !wrote.IsZero() {
		s.Sent = wrote.Sub(start).Seconds()
	}
	if err != nil {
		s.Error = requestError(err)
		s.Latency = ms(time.Since(due))
		return s
	}
	defer resp.Body.Close()
	if err := checkResponse(resp); err != nil {
		s.Error = err.Error()
		s.Latency = ms(time.Since(due))
		return s
	}
	c.read(resp.Body, due, &s)
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func checkResponse(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return fmt.Errorf("response is %q, not an event stream", ct)
	}
	return nil
}

// read consumes the stream: TTFT at the first content chunk, one gap per
// later content chunk, the end at the last one, tokens from usage.
func (c *client) read(body io.Reader, due time.Time, s *record.Sample) {
	st := NewStream(body)
	var last time.Time
	usage := false
	for {
		ch, err := st.Next()
		now := time.Now()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Error = streamError(err)
			break
		}
		if ch.Error != "" {
			s.Error = "server error in stream: " + ch.Error
			break
		}
		if ch.Content {
			if last.IsZero() {
				s.TTFT = ms(now.Sub(due))
			} else {
				s.Gaps = append(s.Gaps, ms(now.Sub(last)))
			}
			last = now
		}
		if ch.HasUsage {
			usage = true
			s.InputTokens, s.OutputTokens = ch.PromptTokens, ch.CompletionTokens
		}
		if ch.Done {
			break
		}
	}
	switch {
	case !last.IsZero():
		s.Latency = ms(last.Sub(due))
	default:
		s.Latency = ms(time.Since(due))
	}
	switch {
	case s.Error != "":
	case last.IsZero():
		s.Error = "stream ended without any content"
	case !usage:
		s.Error = "stream ended without usage (the server ignored stream_options.include_usage)"
	}
}

func streamError(err error) string {
	switch {
	case errors.Is(err, ErrMalformed):
		return "malformed chunk: not a completion chunk's JSON"
	case errors.Is(err, ErrLineTooLong):
		return "stream line longer than 1 MiB: not a completion stream, read no further"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out while streaming"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "stream cut mid-response"
	}
	return "stream: " + err.Error()
}

func requestError(err error) string {
	var op *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out before a response"
	case errors.As(err, &op) && op.Op == "dial":
		return "connect: " + op.Err.Error()
	}
	return err.Error()
}
