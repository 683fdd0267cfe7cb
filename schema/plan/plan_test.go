package plan

import (
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"

	"servelab.dev/schema"
)

func load(t testing.TB, file string) *schema.Study {
	t.Helper()
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile(file)
	if err != nil {
		t.Fatalf("%s:\n%v", file, err)
	}
	return s
}

const (
	study000 = "../../studies/qwen3.5-9b-h100-latency.cue"
	study004 = "../../studies/qwen3-8b-h100-latency.cue"
)

// scripted decides each step as a table says: the adopted variant, or ""
// to keep the incumbent. Steps missing from the table stay undecided.
type scripted map[string]string

func (d scripted) Decide(st schema.Step, inc Candidate, cands []Candidate) Decision {
	name, ok := d[st.ID]
	if !ok {
		return Decision{Winner: -1, State: StepWaiting}
	}
	for i, c := range cands {
		if c.Variant == name {
			return Decision{Winner: i, State: StepDecided}
		}
	}
	if name == "" {
		return Decision{Winner: -1, State: StepDecided}
	}
	return Decision{Winner: -1, State: StepWaiting}
}

// The decisions seeds 000 and 004 made.
var (
	decisions000 = scripted{"engine": "vllm", "prefix-cache": "", "max-batched-tokens": "", "max-num-seqs": "",
		"speculative-decoding": "mtp", "performance-mode": "interactivity", "language-model-only": "on"}
	decisions004 = scripted{"engine": "sglang", "cuda-graph-max-bs": "", "quantization": "fp8",
		"attention-backend": "", "speculative-decoding": "tengyunw-4-4-16", "torch-compile": ""}
)

func trialsOf(p *Plan, step string) []*Trial {
	var out []*Trial
	for _, t := range p.Trials {
		if t.Step == step {
			out = append(out, t)
		}
	}
	return out
}

