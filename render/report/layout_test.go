package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/render/markdown"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Every reproduce command parses as one shell command, uses only flags
// of its client's table at the study's client version, with values the
// table allows, drives the endpoint the study's api names, and carries
// ignore-EOS, warm-ups, burstiness and the seed whenever the study sets
// them. Each client is checked on the seed studies and on variants of
// them with every setting turned on.
func TestReproduceCommands(t *testing.T) {
	for _, id := range studies {
		s, a, _ := seed(t, id)
		for _, client := range []struct{ name, version string }{
			{s.Benchmark.Client.Name, s.Benchmark.Client.Version}, {"vllm-bench", "v0.12.0"}, {"vllm-bench", "v0.11.0"},
			{"guidellm", ""}, {"sglang-bench", ""}, {"builtin", ""},
		} {
			for _, tweak := range []func(*schema.Study, *plan.Spec){
				func(*schema.Study, *plan.Spec) {},
				func(s *schema.Study, sp *plan.Spec) {
					s.Model.Tokenizer = "Qwen/Qwen3-8B"
					sp.Benchmark.IgnoreEOS, sp.Benchmark.Warmup, sp.Benchmark.Seed, sp.Benchmark.API = true, 3, 7, "completions"
					if sp.Profile.Kind != "concurrency" {
						sp.Profile.Kind, sp.Profile.Burstiness = "poisson", 0.5
					}
				},
			} {
				s2 := *s
				s2.Benchmark.Client.Name, s2.Benchmark.Client.Version = client.name, client.version
				for _, tr := range a.Plan.Trials {
					if tr.Spec == nil {
						continue
					}
					t2, sp := *tr, *tr.Spec
					tweak(&s2, &sp)
					t2.Spec = &sp
					checkReproduce(t, &s2, &t2)
				}
			}
		}
	}
}

func checkReproduce(t *testing.T, s *schema.Study, tr *plan.Trial) {
	t.Helper()
	peer := peerOf(s.Benchmark.Client.Name, s.Benchmark.Client.Version)
	argv, notes := Reproduce(s, tr)
	words := parseCommand(t, MultiLine(nil, argv))
	if strings.Join(words[:len(strings.Fields(peer.Name))], " ") != peer.Name {
		t.Fatalf("%s: command %q is not %s", tr.Key[:8], words, peer.Name)
	}
	flags := map[string]string{}
	rest := words[len(strings.Fields(peer.Name)):]
	for i := 0; i < len(rest); i++ {
		f, ok := peer.Table.Flags[rest[i]]
		if !ok || !peer.Table.Has(rest[i], peer.Version) {
			t.Errorf("%s %s: flag %s is not in its table (%s at %s)", peer.Name, peer.Version, rest[i], peer.Table.Source, peer.Table.Commit[:8])
			continue
		}
		v := ""
		if f.Value {
			i++
			v = rest[i]
			if f.Values != nil && !contains(f.Values, v) {
				t.Errorf("%s: %s %s is not one of %q", peer.Name, rest[i-1], v, f.Values)
			}
		}
		flags[rest[i-boolToInt(f.Value)]] = v
	}
	b, p := tr.Spec.Benchmark, tr.Spec.Profile
	chat := b.API != "completions"
	if tok := s.Model.Tokenizer; tok != "" && peer.Name != "servelab bench" {
		flag := "--tokenizer"
		if peer.Name == "guidellm benchmark" {
			flag = "--processor"
		}
		if flags[flag] != tok {
			t.Errorf("%s: %s %q, want the study's tokenizer %q", peer.Name, flag, flags[flag], tok)
		}
	}
	switch peer.Name {
	case "vllm bench serve":
		if (flags["--backend"] == "openai-chat") != chat || (flags["--endpoint"] == "/v1/chat/completions") != chat {
			t.Errorf("api %q but --backend %s --endpoint %s", b.API, flags["--backend"], flags["--endpoint"])
		}
		want(t, flags, "--ignore-eos", b.IgnoreEOS)
		want(t, flags, "--num-warmups", b.Warmup > 0 && peer.Table.Has("--num-warmups", peer.Version))
		want(t, flags, "--burstiness", p.Kind != "concurrency")
		if b.Warmup > 0 && !peer.Table.Has("--num-warmups", peer.Version) && len(notes) == 0 {
			t.Error("warm-ups the client version cannot send, and no note says so")
		}
	case "guidellm benchmark":
		if (flags["--request-type"] == "chat_completions") != chat {
			t.Errorf("api %q but --request-type %s", b.API, flags["--request-type"])
		}
		want(t, flags, "--warmup", b.Warmup > 0)
		if b.IgnoreEOS && s.Benchmark.Dataset.Name != "random" && !strings.Contains(flags["--request-formatter-kwargs"], `"ignore_eos":true`) {
			t.Error("ignore-EOS not sent")
		}
		if p.Kind == "poisson" && burstiness(p) != 1 && len(notes) == 0 {
			t.Error("burstiness guidellm cannot draw, and no note says so")
		}
	case "python -m sglang.bench_serving":
		if (flags["--backend"] == "sglang-oai-chat") != chat {
			t.Errorf("api %q but --backend %s", b.API, flags["--backend"])
		}
		want(t, flags, "--warmup-requests", true)
		if b.IgnoreEOS && chat && !strings.Contains(flags["--extra-request-body"], "ignore_eos") {
			t.Error("ignore-EOS not sent")
		}
	}
	for _, seed := range []string{"--seed", "--random-seed"} {
		if _, ok := peer.Table.Flags[seed]; ok {
			want(t, flags, seed, true)
		}
	}
}

