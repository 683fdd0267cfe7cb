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
)
