package schema

import (
	"math"
	"slices"
	"strings"
)

// Text is prose in the report languages.
type Text struct {
	EN string `json:"en"`
	ZH string `json:"zh,omitempty"`
	RU string `json:"ru,omitempty"`
}

// In returns the text in lang, falling back to English.
func (t Text) In(lang string) string {
	switch lang {
	case "zh":
		if t.ZH != "" {
			return t.ZH
		}
	case "ru":
		if t.RU != "" {
			return t.RU
		}
	}
	return t.EN
}

// Source is the published report a study's imported runs come from;
// URL is per language.
type Source struct {
	Title Text `json:"title"`
	URL   Text `json:"url"`
}

// Study is a decoded, validated study. File is the path it was loaded
// from, as the user gave it.
type Study struct {
	ID      string  `json:"-"`
	File    string  `json:"-"`
	Title   Text    `json:"title"`
	Summary Lead    `json:"summary,omitempty"`
	Source  *Source `json:"source,omitempty"`
	Notes   []Text  `json:"notes,omitempty"`
	// CommandNotes are printed under the serving command.
	CommandNotes []Text `json:"commandNotes,omitempty"`
	Footer       *Text  `json:"footer,omitempty"`
	I18n         struct {
		Fallback string `json:"fallback,omitempty"`
	} `json:"i18n"`
	Model     Model              `json:"model"`
	Hardware  Hardware           `json:"hardware"`
	Engines   map[string]*Engine `json:"engines"`
	Base      Settings           `json:"base"`
	Benchmark Benchmark          `json:"benchmark"`
	Profiles  map[string]Profile `json:"profiles"`
	Objective Objective          `json:"objective"`
	Baseline  Baseline           `json:"baseline"`
	Steps     []Step             `json:"steps"`
	Validate  Validate           `json:"validate"`
	Estimate  Estimate           `json:"estimate"`

	// KnobOrder is the schema's order of portable knobs in a command.
	KnobOrder []string `json:"-"`
	// Warnings are what vet found doubtful but not wrong.
	Warnings List `json:"-"`
	// DefaultEquals are the variants vet warned write an engine's
	// default, for the report.
	DefaultEquals []DefaultEqual `json:"-"`
}

// Model is the served model and its alternative checkpoints.
type Model struct {
	ID       string `json:"id"`
	Title    *Text  `json:"title,omitempty"`
	Revision string `json:"revision,omitempty"`
	// Tokenizer is the hub id whose tokenizer matches a local file's.
	Tokenizer string                  `json:"tokenizer,omitempty"`
	Params    float64                 `json:"params"`
	DType     string                  `json:"dtype"`
	Variants  map[string]ModelVariant `json:"variants,omitempty"`
}

// ModelVariant is another checkpoint of the model (e.g. FP8 weights).
type ModelVariant struct {
	ID       string  `json:"id"`
	Revision string  `json:"revision,omitempty"`
	Params   float64 `json:"params,omitempty"`
	DType    string  `json:"dtype,omitempty"`
}

// Variant resolves a model variant name ("" is the model itself), with
// params and dtype inherited where the variant leaves them out.
func (m Model) Variant(name string) (ModelVariant, bool) {
	base := ModelVariant{ID: m.ID, Revision: m.Revision, Params: m.Params, DType: m.DType}
	if name == "" {
		return base, true
	}
	v, ok := m.Variants[name]
	if !ok {
		return ModelVariant{}, false
	}
	if v.Params == 0 {
		v.Params = base.Params
	}
	if v.DType == "" {
		v.DType = base.DType
	}
	return v, true
}

// Hardware is the GPU a study runs on. GPU facts come from the schema's
// table unless the study gives them.
type Hardware struct {
	GPU          string  `json:"gpu"`
	Count        int     `json:"count,omitempty"`
	MemoryGiB    float64 `json:"memoryGiB,omitempty"`
	BandwidthTBs float64 `json:"bandwidthTBs,omitempty"`
}

