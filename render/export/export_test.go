package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
	"sigs.k8s.io/yaml"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

var update = flag.Bool("update", false, "rewrite the goldens in testdata")

var seeds = []string{"qwen3-8b-h100-latency", "qwen3.5-9b-h100-latency"}

// seedConfig is the configuration a seed study recommends, decided
// from the committed records.
func seedConfig(t *testing.T, id string) (*schema.Study, Config) {
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("../../studies/" + id + ".cue")
	if err != nil {
		t.Fatal(err)
	}
	runs, samples, err := store.Open("../../results").OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	a, err := decide.Analyze(s, decide.Records{Runs: runs, Samples: samples}, decide.Real)
	if err != nil || a.Final == nil {
		t.Fatalf("%s: not decided from the committed records (%v)", id, err)
	}
	c, err := FromStudy(s, *a.Recommended(s), false)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// The exports of both seed studies, against committed goldens (-update
// rewrites them; review the diff), and each checked for round trips.
func TestSeedGoldens(t *testing.T) {
	for _, id := range seeds {
		t.Run(id, func(t *testing.T) {
			_, c := seedConfig(t, id)
			for _, f := range Formats() {
				got, err := Write(f, c)
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", id, FileName(f))
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					os.WriteFile(golden, got, 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the golden (go test -update, then review the diff):\n%s", golden, got)
				}
			}
			checkRoundTrips(t, c)
		})
	}
}

// Arguments that need quoting everywhere: spaces, quotes, JSON, '$' and
// what Kubernetes and Compose would expand.
func TestQuotingRoundTrips(t *testing.T) {
	c := Config{Name: "Odd.Study_1", Kind: "vllm", Version: "v0.11.0", Image: "vllm/vllm-openai:v0.11.0", Model: "m/m",
		Argv: []string{"vllm", "serve", "m/m", `--speculative-config={"method": "eagle3", "model": "a b"}`, "--chat-template", "it's $(HOME) ${X} $$ `x`", "--x=a\nb"},
		Env:  map[string]string{"A": "$(B) c", "VLLM_ATTENTION_BACKEND": "FLASHINFER"}, Health: "/health", HostFlag: "host", PortFlag: "port",
		FlagStyle: "equals", GPUs: 2}
	c.Params = c.Argv[3:]
	checkRoundTrips(t, c)
	if got := Parameters(Config{FlagStyle: "space", Params: []string{"--a", "1", "--flag", "--b", "-1", "--c=2"}}); !reflect.DeepEqual(got, []string{"--a=1", "--flag", "--b=-1", "--c=2"}) {
		t.Errorf("Parameters = %q", got)
	}
	if DNSName("Qwen3.5-9B_H100") != "qwen3-5-9b-h100" {
		t.Errorf("DNSName = %q", DNSName("Qwen3.5-9B_H100"))
	}
}

func checkRoundTrips(t *testing.T, c Config) {
	t.Helper()
	serve := c.ServeArgv()
	// docker: bash parses the script back to the serve command's argv
	// after the entrypoint and image, and the env to the study's.
	b, err := Docker(c)
	if err != nil {
		t.Fatal(err)
	}
	words := shellWords(t, b)
	i := slices.Index(words, "--entrypoint")
	if i < 0 || words[i+1] != serve[0] || words[i+2] != c.Image || !reflect.DeepEqual(words[i+3:], serve[1:]) {
		t.Errorf("docker line parses to %q; want entrypoint %q, image %q, args %q", words, serve[0], c.Image, serve[1:])
	}
	for k, v := range c.Env {
		if !slices.Contains(words, k+"="+v) {
			t.Errorf("docker line lacks --env %s=%s: %q", k, v, words)
		}
	}
	// Kubernetes: strict decoding into the API types, then $(VAR)
	// expansion undone, gives the argv back.
	d, svc := decodeKube(t, c)
	ctr := d.Spec.Template.Spec.Containers[0]
	if got := unkube(append(slices.Clone(ctr.Command), ctr.Args...)); !reflect.DeepEqual(got, serve) {
		t.Errorf("k8s argv %q, want %q", got, serve)
	}
	if q := ctr.Resources.Limits[GPUResource]; q.Value() != int64(c.GPUs) || ctr.ReadinessProbe.HTTPGet.Path != c.Health || ctr.LivenessProbe == nil {
		t.Errorf("k8s container: GPUs %s, readiness %+v", q.String(), ctr.ReadinessProbe)
	}
	if svc.Spec.Ports[0].Port != Port || !reflect.DeepEqual(svc.Spec.Selector, d.Spec.Selector.MatchLabels) {
		t.Errorf("service %+v does not select the deployment's pods", svc.Spec)
	}
	for _, e := range ctr.Env {
		if v, ok := c.Env[e.Name]; ok && unkube([]string{e.Value})[0] != v {
			t.Errorf("k8s env %s = %q, want %q", e.Name, e.Value, v)
		}
	}
	// Compose: strict decoding, then "$$" read back as "$".
	cb, err := Compose(c)
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.UnmarshalStrict(cb, &f); err != nil {
		t.Fatalf("compose: %v\n%s", err, cb)
	}
	svcC := f.Services[DNSName(c.Name)]
	if got := uncompose(append(slices.Clone(svcC.Entrypoint), svcC.Command...)); !reflect.DeepEqual(got, serve) {
		t.Errorf("compose argv %q, want %q", got, serve)
	}
	// GPUStack: the backend parameters are the serve command's flags.
	gb, err := GPUStack(c)
	if err != nil {
		t.Fatal(err)
	}
	var m gpustackModel
	dec := json.NewDecoder(bytes.NewReader(gb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || m.HuggingfaceRepoID != c.Model || len(m.BackendParameters) == 0 && len(c.Params) > 0 {
		t.Errorf("gpustack %+v, %v", m, err)
	}
}

func shellWords(t *testing.T, script []byte) []string {
	t.Helper()
	f, err := syntax.NewParser().Parse(bytes.NewReader(script), "docker-run.sh")
	if err != nil {
		t.Fatalf("docker script does not parse: %v\n%s", err, script)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("docker script has %d statements, want 1", len(f.Stmts))
	}
	call := f.Stmts[0].Cmd.(*syntax.CallExpr)
	words, err := expand.Fields(&expand.Config{}, call.Args...)
	if err != nil {
		t.Fatal(err)
	}
	return words
}

func decodeKube(t *testing.T, c Config) (*appsv1.Deployment, *corev1.Service) {
	t.Helper()
	b, err := Kubernetes(c)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b), "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("%d YAML documents, want 3", len(docs))
	}
	var pvc corev1.PersistentVolumeClaim
	var d appsv1.Deployment
	var svc corev1.Service
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &pvc); err != nil {
		t.Fatalf("claim: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &d); err != nil {
		t.Fatalf("deployment: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[2]), &svc); err != nil {
		t.Fatalf("service: %v", err)
	}
	if pvc.Kind != "PersistentVolumeClaim" || d.Kind != "Deployment" || svc.Kind != "Service" || d.APIVersion != "apps/v1" || svc.APIVersion != "v1" {
		t.Errorf("kinds %s %s/%s %s/%s", pvc.Kind, d.APIVersion, d.Kind, svc.APIVersion, svc.Kind)
	}
	// The model cache outlives the pod: the claim, not an emptyDir.
	var cache *corev1.Volume
	for i, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == "hf-cache" {
			cache = &d.Spec.Template.Spec.Volumes[i]
		}
	}
	if cache == nil || cache.PersistentVolumeClaim == nil || cache.PersistentVolumeClaim.ClaimName != pvc.Name || pvc.Spec.Resources.Requests.Storage().IsZero() {
		t.Errorf("model cache volume %+v, claim %s %v", cache, pvc.Name, pvc.Spec.Resources.Requests)
	}
	return &d, &svc
}

// unkube undoes Kubernetes' escaping: "$$" is one "$" (the arguments
// hold no $(VAR) of their own, KubeEscape doubled every '$').
func unkube(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ReplaceAll(w, "$$", "$")
	}
	return out
}

