package report

import (
	"fmt"
	"math"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// method is the folded part that says how the figures were made: the
// objective, the setup, the client and load, the statistics.
func (b *builder) method() []d.Block {
	var k sink
	s := b.s
	bm := s.Benchmark
	b.objective(&k)
	b.setup(&k)
	k.h(3, "method", d.M("Benchmark method"))
	// A client is named by the command a reader would type ("vllm bench
	// serve v0.11.0"), not by the study's id for it ("vllm-bench").
	var client d.Text = d.Code(strings.TrimSpace(peerOf(bm.Client.Name, "").Name + " " + bm.Client.Version))
	_, known := peerTables[bm.Client.Name]
	switch {
	case bm.Client.Name == "builtin":
		client = d.M("servelab's own load generator")
	case !known:
		client = d.Code(strings.TrimSpace(bm.Client.Name + " " + bm.Client.Version))
	}
	var own []d.Block
	shared := false
	for _, name := range b.profilesUsed() {
		if p := s.Profiles[name]; p.Dataset != nil {
			own = append(own, d.Para{Text: d.M("Profile %s: %s.", ProfileTitle(s, name), datasetText(s.DatasetOf(p), bm))})
		} else {
			shared = true
		}
	}
	if shared {
		k.add(d.Para{Text: d.M("Client: %s, driving the %s endpoint with streamed responses. Dataset: %s.", client, d.Code(endpoint(bm.API)), datasetText(bm.Dataset, bm))})
	} else {
		k.add(d.Para{Text: d.M("Client: %s, driving the %s endpoint with streamed responses.", client, d.Code(endpoint(bm.API)))})
	}
	k.add(own...)
	// Fixed lengths are said in the conclusion, where the latencies are.
	if n, same, ok := b.meanOutput(); ok && !bm.Output.IgnoreEOS && same == 0 {
		k.add(d.Para{Text: d.M("The requests generated %s output tokens each on average (the records' totals over their completed requests): latencies here are for answers of that length.", d.Num{V: n, Prec: 0})})
	}
	if bm.Warmup > 0 {
		k.add(d.Para{Text: d.M("Each profile starts with %d warm-up requests, which are not measured.", bm.Warmup)})
	}
	switch {
	case bm.Repeats.Adaptive():
		k.add(d.Para{Text: d.M("Each trial runs at least %d times and up to %d: while a comparison is still open, each side gets one more run.", bm.Repeats.Min, bm.Repeats.Max)})
	case bm.Repeats.Min > 1:
		k.add(d.Para{Text: d.M("Each trial is repeated %d times.", bm.Repeats.Min)})
	}
	b.capacityMethod(&k)
	b.rule(&k)
	k.h(4, "profiles", d.M("Benchmark profiles"))
	for _, name := range b.profilesUsed() {
		k.h(5, "profile-"+name, ProfileTitle(s, name))
		k.add(d.CodeBlock{Lang: "yaml", Body: profileYAML(s, name)})
	}
	k.h(4, "reproduce", d.M("Reproducing the benchmark"))
	peer := peerOf(bm.Client.Name, bm.Client.Version)
	key := "Under each run in the appendix, a command for %s repeats that run's kind of load without servelab (the same length limits, rate or concurrency and request count; the prompts it draws, and so the lengths a model stops at, may differ), against an engine started with the run's serving command. Its flags are checked against the argument parser of %s at commit %s."
	if bm.Output.IgnoreEOS {
		// Every answer runs to its length limit: only the prompts differ.
		key = "Under each run in the appendix, a command for %s repeats that run's kind of load without servelab (the same length limits, rate or concurrency and request count; the prompts it draws may differ), against an engine started with the run's serving command. Its flags are checked against the argument parser of %s at commit %s."
	}
	if b.unpinned() {
		client := peer.Name
		peer = peerOf("vllm-bench", "")
		k.add(d.Para{Text: d.M("Every run produced the same number of output tokens, so the runs' client, %s, gave each response a set length, in a way its command line cannot repeat with the ShareGPT file. Under each run in the appendix, a command for %s repeats that run's kind of load without servelab: with %s it gives each request the length of its ShareGPT reply, the rate or concurrency and the request count are the run's, and the prompts it draws may differ, so the mean length may too. The two clients time TPOT and ITL differently: compare mean latency and TTFT with this page, not those. Its flags are checked against the argument parser of %s at commit %s.",
			d.Code(client), d.Code(peer.Name+" "+peer.Version), d.Code("--ignore-eos"), d.Code(peer.Table.Source), d.Code(peer.Table.Commit[:12]))})
		return k
	}
	k.add(d.Para{Text: d.M(key, d.Code(peer.Name+" "+peer.Version), d.Code(peer.Table.Source), d.Code(peer.Table.Commit[:12]))})
	return k
}

// capacityMethod says once how a capacity search reads its probes; the
// conclusion gives each search's answer and probes.
func (b *builder) capacityMethod(k *sink) {
	for _, name := range b.profilesUsed() {
		p := b.s.Profiles[name]
		if p.Kind != "search" {
			continue
		}
		kept := d.Num{V: 100 * decide.KeptUp, Unit: "%"}
		k.add(d.Para{Text: d.Sentences(
			d.M("A capacity search's answer is the highest probed rate that met the bounds while the server kept up with it: it completed at least %s of the rate while requests arrived, and the rate is no higher than the configuration completed in any run at fixed concurrency.", kept),
			probeSize(p), d.M("A probe is read by these rules:"))})
		k.add(d.List{Items: []d.Text{
			d.M("Each bound's percentile is taken over every request of the runs at the rate, pooled: one P90 of all of them, not a mean of the runs' P90s. Runs without their requests (imported summaries) count by the mean of their figures."),
			d.M("A run broke a bound with a stall when at most %d requests above the percentile break it (the P99 of 200 requests) and its percentile is above %d times its median; the search then runs the rate once more before it moves below it.", decide.StallRequests, decide.StallFactor),
			d.M("Any other breach is load, and the probe counts as measured."),
		}})
	}
}

func endpoint(api string) string {
	if api == "completions" {
		return "/v1/completions"
	}
	return "/v1/chat/completions"
}

func datasetText(ds schema.Dataset, bm schema.Benchmark) d.Text {
	switch ds.Name {
	case "random":
		return randomText(ds, bm)
	case "prefix-repetition":
		return d.M("prefix repetition: %d random prefixes of %d tokens, each request one of them and %d tokens of its own, %d output tokens", ds.Prefixes, ds.PrefixLen, ds.SuffixLen, ds.OutputLen)
	case "mooncake":
		return d.M("the Mooncake-format trace %s, each hash id a block of %d prompt tokens", d.Code(ds.Path), ds.Block())
	case "conversations":
		return d.M("the multi-turn conversations of %s, each turn sent with the conversation so far", d.Code(ds.Path))
	}
	if ds.SHA256 != "" {
		return d.M("ShareGPT (%s, sha256 %s)", d.Code(ds.Path), d.Code(ds.SHA256[:12]))
	}
	return d.M("ShareGPT (%s)", d.Code(ds.Path))
}

// profilesUsed lists the objective's profile, then the others the steps
// and the validation use, in that order.
func (b *builder) profilesUsed() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(b.s.Objective.Profile)
	for _, st := range b.s.Steps {
		for _, p := range st.Profiles {
			add(p)
		}
	}
	for _, p := range b.s.Validate.Profiles {
		add(p)
	}
	return out
}

