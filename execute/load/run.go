package load

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
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
	// Metrics is the path of the engine's Prometheus endpoint, scraped
	// each second of the measured requests ("" for none).
	Metrics string
	// Dial, when set, opens every connection to the target instead of
	// the network: an in-process engine (execute/sim's Pipe). The client
	// then reads with net/http and paces on Go's timer without spinning,
	// so that it runs on testing/synctest's virtual clock.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Client is an HTTP client for the target's other endpoints (tokenize,
// cache reset, greedy decodes): without a proxy, through Dial when set.
// The caller closes its idle connections.
func (t Target) Client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil, DialContext: t.Dial}}
}

// Prompt is one request's input and output budget.
type Prompt struct {
	Text      string
	TokenIDs  []int // sent as the prompt of /v1/completions when set
	MaxTokens int
	// InputTokens is the prompt length the dataset measured (0 when the
	// server's usage must say).
	InputTokens int
	// Messages, when set, are the chat messages sent instead of Text:
	// a conversation's history and its next user turn.
	Messages []Message
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
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
	// Watch sees each measured request as it completes (from several
	// goroutines at once); when it returns true the run stops sending,
	// cancels the requests in flight and marks them stopped.
	Watch func(record.Sample) bool
	// Offsets, when set, are when each measured request is due (a
	// replayed trace's arrivals) instead of the kind's schedule.
	Offsets []time.Duration
	// Conversations, when set, are the measured requests: Concurrency
	// conversations at a time, each sending its turns in order, a turn
	// Think after the previous reply ended (see conversations).
	Conversations [][]Prompt
	Think         time.Duration

	// reader picks the transport: "" the fastest this target and system
	// allow, or ReaderHTTP / ReaderEpoll (for `make bench`'s before/after
	// figures, measured in one run).
	reader string
}

// Result is what a run measured.
type Result struct {
	Samples []record.Sample
	// Engine is the engine's own metrics, one point a second over the
	// measured requests; nil when not scraped or the endpoint failed.
	Engine *record.EngineSeries
}

// Metrics summarises the result: the samples' figures, the engine's,
// and the check of sent against counted input tokens.
func (r Result) Metrics() record.Metrics {
	m := Summarize(r.Samples)
	m.Engine = SummarizeEngine(r.Engine)
	return m
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
	r, err := Measure(ctx, t, l, prompts)
	return r.Samples, err
}

// Measure is RunPrompts that also scrapes the engine's metrics endpoint
// while the measured requests run.
func Measure(ctx context.Context, t Target, l Load, prompts Prompts) (Result, error) {
	if prompts.Len() == 0 {
		return Result{}, errors.New("no prompts")
	}
	c := newClient(t, l)
	defer c.pace.close()
	defer c.tr.close() // the next trial's client opens its own connections
	if l.MaxDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.MaxDuration)
		defer cancel()
	}
	c.probe(ctx, prompts.At(0))
	warm := c.warmup(ctx, l, prompts)
	rest := offset{prompts, l.Warmup % prompts.Len()}
	var sc *scraper
	if t.Metrics != "" {
		sc = startScrape(ctx, t, time.Second)
	}
	start := time.Now().Add(5 * time.Millisecond)
	if sc != nil {
		sc.run(ctx, start)
	}
	var measured []record.Sample
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	c.stop = stop
	switch {
	case l.Conversations != nil:
		measured = c.conversations(mctx, l, start)
	case l.Kind == "concurrency":
		measured = c.closed(mctx, l, rest, start)
	default:
		measured = c.open(mctx, l, rest, start)
	}
	res := Result{Samples: append(warm, measured...)}
	if sc != nil {
		res.Engine = sc.stop()
	}
	return res, nil
}

type client struct {
	t    Target
	l    Load
	tr   transport
	pace waiter
	// template is what the server counts beyond a text prompt's own
	// tokens (a chat template, a BOS token), from the probe.
	template int
	ids      atomic.Int64
	// stop ends the measured requests when l.Watch asks; stopped says
	// it did, so requests cut by it are marked as stopped, not failed.
	stop    context.CancelFunc
	stopped atomic.Bool
	watchMu sync.Mutex
}

