package startup

import (
	"regexp"
	"slices"
	"strings"
)

// llamaLineRE splits a llama-server log line: an optional time stamp and
// level (-lv 3 prints "0.02.277.873 I"), an optional subsystem ("srv"),
// the function, and the message.
var llamaLineRE = regexp.MustCompile(`^(?:[0-9]+\.[0-9.]+ ([DIWE]) )?\s*(?:([a-z]{2,5})\s+)?([A-Za-z_][A-Za-z0-9_]*): (.*)$`)

// llamaNames are the names llama-server prints as "name = value" that
// this package knows, with the flag that sets each ("" for a figure it
// derives). Names not here are not reported.
var llamaNames = map[string]string{
	"n_slots":             "--parallel",
	"n_parallel":          "--parallel",
	"n_seq_max":           "--parallel",
	"kv_unified_per_slot": "--kv-unified-per-slot",
	"n_ctx_slot":          "",
	"n_ctx_seq":           "",
	"n_ctx_per_seq":       "",
	"kv_unified":          "--kv-unified",
	"n_threads":           "--threads",
	"n_threads_batch":     "--threads-batch",
	"n_ctx":               "--ctx-size",
	"n_batch":             "--batch-size",
	"n_ubatch":            "--ubatch-size",
	"flash_attn":          "--flash-attn",
}

var (
	llamaModelRE  = regexp.MustCompile(`^loading model '([^']+)'$`)
	llamaPoolRE   = regexp.MustCompile(`sizing KV pool to n_parallel \* kv_unified_per_slot = ([0-9]+) \* ([0-9]+) = ([0-9]+)$`)
	llamaKVRE     = regexp.MustCompile(`, K \(([a-z0-9_]+)\): .*, V \(([a-z0-9_]+)\): `)
	llamaLayersRE = regexp.MustCompile(`^offloaded ([0-9]+/[0-9]+) layers to GPU$`)
	llamaEqRE     = regexp.MustCompile(`^([a-z_]+)\s*=\s*(-?[0-9][0-9.]*|'[a-z0-9_]*'|[a-z0-9_]+)$`)
	// A notice names a flag and says what became of it.
	llamaNoticeRE = regexp.MustCompile(`requires|disabling|ignored|ignoring|not supported|capping|clamp|overrid|falling back`)
)

// llamaBusy are the functions that log a request: the start-up is over.
var llamaBusy = []string{"get_availabl", "launch_slot_", "params_from_", "log_server_r", "update_slots"}

// LlamaCpp reads llama-server's start-up lines: the model, the slots,
// the context per slot and the KV pool, the threads, and (in builds
// that print them at this verbosity) the llama_context figures and the
// KV cache types; and its notices that a flag was capped or dropped.
func LlamaCpp(lines []string) *Settings {
	s := &Settings{Engine: "llamacpp"}
	for _, l := range lines {
		m := llamaLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if slices.Contains(llamaBusy, m[3]) {
			break
		}
		s.llamaLine(m[4], stripStamp(l))
	}
	return s
}

func (s *Settings) llamaLine(msg, line string) {
	set := func(name, value, flag string) {
		s.add(Setting{Name: name, Value: unquote(value), Flag: flag, Key: true, Line: line})
	}
	if f := flagsIn(msg); len(f) > 0 && llamaNoticeRE.MatchString(msg) && !strings.Contains(msg, "sizing KV pool") {
		s.notice(Notice{Text: msg, Flags: f, Line: line})
	}
	if m := llamaModelRE.FindStringSubmatch(msg); m != nil {
		set("model", m[1], "--model")
	}
	if m := llamaPoolRE.FindStringSubmatch(msg); m != nil {
		set("n_parallel", m[1], "--parallel")
		set("kv_unified_per_slot", m[2], "--kv-unified-per-slot")
		set("kv_pool", m[3], "")
	}
	if m := llamaKVRE.FindStringSubmatch(msg); m != nil {
		set("type_k", m[1], "--cache-type-k")
		set("type_v", m[2], "--cache-type-v")
	}
	if m := llamaLayersRE.FindStringSubmatch(msg); m != nil {
		set("offloaded_layers", m[1], "--n-gpu-layers")
	}
	for _, part := range strings.Split(msg, ", ") {
		m := llamaEqRE.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			continue
		}
		if flag, ok := llamaNames[m[1]]; ok {
			set(m[1], m[2], flag)
		}
	}
}

var llamaStampRE = regexp.MustCompile(`^[0-9]+\.[0-9.]+ `)

// stripStamp is a line without its time stamp and with single spaces:
// the same line of two runs reads the same.
func stripStamp(l string) string {
	return strings.Join(strings.Fields(llamaStampRE.ReplaceAllString(l, "")), " ")
}

// llamaServing reports a line of llama-server serving a request.
func llamaServing(l string) bool {
	m := llamaLineRE.FindStringSubmatch(l)
	return m != nil && slices.Contains(llamaBusy, m[3])
}

// notice adds n unless the same message is there already.
func (s *Settings) notice(n Notice) {
	for _, old := range s.Notices {
		if old.Text == n.Text {
			return
		}
	}
	s.Notices = append(s.Notices, n)
}
