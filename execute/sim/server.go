package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a simulated engine behind the OpenAI-compatible HTTP API the
// engines serve: health, models, tokenize, completions and chat
// completions (streamed or whole), Prometheus metrics, and the prefix
// cache's reset.
type Server struct {
	cfg     *Config
	eng     *engine
	ready   atomic.Bool
	counter atomic.Int64
	resets  atomic.Int64
	fatal   func(msg string)
	stop    sync.Once
}

// CrashMessage is what a real engine prints before dying of the crash
// fault, so the launcher's log tail has something to show.
const CrashMessage = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (simulated crash)"

// New starts c's engine loop. It becomes healthy after the slow-start
// fault, never with the unhealthy one; fatal is called with what a real
// engine prints when the exit-after fault kills it, and must not return.
func New(c *Config, fatal func(msg string)) *Server {
	s := &Server{cfg: c, eng: newEngine(c), fatal: fatal}
	go s.eng.loop()
	go func() {
		time.Sleep(c.Faults.SlowStart)
		s.ready.Store(!c.Faults.Unhealthy)
	}()
	return s
}

// Close stops the engine's loop and returns once it has: requests in
// flight end where they are, without their last event.
func (s *Server) Close() {
	s.stop.Do(func() { close(s.eng.done) })
	<-s.eng.gone
}

// Ready reports whether the engine answers its health check.
func (s *Server) Ready() bool { return s.ready.Load() }

// Banner is the start-up line, naming the address it listens on.
func (s *Server) Banner(addr net.Addr) string {
	c := s.cfg
	return fmt.Sprintf("servelab-sim: %s %s on http://%s (slots %d, speculative %d, fp8 %v, prefix cache %v of %d blocks, CUDA_VISIBLE_DEVICES=%q)",
		c.Kind, c.Model, addr, c.Slots, c.SpecTokens, c.FP8, c.PrefixCache, c.CacheBlocks, c.Devices)
}

// Handler serves the engine's HTTP API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", s.health)
	mux.HandleFunc("/v1/models", s.models)
	mux.HandleFunc("/metrics", s.metrics)
	mux.HandleFunc("/tokenize", s.tokenize)
	mux.HandleFunc("/v1/completions", s.complete)
	mux.HandleFunc("/v1/chat/completions", s.complete)
	// The engines' prefix-cache reset endpoints: vLLM serves its own only
	// in development mode, as the real server does.
	if s.cfg.Kind == "sglang" {
		mux.HandleFunc("POST /flush_cache", s.resetCache)
	} else if s.cfg.DevMode {
		mux.HandleFunc("POST /reset_prefix_cache", s.resetCache)
	}
	return mux
}

// resetCache empties the prefix cache and counts resets.
func (s *Server) resetCache(w http.ResponseWriter, _ *http.Request) {
	s.eng.resetCache()
	s.resets.Add(1)
	w.WriteHeader(http.StatusOK)
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	if !s.ready.Load() {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"object": "list", "data": []map[string]any{{"id": s.cfg.Model, "object": "model", "owned_by": "servelab-sim"}}})
}

// metrics exposes, in the Prometheus text format, the gauges and
// counters of vLLM's V1 engine that servelab scrapes (same names and
// meanings), and the simulator's own counters for tests.
func (s *Server) metrics(w http.ResponseWriter, _ *http.Request) {
	e := s.eng
	e.mu.Lock()
	running, waiting, kv, st, peak := len(e.running), len(e.waiting), e.kvUsage(), e.stats, e.peak
	e.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	lbl := `{engine="0",model_name=` + strconv.Quote(s.cfg.Model) + `}`
	metric := func(name, typ, help string, v float64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s%s %s\n", name, help, name, typ, name, lbl, strconv.FormatFloat(v, 'g', -1, 64))
	}
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", float64(running))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", float64(waiting))
	metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", kv)
	metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", float64(st.prefixQueries))
	metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", float64(st.prefixHits))
	if s.cfg.SpecTokens > 0 {
		metric("vllm:spec_decode_num_drafts_total", "counter", "Number of spec decoding drafts.", float64(st.drafts))
		metric("vllm:spec_decode_num_draft_tokens_total", "counter", "Number of draft tokens.", float64(st.draftTokens))
		metric("vllm:spec_decode_num_accepted_tokens_total", "counter", "Number of accepted tokens.", float64(st.acceptedTokens))
	}
	fmt.Fprintf(w, "servelab_sim_peak_running %d\nservelab_sim_requests_total %d\nservelab_sim_cache_resets_total %d\n", peak, s.counter.Load(), s.resets.Load())
}

