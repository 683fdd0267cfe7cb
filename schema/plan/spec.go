package plan

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"path"

	"servelab.dev/schema"
)

// Spec is everything that can change a trial's measurement, and nothing
// else: study ids, step and variant names and profile names are left out,
// so two studies that run the same thing share a result. Its JSON
// encoding (fixed field order, sorted map keys, shortest float form) is
// the canonical form the key hashes.
type Spec struct {
	Schema    int               `json:"schema"`
	Engine    EngineSpec        `json:"engine"`
	Model     ModelSpec         `json:"model"`
	Argv      []string          `json:"argv"`
	Env       map[string]string `json:"env,omitempty"`
	Hardware  HardwareSpec      `json:"hardware"`
	Profile   ProfileSpec       `json:"profile"`
	Benchmark BenchmarkSpec     `json:"benchmark"`
	Repeat    int               `json:"repeat"`
}

// EngineSpec pins the engine build.
type EngineSpec struct {
	Kind    string `json:"kind"`
	Version string `json:"version"`
	Image   string `json:"image,omitempty"`
}

// ModelSpec pins the checkpoint.
type ModelSpec struct {
	ID       string `json:"id"`
	Revision string `json:"revision,omitempty"`
}

// HardwareSpec is the GPU kind and count.
type HardwareSpec struct {
	GPU   string `json:"gpu"`
	Count int    `json:"count"`
}

// ProfileSpec is the load shape.
type ProfileSpec struct {
	Kind        string  `json:"kind"`
	Requests    int     `json:"requests"`
	Rate        float64 `json:"rate,omitempty"`
	Burstiness  float64 `json:"burstiness,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"`
	TimeScale   float64 `json:"timeScale,omitempty"`
}

// BenchmarkSpec is how the load is driven and from which prompts.
type BenchmarkSpec struct {
	Client        string      `json:"client"`
	ClientVersion string      `json:"clientVersion,omitempty"`
	Dataset       DatasetSpec `json:"dataset"`
	API           string      `json:"api"`
	Seed          int         `json:"seed"`
	Warmup        int         `json:"warmup"`
	Timeout       float64     `json:"timeout,omitempty"`
	MaxTokens     int         `json:"maxTokens,omitempty"`
	IgnoreEOS     bool        `json:"ignoreEos,omitempty"`
}

// DatasetSpec identifies the prompts: by content hash when the study
// gives one, else by file name (where the file lies does not matter).
type DatasetSpec struct {
	Name       string  `json:"name"`
	SHA256     string  `json:"sha256,omitempty"`
	File       string  `json:"file,omitempty"`
	InputLen   int     `json:"inputLen,omitempty"`
	OutputLen  int     `json:"outputLen,omitempty"`
	RangeRatio float64 `json:"rangeRatio,omitempty"`
	PrefixLen  int     `json:"prefixLen,omitempty"`
	SuffixLen  int     `json:"suffixLen,omitempty"`
	Prefixes   int     `json:"prefixes,omitempty"`
	BlockSize  int     `json:"blockSize,omitempty"`
	ThinkTime  float64 `json:"thinkTime,omitempty"`
	MaxTurns   int     `json:"maxTurns,omitempty"`
	// Seed is the dataset's own seed, when the study gives one.
	Seed *int `json:"seed,omitempty"`
}

// Key is the hex sha256 of the canonical encoding.
func (s Spec) Key() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // only plain values: cannot fail
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// LoadKey names the configuration at its load, whatever the repeat:
// the runs of every trial with one LoadKey measure the same thing, and
// the decisions pool them into one figure.
func (s Spec) LoadKey() string {
	s.Repeat = 0
	return s.Key()
}

// NewSpec describes configuration c under profile and repeat.
func NewSpec(s *schema.Study, c Config, argv []string, profile string, repeat int) Spec {
	return specFor(s, c, argv, s.Profiles[profile], repeat)
}

// specFor describes configuration c under load p and repeat.
func specFor(s *schema.Study, c Config, argv []string, p schema.Profile, repeat int) Spec {
	e := s.Engines[c.Engine]
	m, _ := s.Model.Variant(c.ModelVariant())
	b := s.Benchmark
	d := s.DatasetOf(p)
	ds := DatasetSpec{
		Name: d.Name, SHA256: d.SHA256,
		InputLen: d.InputLen, OutputLen: d.OutputLen,
		RangeRatio: d.RangeRatio, PrefixLen: d.PrefixLen,
		SuffixLen: d.SuffixLen, Prefixes: d.Prefixes, ThinkTime: d.ThinkTime,
		MaxTurns: d.MaxTurns, Seed: d.Seed,
	}
	if d.Name == "mooncake" {
		ds.BlockSize = d.Block() // written out, so the key says what ids meant
	}
	if ds.SHA256 == "" && d.Path != "" {
		ds.File = path.Base(d.Path)
	}
	var env map[string]string
	if len(c.Env) > 0 {
		env = c.Env
	}
	seed := b.Seed
	if p.Seed != nil {
		seed = *p.Seed
	}
	// Written-out defaults hash as if left out: burstiness 1 is what a
	// Poisson profile means without one.
	burst := p.Burstiness
	if p.Kind == "poisson" && burst == 1 {
		burst = 0
	}
	return Spec{
		Schema:   schema.Version,
		Engine:   EngineSpec{Kind: e.Kind, Version: e.Version, Image: e.Image},
		Model:    ModelSpec{ID: m.ID, Revision: m.Revision},
		Argv:     argv,
		Env:      env,
		Hardware: HardwareSpec{GPU: s.Hardware.GPU, Count: s.Hardware.Count},
		Profile: ProfileSpec{Kind: p.Kind, Requests: p.Requests, Rate: p.Rate,
			Burstiness: burst, Concurrency: p.Concurrency, TimeScale: timeScale(p)},
		Benchmark: BenchmarkSpec{
			Client: b.Client.Name, ClientVersion: b.Client.Version, Dataset: ds,
			API: b.API, Seed: seed, Warmup: b.Warmup, Timeout: b.Timeout,
			MaxTokens: b.Output.MaxTokens, IgnoreEOS: b.Output.IgnoreEOS,
		},
		Repeat: repeat,
	}
}

// timeScale is a trace profile's, 1 written out so that the key says it.
func timeScale(p schema.Profile) float64 {
	if p.Kind != "trace" {
		return 0
	}
	if p.TimeScale == 0 {
		return 1
	}
	return p.TimeScale
}

// Seeds are the trial's prompt and arrival-time seeds. They derive from
// the study's seed, the profile's load and the repeat, all of which the
// key hashes: every profile and every repeat of a launch draws its own
// prompts (so no trial meets a prefix cache warmed by an earlier one with
// the same prompts) and its own arrivals, and the key fixes both.
func (s Spec) Seeds() (prompts, arrivals uint64) {
	b, _ := json.Marshal(struct {
		Seed    int         `json:"seed"`
		Profile ProfileSpec `json:"profile"`
		Repeat  int         `json:"repeat"`
	}{s.Benchmark.Seed, s.Profile, s.Repeat})
	sum := sha256.Sum256(b)
	prompts, arrivals = binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])
	if d := s.Benchmark.Dataset.Seed; d != nil {
		// The dataset's own seed fixes its content across profiles and
		// repeats; the study asked for that (to share prefixes on purpose).
		prompts = uint64(*d)*0x9e3779b97f4a7c15 ^ 0xd1b54a32d192ed03
	}
	return prompts, arrivals
}
