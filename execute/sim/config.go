package sim

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Config is the simulated engine: what its command line says, the timing
// model's constants and the faults to inject.
type Config struct {
	Kind, Model, Host string
	Port              int
	Slots             int
	SpecTokens        int // drafted tokens per step
	FP8               bool
	KVFP8             bool
	PrefixCache       bool
	// CacheBlocks is the prefix cache's size in blocks of 16 tokens;
	// ReportCached puts each request's cached tokens in its usage, as
	// vLLM does with --enable-prompt-tokens-details and SGLang with
	// --enable-cache-report.
	CacheBlocks  int
	ReportCached bool
	Step, PerSeq time.Duration
	Prefill      time.Duration // per prompt token
	Faults       Faults
	Flags        map[string]string
	// DevMode serves vLLM's development endpoints (its prefix-cache
	// reset), as VLLM_SERVER_DEV_MODE=1 does; Devices is the GPUs the
	// launcher gave (CUDA_VISIBLE_DEVICES), printed at start-up.
	DevMode bool
	Devices string
	// Clock waits for the engine's steps; nil is Wall.
	Clock Clock
}

// Faults are what the simulated engine does wrong: crash at start, never
// become healthy, start slowly, answer HTTP 500, cut or stall streams (a
// share of requests each), die after some requests, or stream one line
// that never ends.
type Faults struct {
	Crash, Unhealthy    bool
	SlowStart           time.Duration
	HTTP500, Cut, Stall float64
	ExitAfter           int // exit (as a crash) after this many requests
	EndlessLine         bool
}

// switches are the engine flags that take no value.
var switches = map[string]bool{
	"enable-prefix-caching": true, "no-enable-prefix-caching": true, "language-model-only": true,
	"enable-torch-compile": true, "disable-radix-cache": true, "enforce-eager": true,
	"trust-remote-code": true, "disable-cuda-graph": true, "enable-mixed-chunk": true, "async-scheduling": true,
	"enable-prompt-tokens-details": true, "enable-cache-report": true,
}

// defaultCacheTokens is the simulated KV cache's room for cached
// prefixes at vLLM's default --gpu-memory-utilization 0.9 and 16-bit
// KV: 128 Ki tokens, some 18 GiB of an 8B model's KV cache.
const defaultCacheTokens = 128 << 10

// Parse reads an engine command line (vllm serve, sglang.launch_server,
// trtllm-serve) with the timing model's constants ("step=6ms,
// per-seq=50us,prefill=20us") and the faults to inject ("crash",
// "http500=0.1", ...), each "" for none.
func Parse(args []string, timing, faults string) (*Config, error) {
	c := &Config{Host: "127.0.0.1", Port: 8000, Step: 6 * time.Millisecond, PerSeq: 50 * time.Microsecond,
		Prefill: 20 * time.Microsecond, Flags: map[string]string{}}
	rest, err := c.engine(args)
	if err != nil {
		return nil, err
	}
	if err := c.flags(rest); err != nil {
		return nil, err
	}
	if err := c.apply(); err != nil {
		return nil, err
	}
	if c.Model == "" {
		return nil, fmt.Errorf("no model in %q", strings.Join(args, " "))
	}
	if err := c.timing(timing); err != nil {
		return nil, err
	}
	if err := c.faults(faults); err != nil {
		return nil, err
	}
	return c, c.bounds()
}

// bounds keeps every number the simulator was given in the range its
// model and the OS accept.
func (c *Config) bounds() error {
	switch {
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("--port %d: want 1 to 65535, or 0 for one the kernel picks (printed on stderr)", c.Port)
	case c.Slots > 1<<20:
		return fmt.Errorf("--max-num-seqs %d: at most %d", c.Slots, 1<<20)
	case c.CacheBlocks > 1<<26:
		return fmt.Errorf("prefix cache of %d blocks: at most %d", c.CacheBlocks, 1<<26)
	case c.SpecTokens > 64:
		return fmt.Errorf("speculative tokens %d: at most 64", c.SpecTokens)
	}
	for _, d := range []time.Duration{c.Step, c.PerSeq, c.Prefill, c.Faults.SlowStart} {
		if d < 0 || d > time.Hour {
			return fmt.Errorf("duration %s: want 0 to 1h", d)
		}
	}
	for _, p := range []float64{c.Faults.HTTP500, c.Faults.Cut, c.Faults.Stall} {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("SERVELAB_SIM_FAULT: probability %v: want 0 to 1", p)
		}
	}
	if c.Faults.ExitAfter < 0 {
		return fmt.Errorf("SERVELAB_SIM_FAULT exit-after=%d: want 0 or more", c.Faults.ExitAfter)
	}
	return nil
}