// Engine is one engine of a study, merged with its kind's definition.
type Engine struct {
	Kind      string              `json:"kind,omitempty"`
	Version   string              `json:"version"`
	Image     string              `json:"image,omitempty"`
	Command   []string            `json:"command,omitempty"`
	FlagStyle string              `json:"flagStyle,omitempty"`
	Health    string              `json:"health,omitempty"`
	Knobs     Knobs               `json:"knobs,omitempty"`
	Args      Args                `json:"args,omitempty"`
	Env       map[string]string   `json:"env,omitempty"`
	KnobMap   map[string]KnobFlag `json:"knobMap,omitempty"`
	// UncheckedFlags accepts a version outside the kind's flag table,
	// whose flags vet then cannot check.
	UncheckedFlags bool `json:"uncheckedFlags,omitempty"`

	// Def is the kind's definition with the study's overrides applied.
	Def EngineKind `json:"-"`
}

// ImageRef is the container image the engine runs in: the study's image,
// else its kind's official image at the study's version; "" when neither
// is known (a custom engine without an image).
func (e *Engine) ImageRef() string {
	if e.Image != "" {
		return e.Image
	}
	return strings.NewReplacer("{version}", e.Version, "{release}", strings.TrimPrefix(e.Version, "v")).Replace(e.Def.Image)
}

// Knobs are portable settings by knob name. Values are as JSON decodes
// them: string, float64, bool, or map[string]any for speculative.
type Knobs map[string]any

// Number reads a knob value as a number: CUE decodes integers as int
// and other numbers as float64.
func Number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// Args are raw flags by name (without dashes): string, float64 or bool.
type Args map[string]any

// Settings are knobs and env applied to every engine of a study.
type Settings struct {
	Knobs Knobs             `json:"knobs,omitempty"`
	Env   map[string]string `json:"env,omitempty"`
}

// EngineKind is how one kind of engine is launched and configured.
type EngineKind struct {
	Command      []string            `json:"command"`
	FlagStyle    string              `json:"flagStyle"`
	Health       string              `json:"health"`
	HostFlag     string              `json:"hostFlag"`
	PortFlag     string              `json:"portFlag"`
	RevisionFlag string              `json:"revisionFlag,omitempty"`
	CacheReset   *CacheReset         `json:"cacheReset,omitempty"`
	Knobs        map[string]KnobFlag `json:"knobs"`
	OptionsFlag  string              `json:"optionsFlag,omitempty"`
	Versioned    []VersionedKnobs    `json:"versioned,omitempty"`
	Image        string              `json:"image,omitempty"`
}

// CacheReset is an engine's endpoint that empties its prefix cache.
type CacheReset struct {
	Path string            `json:"path"`
	Env  map[string]string `json:"env,omitempty"`
}

// KnobFlag maps one knob to arguments; see #KnobFlag in engines.cue.
type KnobFlag struct {
	Flag   string            `json:"flag,omitempty"`
	Flags  []string          `json:"flags,omitempty"`
	Values map[string]string `json:"values,omitempty"`
	On     []string          `json:"on,omitempty"`
	Off    []string          `json:"off,omitempty"`
	JSON   string            `json:"json,omitempty"`
	Fields []KnobField       `json:"fields,omitempty"`
	Env    string            `json:"env,omitempty"`
	Option string            `json:"option,omitempty"`
	Refuse string            `json:"refuse,omitempty"`
	Note   string            `json:"note,omitempty"`
}

// KnobField maps one field of a struct knob.
type KnobField struct {
	Knob   string            `json:"knob"`
	Flag   string            `json:"flag,omitempty"`
	Key    string            `json:"key,omitempty"`
	Values map[string]string `json:"values,omitempty"`
}

// Benchmark is how every profile of the study is driven.
type Benchmark struct {
	Client struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	} `json:"client"`
	Dataset Dataset `json:"dataset"`
	API     string  `json:"api,omitempty"`
	Seed    int     `json:"seed,omitempty"`
	Warmup  int     `json:"warmup"`
	Repeats Repeats `json:"repeats,omitzero"`
	Timeout float64 `json:"timeout,omitempty"`
	Output  struct {
		MaxTokens int  `json:"maxTokens,omitempty"`
		IgnoreEOS bool `json:"ignoreEos,omitempty"`
	} `json:"output"`
	Quality *QualitySize `json:"quality,omitempty"`
}