func profileYAML(s *schema.Study, name string) string {
	p := s.Profiles[name]
	var b strings.Builder
	ds := s.DatasetOf(p)
	fmt.Fprintf(&b, "dataset_name: %s\n", datasetName(ds.Name))
	if p.Dataset != nil && ds.Path != "" {
		fmt.Fprintf(&b, "dataset_path: %s\n", ds.Path)
	}
	if ds.ThinkTime > 0 {
		fmt.Fprintf(&b, "think_time_s: %s\n", trim(ds.ThinkTime))
	}
	switch p.Kind {
	case "concurrency":
		fmt.Fprintf(&b, "max_concurrency: %d\n", p.Concurrency)
	case "search":
		sr := p.Search
		arrivals := sr.Arrivals
		if arrivals == "" {
			arrivals = "poisson"
		}
		fmt.Fprintf(&b, "arrivals: %s\nsearch_low_rps: %s\nsearch_high_rps: %s\nsearch_precision_rps: %s\n", arrivals, trim(sr.Low), trim(sr.High), trim(sr.Precision))
		if sr.Burstiness > 0 {
			fmt.Fprintf(&b, "burstiness: %s\n", trim(sr.Burstiness))
		}
		if sr.Seconds > 0 {
			fmt.Fprintf(&b, "probe_seconds: %s\n", trim(sr.Seconds))
		}
	case "trace":
		fmt.Fprintf(&b, "arrivals: trace\ntime_scale: %s\n", trim(timeScale(p)))
		if p.Concurrency > 0 {
			fmt.Fprintf(&b, "max_concurrency: %d\n", p.Concurrency)
		}
	default:
		fmt.Fprintf(&b, "arrivals: %s\nrequest_rate: %s\n", p.Kind, trim(p.Rate))
		if p.Kind == "poisson" && p.Burstiness > 0 {
			fmt.Fprintf(&b, "burstiness: %s\n", trim(p.Burstiness))
		}
		if p.Concurrency > 0 {
			fmt.Fprintf(&b, "max_concurrency: %d\n", p.Concurrency)
		}
	}
	fmt.Fprintf(&b, "total_requests: %d\n", p.Requests)
	return b.String()
}