// engine recognises the launch words of each engine kind.
func (c *Config) engine(args []string) ([]string, error) {
	switch {
	case len(args) >= 3 && args[0] == "vllm" && args[1] == "serve":
		c.Kind, c.Model = "vllm", args[2]
		c.PrefixCache = true // vLLM V1 caches prefixes by default
		return args[3:], nil
	case len(args) >= 3 && args[0] == "python3" && args[1] == "-m" && args[2] == "sglang.launch_server":
		c.Kind, c.PrefixCache = "sglang", true
		return args[3:], nil
	case len(args) >= 2 && args[0] == "trtllm-serve":
		c.Kind, c.Model = "trtllm", args[1]
		return args[2:], nil
	case len(args) >= 1 && !strings.HasPrefix(args[0], "-"):
		c.Kind, c.Model = "custom", args[0]
		return args[1:], nil
	}
	return nil, fmt.Errorf("want `vllm serve MODEL`, `python3 -m sglang.launch_server --model-path MODEL`, `trtllm-serve MODEL` or `MODEL`, got %q", strings.Join(args, " "))
}

// flags reads --k=v, --k v and switches, normalising _ to -.
func (c *Config) flags(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return fmt.Errorf("unexpected argument %q", a)
		}
		name, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		name = strings.ReplaceAll(name, "_", "-") // TensorRT-LLM spells flags with _
		if hasValue {
			c.Flags[name] = v
			continue
		}
		if switches[name] || strings.HasPrefix(name, "O") || i+1 == len(args) || strings.HasPrefix(args[i+1], "--") {
			c.Flags[name] = "true"
			continue
		}
		c.Flags[name] = args[i+1]
		i++
	}
	return nil
}

// apply reads the flags that change the timing model.
func (c *Config) apply() error {
	f := c.Flags
	if v, ok := f["model-path"]; ok {
		c.Model = v
	}
	if v, ok := f["model"]; ok && c.Model == "" {
		c.Model = v
	}
	var err error
	if v, ok := f["port"]; ok {
		// 0 is allowed (bounds says so): tests bind where the kernel picks.
		if c.Port, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("--port %q: want a port number", v)
		}
	}
	if h, ok := f["host"]; ok {
		c.Host = h
	}
	if c.Slots, err = intFlag(f, 256, "max-num-seqs", "max-running-requests", "max-batch-size"); err != nil {
		return err
	}
	c.FP8 = strings.Contains(strings.ToUpper(c.Model), "FP8") || f["quantization"] == "fp8"
	c.KVFP8 = strings.HasPrefix(f["kv-cache-dtype"], "fp8")
	switch {
	case f["enable-prefix-caching"] == "true":
		c.PrefixCache = true
	case f["no-enable-prefix-caching"] == "true", f["disable-radix-cache"] == "true":
		c.PrefixCache = false
	}
	if err := c.cacheSize(); err != nil {
		return err
	}
	return c.speculative()
}