func want(t *testing.T, flags map[string]string, flag string, present bool) {
	t.Helper()
	if _, ok := flags[flag]; ok != present {
		t.Errorf("%s present: %v, want %v (%v)", flag, ok, present, flags)
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// parseCommand parses a command block as POSIX shell: one simple
// command, whose words it returns.
func parseCommand(t *testing.T, block string) []string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(block), "")
	if err != nil {
		t.Fatalf("%v:\n%s", err, block)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if len(f.Stmts) != 1 || !ok {
		t.Fatalf("not one simple command:\n%s", block)
	}
	var out []string
	for _, w := range call.Args {
		s, err := expand.Literal(nil, w)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// Per page at most one callout per warning cause, and the seeds' pages
// do have their causes (no warm-up, impossible peaks).
func TestOneCalloutPerCause(t *testing.T) {
	for _, id := range studies {
		s, a, runs := seed(t, id)
		doc := Build(s, a, runs)
		count := map[string]int{}
		warns := 0
		var walk func([]d.Block)
		walk = func(bs []d.Block) {
			for _, b := range bs {
				switch b := b.(type) {
				case d.Note:
					if b.Warn {
						warns++
					}
					if b.Cause != "" {
						count[b.Cause]++
					}
				case d.Details:
					walk(b.Blocks)
				}
			}
		}
		walk(doc.Blocks)
		for cause, n := range count {
			if n > 1 {
				t.Errorf("%s: %d callouts for cause %s", id, n, cause)
			}
		}
		if count["warmup"] != 1 || len(count) < 2 {
			t.Errorf("%s: causes %v, want the missing warm-up and the lint's", id, count)
		}
		var md bytes.Buffer
		markdown.Write(&md, doc, i18n.MustNew("en"), markdown.Options{})
		if got := strings.Count(md.String(), "> **Warning**:"); got != warns || got > 6 {
			t.Errorf("%s: %d warning callouts on the page (document: %d)", id, got, warns)
		}
	}
}

var numRE = regexp.MustCompile(`\d+\.\d+\s?(?:s|ms)\b`)

// The Chinese and Russian pages use the glossary's terms (the seeds'
// words) and the Russian one writes decimal commas and Russian units.
func TestGoldenPagesUseGlossary(t *testing.T) {
	for _, id := range studies {
		s, a, runs := seed(t, id)
		pages := renderAll(t, s, a, runs)
		for _, lang := range []string{"zh", "ru"} {
			page := string(pages[id+"."+lang+".md"])
			prose := fenceRE.ReplaceAllString(page, "")
			for _, term := range i18n.Terms {
				w := term.Word(lang)
				if term.Required && !strings.Contains(strings.ToLower(prose), strings.ToLower(w)) {
					t.Errorf("%s.%s: glossary term %q (%s) missing", id, lang, w, term.EN)
				}
				for _, bad := range term.Avoid(lang) {
					if strings.Contains(prose, bad) {
						t.Errorf("%s.%s: %q instead of the glossary's %q", id, lang, bad, w)
					}
				}
			}
			if lang == "ru" {
				if m := numRE.FindAllString(prose, 3); m != nil {
					t.Errorf("%s.ru: decimal point or Latin units in prose: %q", id, m)
				}
				if !strings.Contains(prose, "\u00a0с") || !strings.Contains(prose, "\u00a0мс") {
					t.Errorf("%s.ru: no figures in с and мс", id)
				}
			}
		}
	}
}

// An option vet warned writes the engine's default is named in one
// warning callout, with the default's source, in every language.
func TestDefaultEqualWarning(t *testing.T) {
	s, a, runs := seed(t, studies[1])
	src := schema.FlagSource{Repo: "sgl-project/sglang", Path: "python/sglang/srt/server_args.py", Commit: "0123456789abcdef0123456789abcdef01234567"}
	s.DefaultEquals = []schema.DefaultEqual{{Step: "cuda-graph-max-bs", Variant: "8", Flag: "--schedule-policy", Value: "fcfs", Engine: "sglang", Version: "v0.5.3.post3", Source: src}}
	doc := Build(s, a, runs)
	want := map[string]string{"en": "this option measures the configuration it is compared with again", "zh": "只是把对照配置又测了一遍", "ru": "лишь заново измеряет конфигурацию"}
	for _, lang := range i18n.Codes() {
		var md bytes.Buffer
		markdown.Write(&md, doc, i18n.MustNew(lang), markdown.Options{})
		page := md.String()
		if strings.Count(page, want[lang]) != 1 || !strings.Contains(page, "`sgl-project/sglang@01234567:python/sglang/srt/server_args.py`") || !strings.Contains(page, "`--schedule-policy fcfs`") {
			t.Errorf("%s: no warning of the default-equal option with its source", lang)
		}
	}
}