func datasetName(n string) string {
	if n == "sharegpt" {
		return "ShareGPT"
	}
	return n
}

// timeScale is a trace profile's, 1 when the study leaves it out.
func timeScale(p schema.Profile) float64 {
	if p.TimeScale == 0 {
		return 1
	}
	return p.TimeScale
}

// randomText is a random dataset as the client sends it: token ids to
// the completions endpoint; to a chat endpoint, servelab's client sends
// English words sized with the engine's tokenizer and the peers' clients
// decode the ids to text (token ids cannot travel in a chat message);
// lengths drawn uniformly within the range ratio, after the
// prefix every request shares.
func randomText(ds schema.Dataset, bm schema.Benchmark) d.Text {
	span := func(l int) d.Text {
		lo, hi := int(math.Floor(float64(l)*(1-ds.RangeRatio))), int(math.Ceil(float64(l)*(1+ds.RangeRatio)))
		if ds.RangeRatio == 0 || lo == hi {
			return d.Lit(itoa(l))
		}
		return d.Join{Parts: []d.Text{d.Num{V: float64(max(1, lo))}, d.Lit("–"), d.Num{V: float64(hi)}}}
	}
	as := d.M("random token ids")
	switch {
	case bm.API == "completions":
	case bm.Client.Name == "builtin":
		as = d.M("random English words, each prompt sized with the engine's tokenizer to its token count")
	default:
		as = d.M("random token ids decoded to text")
	}
	parts := []d.Text{d.M("%s, %s input and %s output tokens", as, span(ds.InputLen), span(ds.OutputLen))}
	if ds.RangeRatio > 0 {
		parts = append(parts, d.M("each length drawn uniformly from its range"))
	}
	if ds.PrefixLen > 0 {
		parts = append(parts, d.M("every prompt starts with the same %d tokens", ds.PrefixLen))
	}
	if bm.Output.IgnoreEOS {
		parts = append(parts, d.M("generation ignores end-of-sequence, so every request produces its full output length"))
	}
	return d.Join{Sep: "; ", Parts: parts}
}

// meanOutput is the mean output length of the page's requests, from the
// records that count their tokens: what a mean latency here covers; and
// the runs' common total when every run generated exactly as many
// tokens (a client that fixed each request's length), else 0.
// unpinned reports whether the runs' client fixed every response's
// length on a ShareGPT file while its peer command cannot: guidellm
// takes a response's length from a dataset file only with a column that
// holds it, which the public ShareGPT file lacks.
func (b *builder) unpinned() bool {
	bm := b.s.Benchmark
	_, same, ok := b.meanOutput()
	return ok && same > 0 && !bm.Output.IgnoreEOS && bm.Dataset.Name != "random" &&
		peerOf(bm.Client.Name, bm.Client.Version).Name == "guidellm benchmark"
}

func (b *builder) meanOutput() (mean float64, same int, ok bool) {
	tokens, done, runs := 0, 0, 0
	for _, t := range b.a.Plan.Trials {
		for _, r := range b.runs[t.Key] {
			if out, known := record.Count(r.Metrics.OutputTokens); known && r.Metrics.Completed > 0 {
				if runs == 0 {
					same = out
				} else if same != out {
					same = -1
				}
				tokens, done, runs = tokens+out, done+r.Metrics.Completed, runs+1
			}
		}
	}
	if done == 0 {
		return 0, 0, false
	}
	if runs < 3 {
		same = -1
	}
	return float64(tokens) / float64(done), max(same, 0), true
}
