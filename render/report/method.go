package report

import (
	"fmt"
	"strings"

	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

func (b *builder) method() {
	s := b.s
	bm := s.Benchmark
	b.h(2, "method", d.M("Benchmark method"))
	client := d.Code(bm.Client.Name + " " + bm.Client.Version)
	if bm.Client.Version == "" {
		client = d.Code(bm.Client.Name)
	}
	b.doc.Add(d.Para{Text: d.M("Client: %s, driving the %s endpoint with streamed responses. Dataset: %s.", client, d.Code(endpoint(bm.API)), datasetText(bm.Dataset))})
	if bm.Warmup > 0 {
		b.doc.Add(d.Para{Text: d.M("Each profile starts with %d warm-up requests, which are not measured.", bm.Warmup)})
	} else {
		b.doc.Add(d.Note{Warn: true, Text: d.M("These runs had no warm-up requests: the first requests of each run include start-up effects (a single slow first request can move a mean).")})
	}
	if bm.Repeats > 1 {
		b.doc.Add(d.Para{Text: d.M("Each trial is repeated %d times.", bm.Repeats)})
	}
	b.rule()
	b.h(3, "profiles", d.M("Benchmark profiles"))
	for _, name := range b.profilesUsed() {
		b.h(4, "profile-"+name, ProfileTitle(s, name))
		b.doc.Add(d.CodeBlock{Lang: "yaml", Body: profileYAML(s, name)})
	}
	b.h(3, "reproduce", d.M("Reproducing the benchmark"))
	b.doc.Add(d.Para{Text: d.M("To rerun a profile without servelab, against an engine started with the serving command:")})
	b.doc.Add(d.CodeBlock{Lang: "bash", Body: reproduce(s, b.profilesUsed())})
}

func endpoint(api string) string {
	if api == "completions" {
		return "/v1/completions"
	}
	return "/v1/chat/completions"
}

func datasetText(ds schema.Dataset) d.Text {
	if ds.Name == "random" {
		return d.M("random token ids, %d input and %d output tokens", ds.InputLen, ds.OutputLen)
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
	fmt.Fprintf(&b, "dataset_name: %s\n", datasetName(s.Benchmark.Dataset.Name))
	switch p.Kind {
	case "concurrency":
		fmt.Fprintf(&b, "max_concurrency: %d\n", p.Concurrency)
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

// reproduce writes the peer tool's command for each profile.
func reproduce(s *schema.Study, profiles []string) string {
	var lines []string
	ds := s.Benchmark.Dataset
	for _, name := range profiles {
		p := s.Profiles[name]
		var cmd string
		switch s.Benchmark.Client.Name {
		case "guidellm":
			cmd = fmt.Sprintf("guidellm benchmark --target \"$TARGET\" --profile %s --rate %s --max-requests %d --processor %s --data %s",
				guidellmProfile(p), guidellmRate(p), p.Requests, s.Model.ID, dataArg(ds))
		default:
			cmd = fmt.Sprintf("vllm bench serve --model %s --backend openai-chat --endpoint %s --dataset-name %s %s--num-prompts %d%s",
				s.Model.ID, endpoint(s.Benchmark.API), ds.Name, vllmData(ds), p.Requests, vllmLoad(p))
		}
		lines = append(lines, "# "+name, cmd)
	}
	return strings.Join(lines, "\n") + "\n"
}

func guidellmProfile(p schema.Profile) string {
	if p.Kind == "concurrency" {
		return "concurrent"
	}
	return p.Kind
}

func guidellmRate(p schema.Profile) string {
	if p.Kind == "concurrency" {
		return fmt.Sprint(p.Concurrency)
	}
	return trim(p.Rate)
}

func dataArg(ds schema.Dataset) string {
	if ds.Name == "random" {
		return fmt.Sprintf("prompt_tokens=%d,output_tokens=%d", ds.InputLen, ds.OutputLen)
	}
	return "./" + ds.Path
}

func vllmData(ds schema.Dataset) string {
	if ds.Name == "random" {
		return fmt.Sprintf("--random-input-len %d --random-output-len %d ", ds.InputLen, ds.OutputLen)
	}
	return "--dataset-path " + ds.Path + " "
}

func vllmLoad(p schema.Profile) string {
	out := ""
	if p.Kind != "concurrency" {
		out += " --request-rate " + trim(p.Rate)
		if p.Kind == "constant" {
			out += " --burstiness 1000000"
		}
	}
	if p.Concurrency > 0 {
		out += fmt.Sprintf(" --max-concurrency %d", p.Concurrency)
	}
	return out
}
