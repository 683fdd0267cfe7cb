package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

var _ = register(Format{Name: "vllm-sweep", Rank: 2, Parse: parseVLLMSweep, Sniff: sniffVLLMSweep, RatesOverDuration: true})

// vllm-sweep is what `vllm bench sweep serve` leaves in each combination's
// folder (SERVE-…-BENCH-…/): run=N.json, one object per measured run, and
// summary.json, the list of those objects. Read from vllm-project/vllm
// vllm/benchmarks/sweep/serve.py at commit
// 0031557f20f592111a8ea7d709730fad151bdae5 (run_benchmark, run_comb): each
// run is `vllm bench serve --save-result` with --percentile-metrics
// ttft,tpot,itl,e2el, and the sweep adds to its object
//
//	run_number                           -> the run's number (Label "run N")
//	the swept serve and bench parameters -> not kept, except those of the
//	                                        same name as a result key
//	                                        (max_concurrency, num_prompts,
//	                                        request_rate), which are the
//	                                        result's own: read as vllm-json
//
// and every other key as vllm-json (see parseVLLMJSON). summary.csv (the
// whole sweep in pandas' CSV) is not read. `vllm bench sweep
// serve_workload` (serve_workload.py at 24d6ea8afdb13ceee95b36645ba61a641f9a2f7f)
// writes the same files through serve.py's run_comb, in folders named
// …-WL-request_rate=N or …-WL-max_concurrency=N, the explored value
// overriding the result key of that name; no public one was found to
// test (testdata/real/SOURCE).
//
// Refused: an object without run_number (a plain --save-result file:
// --format vllm-json), run_number -1 (the sweep's warm-up, warmup.json,
// not a measurement), a list holding anything but run objects, and
// whatever vllm-json refuses.
func parseVLLMSweep(data []byte) ([]Result, error) {
	objs, err := decodeRuns(data)
	if err != nil {
		return nil, err
	}
	return eachNode(objs, sweepRun)
}

func sweepRun(o node) (*Result, error) {
	if !o.has("run_number") {
		return nil, fmt.Errorf("no \"run_number\": not a run of vllm bench sweep serve; a plain --save-result file is read with --format vllm-json")
	}
	n, ok := o.num("run_number")
	if ok && n == -1 {
		return nil, fmt.Errorf("run_number is -1: this is the sweep's warm-up run (warmup.json), not a measurement; import summary.json or a run=N.json")
	}
	rn := o.count("run_number")
	r, err := vllmResult(o)
	if err != nil {
		return nil, err
	}
	r.SweepRun = rn
	return r, nil
}

// decodeRuns reads summary.json (a JSON list of run objects) or a
// run=N.json (one object).
func decodeRuns(data []byte) ([]node, error) {
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) == 0 || t[0] != '[' {
		return decodeObjects(data)
	}
	data = quoteNonFinite(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var list []any
	if err := dec.Decode(&list); err != nil {
		return nil, jsonErr(data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more after the list of runs (byte %d): summary.json holds one list; export it again from the tool", dec.InputOffset())
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("the list of runs is empty: the sweep measured nothing in this combination")
	}
	out := make([]node, 0, len(list))
	for i, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("item %d of the list is %s, not a run object; summary.json holds run objects only", i+1, kindOf(v))
		}
		out = append(out, newNode(m, fmt.Sprintf("[%d]", i)))
	}
	return out, nil
}
