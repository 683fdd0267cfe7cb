package i18n

import "golang.org/x/text/language"

// English is the source language: a message's key is its English text,
// except where Messages says otherwise.
var _ = register(Language{
	Code: "en", Tag: language.English, Name: "English", Rank: 0,
	// The metric keys' texts (the key itself would read "metric …").
	Messages: map[string]string{
		"metric latency.mean":       "mean latency",
		"metric latency.median":     "median latency",
		"metric latency.p99":        "P99 latency",
		"metric ttft.median":        "median TTFT",
		"metric ttft.mean":          "mean TTFT",
		"metric ttft.p99":           "P99 TTFT",
		"metric tpot.mean":          "mean TPOT",
		"metric itl.mean":           "mean ITL",
		"metric output_throughput":  "output token throughput",
		"metric request_throughput": "request throughput",
		"metric total_throughput":   "total token throughput",
		"metric tpot.p99":           "P99 TPOT",
		"metric latency.p90":        "P90 latency",
		"metric ttft.p90":           "P90 TTFT",
		"metric tpot.p90":           "P90 TPOT",
		"metric itl.p90":            "P90 ITL",
		"metric itl.p99":            "P99 ITL",
		"metric goodput":            "goodput (requests/s within the SLO)",
		"metric failed":             "share of failed requests",
		"metric capacity":           "highest request rate within the SLO",
		// A trade-off whose figure rose (a latency) or fell (a throughput).
		"tradeoff rises: %s at %s: %s → %s (%sx worse)":                          "%s at %s: %s → %s (%sx worse)",
		"tradeoff falls: %s at %s: %s → %s (%sx worse)":                          "%s at %s: %s → %s (%sx worse)",
		"tradeoff rises: %s at %s: %s → %s (%sx worse; means of %d and %d runs)": "%s at %s: %s → %s (%sx worse; means of %d and %d runs)",
		"tradeoff falls: %s at %s: %s → %s (%sx worse; means of %d and %d runs)": "%s at %s: %s → %s (%sx worse; means of %d and %d runs)",
	},
	Plurals: map[string]Plural{
		"%d runs of %s": {
			One:   "%d run of %s",
			Other: "%d runs of %s"},
		"%d runs: %s and %s": {
			One:   "%d run: %s and %s",
			Other: "%d runs: %s and %s"},
		"%d runs, 95%% interval %s to %s": {
			One:   "%d run, 95%% interval %s to %s",
			Other: "%d runs, 95%% interval %s to %s"},
		"measured on the GPU host by servelab: %d runs": {
			One:   "%d run measured on the GPU host by servelab",
			Other: "%d runs measured on the GPU host by servelab"},
		"imported from other tools' output: %d runs": {
			One:   "%d run imported from other tools' output",
			Other: "%d runs imported from other tools' output"},
		"simulated by servelab-sim: %d runs": {
			One:   "%d run simulated by servelab-sim",
			Other: "%d runs simulated by servelab-sim"},
		"not decided: %d planned trials have no record, and %d more wait on the decisions they make": {
			One:   "not decided: %d planned trial has no record, and %d more wait on the decisions it makes",
			Other: "not decided: %d planned trials have no record, and %d more wait on the decisions they make"},
		"not decided: %d planned trials have no record": {
			One:   "not decided: %d planned trial has no record",
			Other: "not decided: %d planned trials have no record"},
		"prefix repetition: %d random prefixes of %d tokens, each request one of them and %d tokens of its own, %d output tokens": {
			One:   "prefix repetition: %d random prefix of %d tokens, each request that prefix and %d tokens of its own, %d output tokens",
			Other: "prefix repetition: %d random prefixes of %d tokens, each request one of them and %d tokens of its own, %d output tokens"},
		"Each profile starts with %d warm-up requests, which are not measured.": {
			One:   "Each profile starts with %d warm-up request, which is not measured.",
			Other: "Each profile starts with %d warm-up requests, which are not measured."},
		"Each trial is repeated %d times.": {
			One:   "Each trial runs %d time.",
			Other: "Each trial is repeated %d times."},
	},
	Terms: map[string]string{},
})