// seen passes a completed measured request to the load's watcher, and
// marks a request the watcher's stop cut short.
func (c *client) seen(s record.Sample) record.Sample {
	if c.stopped.Load() {
		s.Error = StoppedEarly
		return s
	}
	if c.l.Watch == nil || s.Error != "" {
		return s
	}
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	if !c.stopped.Load() && c.l.Watch(s) {
		c.stopped.Store(true)
		c.stop()
	}
	return s
}

func newClient(t Target, l Load) *client {
	slots := max(l.Concurrency, 64, int(l.Rate*4))
	path := "/v1/chat/completions"
	if t.API == "completions" {
		path = "/v1/completions"
	}
	url := strings.TrimRight(t.URL, "/") + path
	if t.Dial != nil {
		tr := newHTTPTransport(slots, t.Dial)
		return &client{t: t, l: l, tr: &httpTransport{c: &http.Client{Transport: tr}, url: url}, pace: timerPacer()}
	}
	return &client{t: t, l: l, tr: newTransport(url, slots, l.reader), pace: newPacer()}
}

// warmup sends the warm-up requests before the measured schedule
// starts, with the profile's slots, or all at once for a rate profile
// without a cap: they also open the keep-alive connections the measured
// requests draw on, so that few of those pay for a connection.
func (c *client) warmup(ctx context.Context, l Load, prompts Prompts) []record.Sample {
	if l.Warmup <= 0 {
		return nil
	}
	w := l
	w.Requests, w.Concurrency = l.Warmup, l.Concurrency
	if w.Concurrency <= 0 {
		w.Concurrency = l.Warmup
	}
	out := c.closed(ctx, w, prompts, time.Now())
	for i := range out {
		out[i].Warmup = true
	}
	return out
}

// open sends each request at its scheduled time, whether or not earlier
// ones have finished (an open model). With a concurrency cap a request
// may wait for a slot; its latency still counts from when it was due.
func (c *client) open(ctx context.Context, l Load, prompts Prompts, start time.Time) []record.Sample {
	offs := l.Offsets
	if offs == nil {
		offs = Schedule(l.Kind, l.Rate, l.Burstiness, l.Requests, l.Seed)
	}
	out := make([]record.Sample, len(offs))
	var slots chan struct{}
	if l.Concurrency > 0 {
		slots = make(chan struct{}, l.Concurrency)
	}
	ready := c.prepare(ctx, offs, prompts)
	var wg sync.WaitGroup
	for i, off := range offs {
		due := start.Add(off)
		r := <-ready
		if !c.pace.wait(ctx, due) {
			for j := i; j < len(offs); j++ {
				out[j] = c.seen(notSent(start, start.Add(offs[j]), "not sent: the run reached its time limit"))
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
			out[i] = c.seen(c.send(ctx, start, due, r.p, r.body))
		}(i, due)
	}
	wg.Wait()
	return out
}

// prepared is a request made ready before it is due.
type prepared struct {
	p    Prompt
	body []byte
}

// prepare makes each request's prompt and body ahead of the schedule,
// up to a window of requests, so that a long prompt (a trace row of
// thousands of token ids) is not drawn and encoded after it is due.
func (c *client) prepare(ctx context.Context, offs []time.Duration, prompts Prompts) <-chan prepared {
	ready := make(chan prepared, 128)
	go func() {
		for i := range offs {
			p := prompts.At(i % prompts.Len())
			select {
			case ready <- prepared{p, c.body(p)}:
			case <-ctx.Done():
				close(ready) // the schedule stops too: receives get zero values
				return
			}
		}
	}()
	return ready
}

// closed keeps l.Concurrency requests in flight: each slot sends its
// next request when the previous one ends, so none is ever late.
func (c *client) closed(ctx context.Context, l Load, prompts Prompts, start time.Time) []record.Sample {
	out := make([]record.Sample, l.Requests)
	var next atomic.Int64 // the next request to send, shared by the slots
	c.pace.wait(ctx, start)
	var wg sync.WaitGroup
	for w := 0; w < max(1, l.Concurrency); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < l.Requests; i = int(next.Add(1) - 1) {
				now := time.Now()
				if ctx.Err() != nil {
					out[i] = c.seen(notSent(start, now, "not sent: the run reached its time limit"))
					continue
				}
				out[i] = c.seen(c.do(ctx, start, now, prompts.At(i%prompts.Len())))
			}
		}()
	}
	wg.Wait()
	return out
}

