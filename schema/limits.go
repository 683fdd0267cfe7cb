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
	// TraceMaxOutput caps the output of one request of a trace or a
	// conversation file (a row asking more is sent with this budget).
	TraceMaxOutput = 8192
)

// MaxOutput is the longest output one request of the benchmark's own
// dataset can ask.
func (b Benchmark) MaxOutput() int { return b.MaxOutputFor(b.Dataset) }

// MaxOutputFor is the longest output one request from ds can ask; a
// trace's or conversation file's own lengths are only known when it is
// read, where the run caps them at TraceMaxOutput.
func (b Benchmark) MaxOutputFor(ds Dataset) int {
	switch {
	case b.Output.MaxTokens > 0:
		return b.Output.MaxTokens
	case ds.Name == "random":
		return int(float64(ds.OutputLen)*(1+ds.RangeRatio)) + 1
	case ds.Name == "prefix-repetition":
		return ds.OutputLen
	case ds.Name == "mooncake" || ds.Name == "conversations":
		return TraceMaxOutput
	}
	return ShareGPTMaxOutput
}