// QualitySize is how many prompts the quality guard decodes, and over
// how many tokens it compares them.
type QualitySize struct {
	Prompts int `json:"prompts"`
	Tokens  int `json:"tokens"`
}

// GuardSize is the quality guard's size: the study's, else 16 prompts
// of 32 tokens; ok is false when no step asks for the guard.
func (s *Study) GuardSize() (q QualitySize, ok bool) {
	for _, st := range s.Steps {
		if st.Quality != nil {
			ok = true
		}
	}
	if s.Benchmark.Quality != nil {
		return *s.Benchmark.Quality, ok
	}
	return QualitySize{Prompts: 16, Tokens: 32}, ok
}

// Dataset is the prompt source; see #Dataset in study.cue.
type Dataset struct {
	Name       string  `json:"name"`
	Seed       *int    `json:"seed,omitempty"`
	Path       string  `json:"path,omitempty"`
	SHA256     string  `json:"sha256,omitempty"`
	InputLen   int     `json:"inputLen,omitempty"`
	OutputLen  int     `json:"outputLen,omitempty"`
	RangeRatio float64 `json:"rangeRatio,omitempty"`
	PrefixLen  int     `json:"prefixLen,omitempty"`
	SuffixLen  int     `json:"suffixLen,omitempty"`
	Prefixes   int     `json:"prefixes,omitempty"`
	BlockSize  int     `json:"blockSize,omitempty"`
	ThinkTime  float64 `json:"thinkTime,omitempty"`
	MaxTurns   int     `json:"maxTurns,omitempty"`
}

// MooncakeBlock is the Mooncake traces' tokens per hash id.
const MooncakeBlock = 512

// Block is a mooncake dataset's tokens per hash id.
func (d Dataset) Block() int {
	if d.BlockSize > 0 {
		return d.BlockSize
	}
	return MooncakeBlock
}