func TestUndecidedSeeds(t *testing.T) {
	p, err := New(load(t, study000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, tr := range trialsOf(p, "engine") {
		if tr.Status != Runnable || tr.Profile != "rate-8" {
			t.Errorf("engine step trial %s/%s: %s on %s", tr.Step, tr.Variant, tr.Status, tr.Profile)
		}
		got[tr.Engine]++
	}
	if !reflect.DeepEqual(got, map[string]int{"vllm": 1, "sglang": 1}) {
		t.Errorf("engine step: trials per engine = %v, want one each", got)
	}
	for _, tr := range trialsOf(p, "prefix-cache") {
		if tr.Status != Pending || tr.Key != "" || tr.Argv != nil {
			t.Errorf("prefix-cache trial not pending: %+v", tr)
		}
	}

	p, err = New(load(t, study004), Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec := trialsOf(p, "speculative-decoding")
	if len(spec) != 9 {
		t.Fatalf("speculative step: %d trials, want 9", len(spec))
	}
	for _, tr := range spec {
		if tr.Status != Pending {
			t.Errorf("speculative %s: %s, want pending", tr.Variant, tr.Status)
		}
	}
}

func TestDecidedSeeds(t *testing.T) {
	cases := []struct {
		file string
		d    scripted
		want []string
	}{
		{study000, decisions000, []string{"vllm", "serve", "Qwen/Qwen3.5-9B",
			"--reasoning-parser=qwen3", "--max-model-len=32768",
			`--speculative-config={"method":"mtp","num_speculative_tokens":1}`,
			"--language-model-only", "--performance-mode=interactivity"}},
		{study004, decisions004, []string{"python3", "-m", "sglang.launch_server",
			"--model-path", "Qwen/Qwen3-8B-FP8",
			"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "Tengyunw/qwen3_8b_eagle3",
			"--speculative-num-steps", "4", "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens", "16"}},
	}
	for _, c := range cases {
		s := load(t, c.file)
		p, err := New(s, Options{Decider: c.d})
		if err != nil {
			t.Fatal(err)
		}
		if p.Final == nil {
			t.Fatalf("%s: not decided", s.ID)
		}
		argv, err := Argv(s, *p.Final)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(argv, c.want) {
			t.Errorf("%s final argv:\n got %q\nwant %q", s.ID, argv, c.want)
		}
		for _, tr := range p.Trials {
			if tr.Status != Runnable {
				t.Errorf("%s: %s/%s on %s is %s once every step is decided", s.ID, tr.Step, tr.Variant, tr.Profile, tr.Status)
			}
		}
	}
}

// The final configuration at the objective's profile is the speculative
// step's winner: listed once, under the step, with the validation role
// in Also.
func TestEqualKeysListedOnce(t *testing.T) {
	p, err := New(load(t, study004), Options{Decider: decisions004})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tr := range p.Trials {
		if seen[tr.Key] {
			t.Errorf("key %s listed twice", tr.Key[:12])
		}
		seen[tr.Key] = true
		if tr.Step == "validate" && tr.Variant == "final" && tr.Profile == "c4" {
			t.Errorf("final@c4 listed under validate; want it merged into the step that measured it")
		}
		if tr.Step == "speculative-decoding" && tr.Variant == "tengyunw-4-4-16" {
			if want := []string{"validate/final"}; !reflect.DeepEqual(tr.Also, want) {
				t.Errorf("winner also = %v, want %v", tr.Also, want)
			}
		}
	}
	// The cuda-graph, attention and torch.compile steps are pinned to
	// SGLang, which the engine step adopted: none is skipped.
	for _, st := range p.Steps {
		if st.Status != StepDecided {
			t.Errorf("step %s: %s", st.ID, st.Status)
		}
	}
}

func TestPinnedStepSkipped(t *testing.T) {
	d := scripted{}
	for k, v := range decisions000 {
		d[k] = v
	}
	d["engine"] = "sglang"
	p, err := New(load(t, study000), Options{Decider: d})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		pinned := st.ID == "speculative-decoding" || st.ID == "performance-mode" || st.ID == "language-model-only"
		if pinned != (st.Status == StepSkipped) {
			t.Errorf("step %s: %s", st.ID, st.Status)
		}
	}
	if p.Final == nil || p.Final.Engine != "sglang" {
		t.Errorf("final = %+v, want sglang", p.Final)
	}
}

func TestCachedStatus(t *testing.T) {
	p, err := New(load(t, study000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := trialsOf(p, "engine")[1].Key
	p, err = New(load(t, study000), Options{Cached: func(k string) bool { return k == key }})
	if err != nil {
		t.Fatal(err)
	}
	if got := trialsOf(p, "engine")[1].Status; got != Cached {
		t.Errorf("status = %s, want cached", got)
	}
	if p.Estimate.Cached != 1 {
		t.Errorf("estimate counts %d cached", p.Estimate.Cached)
	}
}

// Reordering fields, engines, profiles and knobs in the file changes no
// key; testdata/reordered.cue is testdata/ordered.cue written backwards.
func TestKeysIgnoreFieldOrder(t *testing.T) {
	keys := func(file string) []string {
		p, err := New(load(t, file), Options{Decider: scripted{"engine": "sglang", "batch": "16k"}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tr := range p.Trials {
			out = append(out, tr.Step+"/"+tr.Variant+"/"+tr.Profile+" "+tr.Key)
		}
		return out
	}
	a, b := keys("testdata/ordered.cue"), keys("testdata/reordered.cue")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("keys differ:\n%s\n--\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// Every field of a Spec can change a measurement, so changing any one of
// them must change the key.
func TestKeyCoversEverySpecField(t *testing.T) {
	s := load(t, study004)
	p, err := New(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := *p.Trials[0].Spec
	base.Env = map[string]string{"A": "1"}
	want := base.Key()
	n := 0
	forEachLeaf(reflect.ValueOf(&base).Elem(), "", func(path string, v reflect.Value) {
		old := reflect.New(v.Type()).Elem()
		old.Set(v)
		mutate(v)
		if base.Key() == want {
			t.Errorf("changing %s does not change the key", path)
		}
		v.Set(old)
		n++
	})
	if base.Key() != want {
		t.Fatal("mutations were not undone")
	}
	if n < 20 {
		t.Errorf("only %d fields visited", n)
	}
}

func forEachLeaf(v reflect.Value, path string, f func(string, reflect.Value)) {
	if v.Kind() == reflect.Struct {
		for i := 0; i < v.NumField(); i++ {
			forEachLeaf(v.Field(i), path+"."+v.Type().Field(i).Name, f)
		}
		return
	}
	f(path, v)
}

func mutate(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 0.5)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.ValueOf("--extra")))
	case reflect.Pointer:
		n := reflect.New(v.Type().Elem())
		if !v.IsNil() {
			n.Elem().Set(v.Elem())
			mutate(n.Elem())
		}
		v.Set(n)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf("A"), reflect.ValueOf("2"))
		v.Set(m)
	default:
		panic("unhandled kind " + v.Kind().String())
	}
}

// tricky argv words: JSON with braces and commas (bash would brace-expand
// it unquoted), spaces, quotes, globs, dollar signs, control characters.
var tricky = [][]string{
	{"vllm", "serve", "Qwen/Qwen3.5-9B", `--speculative-config={"method":"mtp","num_speculative_tokens":1}`},
	{"x", "a b", "it's", `"q"`, "*", "?", "[a]", "$HOME", "`id`", "a\tb", "line\nbreak", "", "~", "#c", "!x", "{a,b}"},
	{"FOO=bar", "--k=v", "-O0", "ünïcode", "%s", "a;b", "a|b", "a&b", "(x)", "<in", ">out", "\\"},
}

func TestShellRoundTrip(t *testing.T) {
	for _, argv := range tricky {
		line, err := Shell(nil, argv)
		if err != nil {
			t.Fatal(err)
		}
		got, err := shell.Fields(line, func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !reflect.DeepEqual(got, argv) {
			t.Errorf("round trip of %s:\n got %q\nwant %q", line, got, argv)
		}
	}
}

// bash itself parses the printed command back to the same words.
func TestShellRoundTripBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, argv := range tricky {
		words, err := ShellWords(nil, argv)
		if err != nil {
			t.Fatal(err)
		}
		// A for-list undergoes the same expansions as command arguments.
		script := "for a in " + strings.Join(words, " ") + "; do printf '%s\\0' \"$a\"; done"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		cmd.Env = append(os.Environ(), "HOME=/nonexistent")
		cmd.Dir = t.TempDir() // an empty folder: a glob that matched would show
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if !reflect.DeepEqual(got, argv) {
			t.Errorf("bash parsed %s as\n%q\nwant %q", strings.Join(words, " "), got, argv)
		}
	}
}

// llama.cpp sets the K and V cache types apart: the portable
// kvCacheDtype writes both, in the study's llama-server commands.
func TestLlamaCppKVCacheType(t *testing.T) {
	d := scripted{"prompt-cache": "cache-ram-0", "slots": "parallel-8", "batch": ""}
	p, err := New(load(t, "../../studies/qwen3-8b-h200-llamacpp.cue"), Options{Decider: d})
	if err != nil {
		t.Fatal(err)
	}
	ts := trialsOf(p, "kv-cache-type")
	if len(ts) == 0 {
		t.Fatal("no kv-cache-type trials")
	}
	got := strings.Join(ts[len(ts)-1].Argv, " ")
	if !strings.Contains(got, "--cache-type-k q8_0 --cache-type-v q8_0") || !strings.Contains(got, "--cache-ram 0") || !strings.Contains(got, "--parallel 8") {
		t.Errorf("kv-cache-type launches %q", got)
	}
}

// The runner launches each repeat of a configuration on its own, so the
// estimate counts launches per configuration and repeat: ordered.cue,
// decided, has 4 configurations (vllm, sglang, and sglang with either
// batch size, the final one serving the validation too).
func TestEstimateLaunchesPerRepeat(t *testing.T) {
	for repeats, want := range map[int]int{1: 4, 2: 8} {
		s := load(t, "testdata/ordered.cue")
		s.Benchmark.Repeats = schema.Fixed(repeats)
		p, err := New(s, Options{Decider: scripted{"engine": "sglang", "batch": "16k"}})
		if err != nil {
			t.Fatal(err)
		}
		if p.Estimate.Launches != want {
			t.Errorf("repeats %d: %d launches estimated, want %d", repeats, p.Estimate.Launches, want)
		}
		if got := p.Estimate.LaunchSeconds; got != float64(want)*s.Estimate.Launch {
			t.Errorf("repeats %d: launch time %v, want %d × %v", repeats, got, want, s.Estimate.Launch)
		}
	}
}