// cacheSize sizes the prefix cache from the flags that size the KV cache:
// vLLM's --num-gpu-blocks-override (blocks) or SGLang's --max-total-tokens
// when given, else the default scaled by vLLM's --gpu-memory-utilization
// (against 0.9) and doubled by an FP8 KV cache.
func (c *Config) cacheSize() error {
	f := c.Flags
	c.ReportCached = f["enable-prompt-tokens-details"] == "true" || f["enable-cache-report"] == "true"
	if _, ok := f["num-gpu-blocks-override"]; ok {
		n, err := intFlag(f, 0, "num-gpu-blocks-override")
		c.CacheBlocks = n
		return err
	}
	if _, ok := f["max-total-tokens"]; ok {
		n, err := intFlag(f, 0, "max-total-tokens")
		c.CacheBlocks = n / blockTokens
		return err
	}
	tokens := float64(defaultCacheTokens)
	if v, ok := f["gpu-memory-utilization"]; ok {
		u, err := strconv.ParseFloat(v, 64)
		if err != nil || !(u > 0 && u <= 1) {
			return fmt.Errorf("--gpu-memory-utilization %q: want a number in (0, 1]", v)
		}
		tokens *= u / 0.9
	}
	if c.KVFP8 {
		tokens *= 2
	}
	c.CacheBlocks = int(tokens) / blockTokens
	return nil
}

func (c *Config) speculative() error {
	if js, ok := c.Flags["speculative-config"]; ok {
		var sc struct {
			N int `json:"num_speculative_tokens"`
		}
		if err := json.Unmarshal([]byte(js), &sc); err != nil {
			return fmt.Errorf("--speculative-config: %w", err)
		}
		c.SpecTokens = max(1, sc.N)
	}
	if _, ok := c.Flags["speculative-algorithm"]; ok {
		n, err := intFlag(c.Flags, 4, "speculative-num-draft-tokens", "speculative-num-steps")
		if err != nil {
			return err
		}
		c.SpecTokens = n
	}
	return nil
}

func intFlag(f map[string]string, def int, names ...string) (int, error) {
	for _, n := range names {
		if v, ok := f[n]; ok {
			x, err := strconv.Atoi(v)
			if err != nil || x <= 0 {
				return 0, fmt.Errorf("--%s %q: want a positive integer", n, v)
			}
			return x, nil
		}
	}
	return def, nil
}

func (c *Config) timing(spec string) error {
	for _, kv := range fields(spec) {
		k, v, _ := strings.Cut(kv, "=")
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("SERVELAB_SIM_TIMING %s: %w", kv, err)
		}
		switch k {
		case "step":
			c.Step = d
		case "per-seq":
			c.PerSeq = d
		case "prefill":
			c.Prefill = d
		default:
			return fmt.Errorf("SERVELAB_SIM_TIMING: unknown %q (want step, per-seq, prefill)", k)
		}
	}
	return nil
}

func (c *Config) faults(spec string) error {
	for _, kv := range fields(spec) {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "crash":
			c.Faults.Crash = true
		case "unhealthy":
			c.Faults.Unhealthy = true
		case "slow-start":
			c.Faults.SlowStart, err = time.ParseDuration(v)
		case "http500":
			c.Faults.HTTP500, err = strconv.ParseFloat(v, 64)
		case "cut":
			c.Faults.Cut, err = strconv.ParseFloat(v, 64)
		case "stall":
			c.Faults.Stall, err = strconv.ParseFloat(v, 64)
		case "endless-line":
			c.Faults.EndlessLine = true
		case "exit-after":
			c.Faults.ExitAfter, err = strconv.Atoi(v)
		default:
			return fmt.Errorf("SERVELAB_SIM_FAULT: unknown fault %q", k)
		}
		if err != nil {
			return fmt.Errorf("SERVELAB_SIM_FAULT %s: %w", kv, err)
		}
	}
	return nil
}

func fields(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// word is the text of every generated token. A real engine's greedy
// output changes under lower precision for some prompts, not others: the
// simulator answers a fixed share of prompts differently when the
// weights (a quarter of them) or the KV cache (an eighth) are FP8, so a
// study's quality guard has something to measure.
func (c *Config) word(prompt []string) string {
	h := fnv.New32a()
	for _, w := range prompt {
		h.Write([]byte(w))
		h.Write([]byte{' '})
	}
	b := h.Sum32() % 8
	if c.FP8 && b < 2 || c.KVFP8 && b == 7 {
		return "tuk "
	}
	return "tok "
}