// StoppedEarly marks the requests an early stop left unsent or cut.
const StoppedEarly = "stopped early"

func notSent(start, due time.Time, why string) record.Sample {
	t := due.Sub(start).Seconds()
	return record.Sample{Intended: t, Sent: t, Error: why}
}

// probe asks the server how many tokens it counts for an empty prompt
// (the chat template, a BOS token), so each request's sent token count
// can be compared with the server's usage. Token-id prompts need none;
// a server that refuses the empty prompt leaves the difference at 0.
func (c *client) probe(ctx context.Context, first Prompt) {
	if first.TokenIDs != nil && c.t.API == "completions" || first.InputTokens == 0 {
		return
	}
	s := c.do(ctx, time.Now(), time.Now(), Prompt{MaxTokens: 1})
	if s.Error == "" {
		c.template = s.InputTokens
	}
}

// do sends one request and reads its stream to the end. Lag runs from
// due to the request's first byte on the wire; the set-up of a fresh
// connection is also recorded on its own.
func (c *client) do(ctx context.Context, start, due time.Time, p Prompt) record.Sample {
	return c.send(ctx, start, due, p, c.body(p))
}

// send is do with the request's body made already.
func (c *client) send(ctx context.Context, start, due time.Time, p Prompt, body []byte) (s record.Sample) {
	s.Intended = due.Sub(start).Seconds()
	s.Sent = s.Intended
	if p.InputTokens > 0 {
		s.Claimed = p.InputTokens + c.template
	}
	if c.l.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.l.Timeout)
		defer cancel()
	}
	s.Gaps = make([]float64, 0, min(max(p.MaxTokens-1, 0), 1024))
	t := tally{s: &s, start: start, due: due}
	// The key lets a request that a kept-alive connection lost before any
	// response byte (the server closed it idle as the request went out)
	// be sent again; each request has its own.
	c.tr.roundTrip(ctx, body, c.ids.Add(1), &t)
	t.end()
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// tally folds a stream's events into its sample as a transport reads
// them: TTFT at the first content chunk, one gap per later content
// chunk, the end at the last one, tokens from usage.
type tally struct {
	s          *record.Sample
	start, due time.Time
	// now is when the bytes of the events being folded were read.
	now   time.Time
	last  time.Time
	usage bool
	done  bool // [DONE] or a server error: the outcome is known
}

// sent records when the request's first byte went to the socket.
func (t *tally) sent(at time.Time) { t.s.Sent = at.Sub(t.start).Seconds() }

// event folds one event in; true says the outcome is known, and what
// follows is only drained.
func (t *tally) event(ch Chunk) bool {
	if ch.Error != "" {
		t.s.Error = "server error in stream: " + ch.Error
		t.done = true
		return true
	}
	if ch.Content {
		if t.last.IsZero() {
			t.s.TTFT = ms(t.now.Sub(t.due))
		} else {
			t.s.Gaps = append(t.s.Gaps, ms(t.now.Sub(t.last)))
		}
		t.last = t.now
	}
	if ch.HasUsage {
		t.usage = true
		t.s.InputTokens, t.s.OutputTokens = ch.PromptTokens, ch.CompletionTokens
		if ch.HasCached {
			t.s.Cached = record.I(ch.CachedTokens)
		}
	}
	if ch.Done {
		t.done = true
	}
	return t.done
}

// fail records why the request failed, unless its outcome is known.
func (t *tally) fail(why string) {
	if t.s.Error == "" && !t.done {
		t.s.Error = why
	}
}

func (t *tally) end() {
	s := t.s
	switch {
	case !t.last.IsZero():
		s.Latency = ms(t.last.Sub(t.due))
	default:
		s.Latency = ms(time.Since(t.due))
	}
	switch {
	case s.Error != "":
	case t.last.IsZero():
		s.Error = "stream ended without any content"
	case !t.usage:
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