// tokens is the simulator's tokenizer: whitespace-separated words.
func tokens(text string) []string { return strings.Fields(text) }

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Prompt string `json:"prompt"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t := tokens(req.Prompt)
	ids := make([]int, len(t))
	for i := range ids {
		ids[i] = i + 1
	}
	writeJSON(w, map[string]any{"count": len(t), "tokens": ids, "max_model_len": 32768})
}

// request is the part of a completion request the simulator reads.
type request struct {
	Model     string            `json:"model"`
	Prompt    json.RawMessage   `json:"prompt"`
	Messages  []json.RawMessage `json:"messages"`
	MaxTokens int               `json:"max_tokens"`
	// MaxCompletion is the current OpenAI name; it wins, as in vLLM.
	MaxCompletion int  `json:"max_completion_tokens"`
	Stream        bool `json:"stream"`
	Options       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (r *request) prompt() []string {
	var text string
	if json.Unmarshal(r.Prompt, &text) == nil {
		return tokens(text)
	}
	var ids []int
	if json.Unmarshal(r.Prompt, &ids) == nil {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = strconv.Itoa(id)
		}
		return out
	}
	var words []string
	for _, m := range r.Messages {
		var msg struct {
			Content string `json:"content"`
		}
		json.Unmarshal(m, &msg)
		words = append(words, tokens(msg.Content)...)
	}
	return words
}

// hit decides deterministically whether request n has a fault that
// strikes a fraction f of requests.
func hit(n int64, f float64) bool {
	return f > 0 && int64(float64(n+1)*f) > int64(float64(n)*f)
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	n := s.counter.Add(1) - 1
	if x := s.cfg.Faults.ExitAfter; x > 0 && n >= int64(x) {
		s.fatal("RuntimeError: CUDA error: an illegal memory access was encountered (simulated)")
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request: `+err.Error()+`"}}`, http.StatusBadRequest)
		return
	}
	switch {
	case !s.ready.Load():
		http.Error(w, "engine not ready", http.StatusServiceUnavailable)
		return
	case hit(n, s.cfg.Faults.HTTP500):
		http.Error(w, `{"error":{"message":"simulated internal error"}}`, http.StatusInternalServerError)
		return
	case req.Model != s.cfg.Model:
		http.Error(w, `{"error":{"message":"model `+req.Model+` does not exist"}}`, http.StatusNotFound)
		return
	}
	if !req.Stream {
		s.whole(w, r, &req, n)
		return
	}
	s.stream(w, r, &req, n)
}

// whole answers a request without streaming (the quality guard's greedy
// decode): the same engine time, one JSON body at the end.
func (s *Server) whole(w http.ResponseWriter, r *http.Request, req *request, n int64) {
	sq := s.start(req)
	defer close(sq.cancel)
	sent := 0
	for k := range sq.out {
		sent += k
	}
	text := strings.Repeat(s.cfg.word(sq.prompt), sent)
	choice := map[string]any{"index": 0, "text": text, "finish_reason": "length"}
	object := "text_completion"
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		choice = map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": text}, "finish_reason": "length"}
		object = "chat.completion"
	}
	writeJSON(w, map[string]any{"id": "cmpl-sim-" + strconv.FormatInt(n, 10), "object": object, "model": s.cfg.Model,
		"choices": []any{choice}, "usage": s.usage(sq, sent)})
}

