// Package export writes a study's final configuration for deployment:
// a docker run line, a Compose service, a Kubernetes Deployment and
// Service (built from the API's own types), and GPUStack's model
// deployment with its backend parameters. Each carries the serve
// command's argv unchanged, quoted for where it goes.
package export

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// A Format is one deployment format. Each format's file registers its
// own, so adding a format is a one-file change (with its goldens and a
// round-trip check in the test).
type Format struct {
	Name  string // as --format names it
	File  string // the file it is written to
	Label string // the reports' link text: a product name, the same in every language
	// Rank orders Formats: the order "all" writes them and the reports
	// link them.
	Rank  int
	Write func(Config) ([]byte, error)
}

var formats = map[string]Format{}

func register(f Format) bool {
	if _, dup := formats[f.Name]; dup || f.Write == nil {
		panic("export: format " + f.Name + " registered twice or without Write")
	}
	formats[f.Name] = f
	return true
}

// Formats are the export formats, in the order "all" writes them.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := formats[a].Rank - formats[b].Rank; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names
}

// FileName is the file a format is written to.
func FileName(format string) string { return formats[format].File }

// Label is what the reports' link to a format's file says.
func Label(format string) string { return formats[format].Label }

// Dir is the folder, beside a study's reports, that servelab render and
// the site write its exports to.
func Dir(studyID string) string { return studyID + ".deploy" }

// Port is where the exported engine listens.
const Port = 8000

// CacheDir is the Hugging Face cache inside the engines' images.
const CacheDir = "/root/.cache/huggingface"

// Config is the final configuration as deployments need it.
type Config struct {
	Name    string // the study's ID, the deployment's name
	Kind    string // engine kind
	Version string
	Image   string
	Model   string
	Argv    []string // the serve command, without host and port
	Env     map[string]string
	// Params are the engine's own flags: Argv after the kind's launch
	// template (what GPUStack calls backend parameters).
	Params    []string
	Health    string
	HostFlag  string
	PortFlag  string
	FlagStyle string
	GPUs      int
	// CacheSize is the model cache's volume, with room for the weights.
	CacheSize string
	// Simulated says the configuration was chosen from simulated
	// figures: every file says so at its top.
	Simulated bool
}

// header is the comment each file opens with.
func (c Config) header() string {
	h := "# " + c.Name + ": the recommended configuration, exported by servelab.\n"
	if c.Simulated {
		h += "# SIMULATED: chosen from servelab-sim's figures on a machine without a GPU. It shows\n" +
			"# how servelab works; it is not a configuration measured to serve well.\n"
	}
	return h
}

