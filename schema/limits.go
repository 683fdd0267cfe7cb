package schema

// Limits bound every number a study or a servelab bench flag can give,
// so that no input runs servelab out of memory or time: each request
// keeps a sample in memory and in its record, each token id of a random
// prompt is in memory while it is sent. study.cue states the same
// bounds; TestLimitsMatchSchema keeps the two equal.
const (
	MaxRequests    = 1_000_000 // measured requests of one profile
	MaxWarmup      = 100_000
	MaxConcurrency = 100_000
	MaxRate        = 1_000_000 // requests per second
	MinBurstiness  = 0.01      // gamma shape of Poisson-like gaps
	MaxBurstiness  = 100
	MaxTokens      = 1 << 20 // prompt, prefix and output lengths
	MaxTimeout     = 86400   // seconds, per request
	MaxRepeats     = 100
	// MaxRunTokens bounds the output tokens of one profile's run
	// (requests × the longest output): each token's arrival gap is kept
	// in memory and in the samples, 8 bytes each.
	MaxRunTokens = 100_000_000
	// ShareGPTMaxOutput is the longest output a ShareGPT entry can ask
	// for (vLLM's filter: prompt plus output at most 2048 tokens).
	ShareGPTMaxOutput = 2048
)

// MaxOutput is the longest output one request of the benchmark can ask.
func (b Benchmark) MaxOutput() int {
	switch {
	case b.Output.MaxTokens > 0:
		return b.Output.MaxTokens
	case b.Dataset.Name == "random":
		return int(float64(b.Dataset.OutputLen)*(1+b.Dataset.RangeRatio)) + 1
	}
	return ShareGPTMaxOutput
}