// Profile is one named load profile.
type Profile struct {
	Kind        string   `json:"kind"`
	Requests    int      `json:"requests"`
	Rate        float64  `json:"rate,omitempty"`
	Burstiness  float64  `json:"burstiness,omitempty"`
	Concurrency int      `json:"concurrency,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
	Dataset     *Dataset `json:"dataset,omitempty"`
	TimeScale   float64  `json:"timeScale,omitempty"`
	Search      *Search  `json:"search,omitempty"`
	Title       *Text    `json:"title,omitempty"`
}

// DatasetOf is the dataset profile p draws from: its own, else the
// benchmark's.
func (s *Study) DatasetOf(p Profile) Dataset {
	if p.Dataset != nil {
		return *p.Dataset
	}
	return s.Benchmark.Dataset
}

// Search is a capacity search over request rate (see #Profile).
type Search struct {
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Precision  float64 `json:"precision"`
	Arrivals   string  `json:"arrivals,omitempty"`
	Burstiness float64 `json:"burstiness,omitempty"`
	// Seconds makes every probe last about as long: a probe sends
	// rate × Seconds requests, or the profile's requests if more.
	Seconds float64 `json:"seconds,omitempty"`
}

// Probe is the profile a search runs at rate.
func (p Profile) Probe(rate float64) Profile {
	q := p
	q.Kind, q.Rate, q.Search = "poisson", rate, nil
	if p.Search.Arrivals == "constant" {
		q.Kind = "constant"
	}
	q.Burstiness = p.Search.Burstiness
	q.Requests = p.Search.Requests(p.Requests, rate)
	return q
}

// Requests is how many requests the probe at rate sends, given the
// profile's requests: a queue that grows takes time to show, so a
// probe by duration sends more the faster it sends them.
func (sr Search) Requests(min int, rate float64) int {
	if n := int(math.Ceil(rate * sr.Seconds)); n > min {
		return n
	}
	return min
}

// Objective is what a study optimises and the rule that adopts a variant.
type Objective struct {
	Metric  string  `json:"metric"`
	Goal    string  `json:"goal,omitempty"`
	Profile string  `json:"profile"`
	MinGain float64 `json:"minGain,omitempty"`
	// Confidence is the level of intervals and tests (0.95 when unset).
	Confidence float64 `json:"confidence,omitempty"`
	// MaxFailed is the failed share above which a run is invalid.
	MaxFailed float64 `json:"maxFailed,omitempty"`
	// Constraints are the SLO: bounds every adopted run must meet.
	Constraints []Bound `json:"constraints,omitempty"`
	// EarlyStop stops losing variants part-way through their trials.
	EarlyStop bool `json:"earlyStop,omitempty"`
	// Lead is the metric the conclusion states first, when not Metric.
	Lead string `json:"lead,omitempty"`
	Text *Text  `json:"text,omitempty"`
}

// Bound is one service-level bound: Metric ≤ Max or Metric ≥ Min.
type Bound struct {
	Metric string   `json:"metric"`
	Max    *float64 `json:"max,omitempty"`
	Min    *float64 `json:"min,omitempty"`
}

// Limit is the bound's value and whether it is an upper bound.
func (b Bound) Limit() (float64, bool) {
	if b.Max != nil {
		return *b.Max, true
	}
	if b.Min != nil {
		return *b.Min, false
	}
	return 0, true
}

// Meets reports whether v satisfies the bound.
func (b Bound) Meets(v float64) bool {
	lim, upper := b.Limit()
	if upper {
		return v <= lim
	}
	return v >= lim
}

// Defaults of the decision rule, applied when the study leaves them out.
// A gain under 3 % is inside the launch-to-launch spread of serving
// benchmarks and rarely pays for a changed flag; a run that lost more
// than 1 % of its requests measured a lighter load than it was given.
const (
	DefaultMinGain    = 0.03
	DefaultConfidence = 0.95
	DefaultMaxFailed  = 0.01
)

// Baseline is what "before" means: an engine with its base settings.
type Baseline struct {
	Engine string `json:"engine"`
	Title  *Text  `json:"title,omitempty"`
}

// Step is one stage of the study. Exactly one of Select and Variants is set.
type Step struct {
	ID       string    `json:"id"`
	Title    Text      `json:"title"`
	Engine   string    `json:"engine,omitempty"`
	Note     *Text     `json:"note,omitempty"`
	Caveat   *Text     `json:"caveat,omitempty"`
	Profiles []string  `json:"profiles,omitempty"`
	Repeats  Repeats   `json:"repeats,omitzero"`
	Select   *Select   `json:"select,omitempty"`
	Variants []Variant `json:"variants,omitempty"`
	// Quality marks an output-changing step (see #Step in study.cue).
	Quality *StepQuality `json:"quality,omitempty"`
	// NearRepeat marks a step whose variants cannot bind at the study's
	// loads: its runs measure run-to-run spread.
	NearRepeat bool `json:"nearRepeat,omitempty"`
}

// StepQuality is a step's quality guard: Min is the share of identical
// greedy outputs below which a variant is not adopted (0 when unset).
type StepQuality struct {
	Min float64 `json:"min,omitempty"`
}

// IsSelect reports whether the step always adopts its best candidate.
func (s Step) IsSelect() bool { return s.Select != nil }

// VariantNamed is the step's variant called name, among those it tries
// and those it selects among.
func (s Step) VariantNamed(name string) (Variant, bool) {
	vs := s.Variants
	if s.Select != nil {
		vs = slices.Concat(vs, s.Select.Variants)
	}
	i := slices.IndexFunc(vs, func(v Variant) bool { return v.Name == name })
	if i < 0 {
		return Variant{}, false
	}
	return vs[i], true
}

// Select lists the candidates of a select step: engines, or variants
// applied on top of the adopted configuration.
type Select struct {
	Engines  []string  `json:"engines,omitempty"`
	Variants []Variant `json:"variants,omitempty"`
}

// Variant is a change on top of the adopted configuration.
type Variant struct {
	Name  string            `json:"name"`
	Title *Text             `json:"title,omitempty"`
	Knobs Knobs             `json:"knobs,omitempty"`
	Args  Args              `json:"args,omitempty"`
	Env   map[string]string `json:"env,omitempty"`
}

// Validate lists the profiles of the final comparison.
type Validate struct {
	Profiles []string `json:"profiles,omitempty"`
}

// Estimate holds the study's figures for planning GPU time.
type Estimate struct {
	Launch  float64 `json:"launch,omitempty"`
	Latency float64 `json:"latency,omitempty"`
}
