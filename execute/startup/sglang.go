package startup

import (
	"regexp"
	"strings"
)

// sglangMsgRE strips an SGLang line's time stamp ("[2026-06-28 11:20:49]"
// or "[... TP0]") and, where present, its level and source.
var sglangMsgRE = regexp.MustCompile(`^\s*(?:\[[^\]]*\]\s*)?(?:(DEBUG|INFO|WARNING|ERROR) [A-Za-z0-9_.]+:[0-9]+: )?(.*)$`)

var (
	// Before the ServerArgs line SGLang logs what it chose or changed
	// for the model and GPU ("Setting page size to 64 for DeepSeek
	// DSA."); anywhere, a message saying it ignored or dropped one.
	sglangAdjustRE = regexp.MustCompile(`^(Setting|Set|Overrid|Disabl|Enabl|Use |Using |Fall)|not specified`)
	sglangNoticeRE = regexp.MustCompile(`(?i)not supported|disabling|falling back|is ignored|ignoring|overrid`)
	sglangBusy     = []string{"The server is fired up and ready to roll", "Prefill batch", "Decode batch", `"POST /`}
)

// sglangKey are the server arguments a performance engineer reads
// first; the ServerArgs line holds about two hundred.
var sglangKey = map[string]bool{
	"model_path": true, "dtype": true, "kv_cache_dtype": true, "quantization": true,
	"context_length": true, "mem_fraction_static": true, "max_running_requests": true,
	"max_total_tokens": true, "chunked_prefill_size": true, "max_prefill_tokens": true,
	"schedule_policy": true, "schedule_conservativeness": true, "page_size": true,
	"tp_size": true, "pp_size": true, "dp_size": true, "ep_size": true,
	"disable_radix_cache": true, "attention_backend": true, "sampling_backend": true,
	"cuda_graph_max_bs": true, "disable_cuda_graph": true, "enable_torch_compile": true,
	"speculative_algorithm": true, "speculative_num_steps": true,
	"speculative_num_draft_tokens": true, "enable_mixed_chunk": true, "enable_dp_attention": true,
}

// SGLang prints its arguments as a dataclass; newer builds as a dict.
const (
	sglangArgs = "server_args=ServerArgs("
	sglangDict = "server_args={"
)

// SGLang reads SGLang's start-up lines: every field of its
// server_args=ServerArgs(...) line, the key ones marked, and the
// adjustments it logs for the model and GPU before that line.
func SGLang(lines []string) *Settings {
	s := &Settings{Engine: "sglang"}
	seen := false
	for _, l := range lines {
		if busy(l, sglangBusy) {
			break
		}
		if i, n, dict := sglangStart(l); i >= 0 && !seen {
			seen = true
			for _, p := range pairs(items(l[i+n:], false), dict) {
				s.add(Setting{Name: p.name, Value: unquote(p.value), Flag: dashed(p.name), Key: sglangKey[p.name], Line: l[i:]})
			}
			continue
		}
		msg := strings.TrimSpace(sglangMsgRE.FindStringSubmatch(l)[2])
		if msg != "" && (!seen && sglangAdjustRE.MatchString(msg) || sglangNoticeRE.MatchString(msg)) {
			s.notice(Notice{Text: msg, Flags: flagsIn(msg), Line: strings.TrimSpace(l)})
		}
	}
	return s
}

// sglangStart finds the server arguments in l: where they start, the
// length of their opening, and whether they are a dict.
func sglangStart(l string) (int, int, bool) {
	if i := strings.Index(l, sglangArgs); i >= 0 {
		return i, len(sglangArgs), false
	}
	return strings.Index(l, sglangDict), len(sglangDict), true
}