// usage is a request's usage object, with its cached prompt tokens when
// the engine's flag asks for them.
func (s *Server) usage(sq *seq, sent int) map[string]any {
	u := map[string]any{"prompt_tokens": len(sq.prompt), "completion_tokens": sent, "total_tokens": len(sq.prompt) + sent}
	if s.cfg.ReportCached {
		u["prompt_tokens_details"] = map[string]int{"cached_tokens": sq.cached}
	}
	return u
}

// start submits a request's sequence to the engine; the caller closes
// its cancel channel when done with it.
func (s *Server) start(req *request) *seq {
	max := req.MaxTokens
	if req.MaxCompletion > 0 {
		max = req.MaxCompletion
	}
	if max <= 0 {
		max = 16
	}
	sq := &seq{prompt: req.prompt(), maxTokens: max, out: make(chan int, max+1), cancel: make(chan struct{})}
	s.eng.submit(sq)
	return sq
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, req *request, n int64) {
	sq := s.start(req)
	defer close(sq.cancel)
	prompt := sq.prompt
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	id := "cmpl-sim-" + strconv.FormatInt(n, 10)
	if s.cfg.Faults.EndlessLine {
		endless(w, fl, r)
		return
	}
	if chat {
		writeEvent(w, fl, chunk(id, s.cfg.Model, chat, "", true))
	}
	// Every content chunk is the same JSON around its text: built once,
	// so the simulator's cost per chunk is the write, not the encoding.
	head, tail := chunkFrame(id, s.cfg.Model, chat)
	buf := make([]byte, 0, len(head)+len(tail)+64)
	word := s.cfg.word(prompt)
	sent := 0
	for k := range sq.out {
		sent += k
		switch {
		case hit(n, s.cfg.Faults.Cut) && sent > sq.maxTokens/2:
			panic(http.ErrAbortHandler) // drop the connection mid-stream
		case hit(n, s.cfg.Faults.Stall) && sent > sq.maxTokens/2:
			<-r.Context().Done()
			return
		}
		buf = append(append(buf[:0], "data: "...), head...)
		for range k {
			buf = append(buf, word...)
		}
		buf = append(append(buf, tail...), "\n\n"...)
		// A client gone frees its slot, as the engines abort a request
		// whose connection closed.
		if _, err := w.Write(buf); err != nil || r.Context().Err() != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
	if req.Options != nil && req.Options.IncludeUsage {
		u := map[string]any{"id": id, "object": "chat.completion.chunk", "model": s.cfg.Model, "choices": []any{}, "usage": s.usage(sq, sent)}
		b, _ := json.Marshal(u)
		writeEvent(w, fl, b)
	}
	writeEvent(w, fl, []byte("[DONE]"))
}

// endless writes one data line that never ends, until the client goes.
func endless(w http.ResponseWriter, fl http.Flusher, r *http.Request) {
	w.Write([]byte(`data: {"choices":[{"text":"`))
	block := []byte(strings.Repeat("x", 32<<10))
	for r.Context().Err() == nil {
		if _, err := w.Write(block); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

func chunk(id, model string, chat bool, text string, role bool) []byte {
	var c map[string]any
	if chat {
		delta := map[string]any{"content": text}
		if role {
			delta["role"] = "assistant"
		}
		c = map[string]any{"id": id, "object": "chat.completion.chunk", "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}}
	} else {
		c = map[string]any{"id": id, "object": "text_completion", "model": model,
			"choices": []any{map[string]any{"index": 0, "text": text, "finish_reason": nil}}}
	}
	b, _ := json.Marshal(c)
	return b
}

// chunkFrame is a content chunk's JSON split where its text goes.
func chunkFrame(id, model string, chat bool) (head, tail []byte) {
	const mark = "\x00text\x00"
	b := chunk(id, model, chat, mark, false)
	i := bytes.Index(b, []byte(`\u0000text\u0000`))
	return b[:i], b[i+len(`\u0000text\u0000`):]
}

func writeEvent(w http.ResponseWriter, fl http.Flusher, data []byte) {
	w.Write([]byte("data: "))
	w.Write(data)
	w.Write([]byte("\n\n"))
	if fl != nil {
		fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