// cacheSize is a volume for the model's weights with a quarter spare
// (shards, tokenizer, an interrupted download's partial files), at
// least 20 GiB; 200 GiB when the study does not give the model's size.
func cacheSize(m schema.ModelVariant) string {
	bytes := map[string]float64{"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5, "fp4": 0.5}[strings.ToLower(m.DType)]
	if m.Params <= 0 || bytes == 0 {
		return "200Gi"
	}
	return fmt.Sprintf("%dGi", max(20, int(math.Ceil(m.Params*bytes*1.25/(1<<30)))))
}

// FromStudy is the final configuration of s as the plan decided it.
func FromStudy(s *schema.Study, final plan.Config, simulated bool) (Config, error) {
	e, ok := s.Engines[final.Engine]
	if !ok {
		return Config{}, fmt.Errorf("unknown engine %q", final.Engine)
	}
	argv, err := plan.Argv(s, final)
	if err != nil {
		return Config{}, err
	}
	argv = dropBenchOnly(e.Kind, argv)
	m, _ := s.Model.Variant(final.ModelVariant())
	gpus := 1
	if v, ok := schema.Number(final.Knobs["tensorParallel"]); ok && v > 1 {
		gpus = int(v)
	}
	c := Config{Name: s.ID, Kind: e.Kind, Version: e.Version, Image: e.ImageRef(), Model: m.ID, Argv: argv, Env: final.Env,
		Params: argv[min(len(e.Def.Command), len(argv)):], Health: e.Def.Health, HostFlag: e.Def.HostFlag, PortFlag: e.Def.PortFlag,
		FlagStyle: e.Def.FlagStyle, GPUs: gpus, CacheSize: cacheSize(m), Simulated: simulated}
	if c.Image == "" {
		return c, fmt.Errorf("engine %s (%s) has no container image: set engines.%s.image in %s", final.Engine, e.Kind, final.Engine, s.File)
	}
	return c, nil
}

// benchOnly are the flags a benchmark sets for itself that a deployment
// does not need: they add each request's cached-token count to its
// usage, which the client reads and users' clients do not.
var benchOnly = map[string][]string{
	"vllm":   {"--enable-prompt-tokens-details"},
	"sglang": {"--enable-cache-report"},
}

// dropBenchOnly is argv without kind's benchmark-only switches.
func dropBenchOnly(kind string, argv []string) []string {
	return slices.DeleteFunc(slices.Clone(argv), func(a string) bool {
		for _, f := range benchOnly[kind] {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
		return false
	})
}

// ServeArgv is the command a container runs: the serve command, then
// host and port, listening on every interface of the container.
func (c Config) ServeArgv() []string {
	argv := append(slices.Clone(c.Argv), c.flag(c.HostFlag, "0.0.0.0")...)
	return append(argv, c.flag(c.PortFlag, fmt.Sprint(Port))...)
}

func (c Config) flag(name, value string) []string {
	if c.FlagStyle == "space" {
		return []string{"--" + name, value}
	}
	return []string{"--" + name + "=" + value}
}

// DNSName is the name as Kubernetes objects and Compose services take
// it: lower-case letters, digits and '-', at most 63.
func DNSName(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b), "-")
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	if out == "" {
		return "servelab"
	}
	return out
}

// Write returns the format's file content.
func Write(format string, c Config) ([]byte, error) {
	f, ok := formats[format]
	if !ok {
		return nil, fmt.Errorf("unknown export format %q (want %s or all)", format, strings.Join(Formats(), ", "))
	}
	return f.Write(c)
}

// Files are the contents of formats ("all" is every format) for the
// final configuration of s, by file name.
func Files(s *schema.Study, final *plan.Config, simulated bool, formats []string) (map[string][]byte, error) {
	if final == nil {
		return nil, fmt.Errorf("%s is not decided yet: servelab analyze says which trials are missing", s.File)
	}
	c, err := FromStudy(s, *final, simulated)
	if err != nil {
		return nil, err
	}
	if slices.Contains(formats, "all") {
		formats = Formats()
	}
	out := map[string][]byte{}
	for _, f := range formats {
		b, err := Write(f, c)
		if err != nil {
			return nil, err
		}
		out[FileName(f)] = b
	}
	return out, nil
}

// Beside is every format's file for the study's final configuration,
// named as the reports link to them (Dir(s.ID)/<file>); none for a
// study without a final configuration or an image to deploy.
func Beside(s *schema.Study, final *plan.Config, simulated bool) (map[string][]byte, error) {
	if final == nil || s.Engines[final.Engine] == nil || s.Engines[final.Engine].ImageRef() == "" {
		return nil, nil
	}
	files, err := Files(s, final, simulated, []string{"all"})
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name, b := range files {
		out[Dir(s.ID)+"/"+name] = b
	}
	return out, nil
}

// WriteBeside writes every format into dir/Dir(s.ID), where the reports
// in dir link to them; a study without a final configuration or an
// image to deploy has no exports, and its reports no links.
func WriteBeside(dir string, s *schema.Study, final *plan.Config, simulated bool) error {
	files, err := Beside(s, final, simulated)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := store.WriteAtomic(path, files[name]); err != nil {
			return err
		}
		// Published beside the reports: readable by all (the atomic
		// write's temporary file is private), scripts executable.
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.Chmod(path, mode); err != nil {
			return err
		}
	}
	return nil
}