func uncompose(ws []string) []string { return unkube(ws) }

// Unknown fields are refused by the strict decoding the tests rely on.
func TestStrictDecodingRejectsUnknownFields(t *testing.T) {
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict([]byte("apiVersion: apps/v1\nkind: Deployment\nspec:\n  replica: 1\n"), &d); err == nil {
		t.Error("a misspelt field decoded")
	}
}

// Every format is registered once, in the order "all" writes them, with
// its file and label.
func TestFormatRegistry(t *testing.T) {
	if got := strings.Join(Formats(), ","); got != "docker,compose,k8s,gpustack" {
		t.Errorf("Formats() = %s", got)
	}
	for _, f := range Formats() {
		if FileName(f) == "" || Label(f) == "" {
			t.Errorf("%s: file %q, label %q", f, FileName(f), Label(f))
		}
	}
	if _, err := Write("helm", Config{}); err == nil || err.Error() != `unknown export format "helm" (want docker, compose, k8s, gpustack or all)` {
		t.Errorf("helm: %v", err)
	}
}

// A deployment does not carry the switches servelab's client needed to
// read cached tokens.
func TestDropsBenchOnlyFlags(t *testing.T) {
	got := dropBenchOnly("vllm", []string{"vllm", "serve", "m", "--enable-prompt-tokens-details", "--max-num-seqs=8"})
	if strings.Join(got, " ") != "vllm serve m --max-num-seqs=8" {
		t.Errorf("vllm: %q", got)
	}
	got = dropBenchOnly("sglang", []string{"python3", "-m", "sglang.launch_server", "--enable-cache-report", "--enable-prompt-tokens-details"})
	if strings.Join(got, " ") != "python3 -m sglang.launch_server --enable-prompt-tokens-details" {
		t.Errorf("sglang: %q (only SGLang's own switch goes)", got)
	}
}

// A configuration chosen from simulated figures says so in every file.
func TestSimulatedSaysSo(t *testing.T) {
	s, c := seedConfig(t, "qwen3-8b-h100-latency")
	_ = s
	for _, sim := range []bool{false, true} {
		c.Simulated = sim
		for _, f := range Formats() {
			b, err := Write(f, c)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Contains(b, []byte("SIMULATED")); got != sim {
				t.Errorf("%s, simulated %v: says SIMULATED %v", f, sim, got)
			}
		}
	}
}

func TestCacheSize(t *testing.T) {
	for _, tc := range []struct {
		m    schema.ModelVariant
		want string
	}{
		{schema.ModelVariant{Params: 8.2e9, DType: "bf16"}, "20Gi"},
		{schema.ModelVariant{Params: 70e9, DType: "bf16"}, "163Gi"},
		{schema.ModelVariant{Params: 70e9, DType: "fp8"}, "82Gi"},
		{schema.ModelVariant{}, "200Gi"},
	} {
		if got := cacheSize(tc.m); got != tc.want {
			t.Errorf("cacheSize(%+v) = %s, want %s", tc.m, got, tc.want)
		}
	}
}
