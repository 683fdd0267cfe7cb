package llamacpp

// serverDefault is what llama-server takes for a flag left out: value
// as written on the command line, or, where no written value equals
// leaving the flag out, a note saying why.
type serverDefault struct{ value, note string }

// defaultsFrom is the file the defaults below were read in, at the
// table's commit: the initial values of common_params.
const defaultsFrom = "common/common.h"

// serverDefaults are read by hand from common/common.h at the pinned
// commit, and checked against the parser's per-example overrides
// (common_params_parser_init in common/arg.cpp) and the handlers: a
// default is recorded only where it is a literal there and writing it
// changes nothing else. The generator cannot read them itself: the
// struct's fields are named apart from the flags, and the overrides and
// side effects are code.
var serverDefaults = map[string]serverDefault{
	"batch-size":          {value: "2048"}, // n_batch = 2048
	"ubatch-size":         {value: "512"},  // n_ubatch = 512
	"cache-ram":           {value: "8192"}, // cache_ram_mib = 8192
	"cache-type-k":        {value: "f16"},  // cache_type_k = GGML_TYPE_F16, named "f16"
	"cache-type-v":        {value: "f16"},  // cache_type_v = GGML_TYPE_F16
	"flash-attn":          {value: "auto"}, // flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO
	"cont-batching":       {value: "true"}, // cont_batching = true
	"cache-prompt":        {value: "true"}, // cache_prompt = true
	"kv-unified-per-slot": {value: "0"},    // kv_unified_per_slot = 0, unset
	"parallel": {note: "-1 for llama-server (common_params_parser_init): the slot count is chosen at start, " +
		"so no count written equals leaving it out"},
	"ctx-size": {note: "0, the model's trained context, in common/common.h; but writing 0 also turns off " +
		"the context reduction of llama_params_fit (the flag's handler), so no value written equals leaving it out"},
	"kv-unified": {note: "false in common/common.h, but llama-server turns it on when the slot count is automatic"},
}
