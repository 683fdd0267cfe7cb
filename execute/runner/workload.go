package runner

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"servelab.dev/execute/dataset"
	"servelab.dev/execute/load"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// workload is what a trial sends: its prompts (warm-up first), and for
// a trace its arrival offsets, for conversations the measured ones.
type workload struct {
	prompts   load.Prompts
	estimated bool
	offsets   []time.Duration
	convs     [][]load.Prompt
	think     time.Duration
	// sent is the prompts in the order the run sends them (as far as a
	// closed loop has one), for the shared-prefix measure.
	sent load.Prompts
}

// datasetOf is trial t's dataset, with its path resolved against the
// study file.
func (r *runner) datasetOf(t *plan.Trial) schema.Dataset {
	ds := r.s.DatasetOf(r.s.Profiles[t.Profile])
	if ds.Path != "" && !filepath.IsAbs(ds.Path) {
		ds.Path = filepath.Join(filepath.Dir(r.s.File), ds.Path)
	}
	return ds
}

// maxOut caps the output budget of a trace row or a conversation turn.
func (r *runner) maxOut() int {
	if m := r.s.Benchmark.Output.MaxTokens; m > 0 {
		return m
	}
	return schema.TraceMaxOutput
}

// workload makes trial t's workload.
func (r *runner) workload(t *plan.Trial, tg load.Target) (workload, error) {
	seed, _ := t.Spec.Seeds()
	n := t.Spec.Profile.Requests + t.Spec.Benchmark.Warmup
	ds := r.datasetOf(t)
	switch ds.Name {
	case "mooncake":
		return r.trace(t, ds, seed)
	case "conversations":
		return r.dialogs(t, ds, tg, seed)
	}
	ps, est, err := r.promptSet(t, tg, n, seed)
	return workload{prompts: ps, estimated: est, sent: ps}, err
}

// trace replays the trace's first rows: the warm-up ones closed-loop,
// the measured ones at their scaled times from the first of them.
func (r *runner) trace(t *plan.Trial, ds schema.Dataset, seed uint64) (workload, error) {
	rows, err := readTrace(ds)
	if err != nil {
		return workload{}, err
	}
	w, n := t.Spec.Benchmark.Warmup, t.Spec.Profile.Requests
	if len(rows) < w+n {
		return workload{}, fmt.Errorf("%s: %d rows, and profile %s sends %d warm-up and %d measured requests from it: lower its requests (or the warm-up) to fit", ds.Path, len(rows), t.Profile, w, n)
	}
	rows = rows[:w+n]
	ps := r.forAPI(dataset.TracePrompts(rows, ds.Block(), r.maxOut(), seed))
	wl := workload{prompts: ps, sent: ps}
	if t.Spec.Profile.Kind == "trace" {
		wl.offsets = dataset.TraceOffsets(rows[w:], t.Spec.Profile.TimeScale)
	}
	return wl, nil
}

func readTrace(ds schema.Dataset) ([]dataset.TraceRow, error) {
	data, err := dataset.ReadFile(ds.Path, ds.SHA256)
	if err != nil {
		return nil, err
	}
	return dataset.ParseTrace(bytes.NewReader(data), ds.Path, ds.Block())
}

// dialogs keeps the last conversations of the shuffled file for the
// warm-up and sends the others as the measured conversations.
func (r *runner) dialogs(t *plan.Trial, ds schema.Dataset, tg load.Target, seed uint64) (workload, error) {
	data, err := dataset.ReadFile(ds.Path, ds.SHA256)
	if err != nil {
		return workload{}, err
	}
	convs, err := dataset.ParseConversations(data, ds.Path)
	if err != nil {
		return workload{}, err
	}
	turns, est, err := dataset.ConversationPrompts(convs, ds.MaxTurns, r.maxOut(), seed, dataset.EngineTokenizer(tg))
	if err != nil {
		return workload{}, err
	}
	var warm load.List
	for len(warm) < t.Spec.Benchmark.Warmup && len(turns) > 1 {
		warm = append(warm, turns[len(turns)-1]...)
		turns = turns[:len(turns)-1]
	}
	wl := workload{estimated: est, convs: turns, think: time.Duration(ds.ThinkTime * float64(time.Second))}
	wl.prompts = warm
	if len(warm) == 0 {
		wl.prompts = load.List(turns[0])
	}
	// Conversations cycle when the run asks more turns than the file
	// holds; the measure follows that order, one conversation after
	// another (interleaving does not change which prefixes repeat).
	var sent load.List
	sent = append(sent, warm...)
	for i := 0; len(sent) < len(warm)+t.Spec.Profile.Requests; i++ {
		c := turns[i%len(turns)]
		sent = append(sent, c[:min(len(c), len(warm)+t.Spec.Profile.Requests-len(sent))]...)
	}
	wl.sent = sent
	return wl, nil
}

// forAPI sends token-id prompts as text on the chat API.
func (r *runner) forAPI(ps load.Prompts) load.Prompts {
	if r.s.Benchmark.API == "completions" {
		return ps
	}
	return dataset.AsText(ps)
}

// CheckWorkloads reads every trace and conversation file the study's
// profiles name and checks that each trace holds the rows its profiles
// send, so that a malformed line or a missing file stops the run before
// any engine starts, with the file, the line and the fix.
func CheckWorkloads(s *schema.Study) error {
	for _, name := range slices.Sorted(maps.Keys(s.Profiles)) {
		p := s.Profiles[name]
		ds := s.DatasetOf(p)
		if ds.Path != "" && !filepath.IsAbs(ds.Path) {
			ds.Path = filepath.Join(filepath.Dir(s.File), ds.Path)
		}
		switch ds.Name {
		case "mooncake":
			rows, err := readTrace(ds)
			if err != nil {
				return err
			}
			if need := s.Benchmark.Warmup + p.Requests; len(rows) < need {
				return fmt.Errorf("%s: %d rows, and profile %s sends %d warm-up and %d measured requests from it: lower its requests (or the warm-up) to fit", ds.Path, len(rows), name, s.Benchmark.Warmup, p.Requests)
			}
		case "conversations":
			data, err := dataset.ReadFile(ds.Path, ds.SHA256)
			if err == nil {
				_, err = dataset.ParseConversations(data, ds.Path)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
