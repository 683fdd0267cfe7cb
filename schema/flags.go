package schema

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Flag tables: one JSON file per engine kind under flags/, each listing
// the flags of the engine's own argument parser with their types, choices,
// negated forms and the versions where they exist, and the repository,
// file and commit they were read from. The format is described in
// flags/README.md; a new engine kind adds one file.

//go:embed flags/*.json
var flagFiles embed.FS

// FlagTable is the flags one engine kind's parser accepts.
type FlagTable struct {
	Engine string `json:"engine"`
	// FlagPrefix is how a long flag is written ("--"); ShortPrefix how an
	// alias of one or two letters is (vLLM's "-O", "-tp").
	FlagPrefix  string `json:"flagPrefix"`
	ShortPrefix string `json:"shortPrefix,omitempty"`
	// Versions is the range of engine versions the table describes.
	Versions struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"versions"`
	// Complete says every flag of the parser is listed; otherwise a flag
	// missing here may still be real, and vet says so.
	Complete bool         `json:"complete"`
	Sources  []FlagSource `json:"sources"`
	Hand     string       `json:"hand,omitempty"`
	Flags    []FlagSpec   `json:"flags"`
	Env      []FlagSpec   `json:"env,omitempty"`
	Options  []FlagSpec   `json:"options,omitempty"`
	byName   map[string][]int
}

// FlagSource is where (part of) a table was read.
type FlagSource struct {
	Repo    string `json:"repo"`
	Path    string `json:"path"`
	Commit  string `json:"commit"`
	Release string `json:"release"`
	Read    string `json:"read"`
}

// FlagSpec is one flag (or environment variable, or options-file key)
// over a range of versions: Since inclusive, Until exclusive, either
// open. A flag whose choices changed has one entry per range.
type FlagSpec struct {
	Name string `json:"name"`
	// Type is string, int, float, bool (a switch) or json (a string
	// holding a JSON object).
	Type     string   `json:"type"`
	Choices  []string `json:"choices,omitempty"`
	Aliases  []string `json:"aliases,omitempty"`
	Negation string   `json:"negation,omitempty"`
	Since    string   `json:"since,omitempty"`
	Until    string   `json:"until,omitempty"`
	Note     string   `json:"note,omitempty"`
	// Default is the value the parser takes when the flag is not given,
	// as it would be written on the command line ("0.9", "f16", "true"),
	// set only where the source above holds it as a literal; DefaultFrom
	// is the path of the source it was read in (one of Sources, needed
	// when there are several). DefaultNote says why a default is unknown
	// (computed from the GPU, the model or the entry point).
	Default     string `json:"default,omitempty"`
	DefaultFrom string `json:"defaultFrom,omitempty"`
	DefaultNote string `json:"defaultNote,omitempty"`
}

// In reports whether version v lies in the entry's range.
func (f FlagSpec) In(v string) bool {
	return (f.Since == "" || CompareVersions(v, f.Since) >= 0) && (f.Until == "" || CompareVersions(v, f.Until) < 0)
}

// Range describes the entry's versions for messages.
func (f FlagSpec) Range() string {
	switch {
	case f.Since != "" && f.Until != "":
		return "from " + f.Since + " until before " + f.Until
	case f.Since != "":
		return "from " + f.Since
	case f.Until != "":
		return "before " + f.Until
	}
	return "in every version"
}

// LoadFlagTables reads the embedded tables, keyed by engine kind.
func LoadFlagTables() (map[string]*FlagTable, error) {
	names, _ := fs.Glob(flagFiles, "flags/*.json")
	out := map[string]*FlagTable{}
	for _, n := range names {
		b, _ := flagFiles.ReadFile(n)
		t, err := ParseFlagTable(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if want := strings.TrimSuffix(path.Base(n), ".json"); t.Engine != want {
			return nil, fmt.Errorf("%s: engine %q, want %q (the file's name)", n, t.Engine, want)
		}
		out[t.Engine] = t
	}
	return out, nil
}

// ParseFlagTable decodes and checks one table.
func ParseFlagTable(b []byte) (*FlagTable, error) {
	var t FlagTable
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	if t.Engine == "" || t.FlagPrefix == "" {
		return nil, fmt.Errorf("engine and flagPrefix are required")
	}
	t.byName = map[string][]int{}
	for i, f := range t.Flags {
		switch f.Type {
		case "string", "int", "float", "bool", "json":
		default:
			return nil, fmt.Errorf("flag %s: type %q (want string, int, float, bool or json)", f.Name, f.Type)
		}
		if err := t.checkDefault(f); err != nil {
			return nil, fmt.Errorf("flag %s: %w", f.Name, err)
		}
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			for _, j := range t.byName[n] {
				if overlap(t.Flags[j], f) {
					return nil, fmt.Errorf("flag %s: listed twice for overlapping versions", n)
				}
			}
			t.byName[n] = append(t.byName[n], i)
		}
	}
	return &t, nil
}

// checkDefault refuses a default the parser would not accept (so a
// study could never write it) and one that names no source.
func (t *FlagTable) checkDefault(f FlagSpec) error {
	if f.Default == "" {
		if f.DefaultFrom != "" {
			return fmt.Errorf("defaultFrom without a default")
		}
		return nil
	}
	if f.DefaultNote != "" {
		return fmt.Errorf("both a default and a defaultNote (a note says why the default is unknown)")
	}
	if f.Type == "json" {
		return fmt.Errorf("a default for a json flag: values are not compared")
	}
	if _, err := t.DefaultSource(f); err != nil {
		return err
	}
	if msg := f.CheckValue(parseDefault(f), false); msg != "" {
		return fmt.Errorf("default %q: %s", f.Default, msg)
	}
	return nil
}

// DefaultSource is the source f's default was read in.
func (t *FlagTable) DefaultSource(f FlagSpec) (FlagSource, error) {
	for _, s := range t.Sources {
		if s.Path == f.DefaultFrom || (f.DefaultFrom == "" && len(t.Sources) == 1) {
			return s, nil
		}
	}
	if f.DefaultFrom == "" {
		return FlagSource{}, fmt.Errorf("a default needs defaultFrom: the table has %d sources", len(t.Sources))
	}
	return FlagSource{}, fmt.Errorf("defaultFrom %q is not the path of a source", f.DefaultFrom)
}

// parseDefault is a default as the value a study would write for it.
func parseDefault(f FlagSpec) any {
	switch f.Type {
	case "bool":
		if b, err := strconv.ParseBool(f.Default); err == nil {
			return b
		}
	case "int", "float":
		if n, err := strconv.ParseFloat(f.Default, 64); err == nil {
			return n
		}
	}
	return f.Default
}

// SameValue reports whether v, a value a study writes for f, is the
// value s as the parser reads it: "0.90" is 0.9, a switch written is
// "true".
func (f FlagSpec) SameValue(v any, s string) bool {
	switch f.Type {
	case "int", "float":
		want, err := strconv.ParseFloat(s, 64)
		n, ok := Number(v)
		if str, isStr := v.(string); isStr {
			var perr error
			n, perr = strconv.ParseFloat(str, 64)
			ok = perr == nil
		}
		return err == nil && ok && n == want
	case "bool":
		b, ok := v.(bool)
		want, err := strconv.ParseBool(s)
		return ok && err == nil && b == want
	}
	return valueString(v) == s
}

func overlap(a, b FlagSpec) bool {
	aFirst, bFirst := a.Since == "" || (b.Until != "" && CompareVersions(a.Since, b.Until) < 0), b.Since == "" || (a.Until != "" && CompareVersions(b.Since, a.Until) < 0)
	return (a.Since == "" || b.Until == "" || aFirst) && (b.Since == "" || a.Until == "" || bFirst)
}

// Lookup finds the flag a raw arg names in version v. name may be an
// alias or a negated form; negated reports the latter. When the flag
// exists only in other versions, other is one of its entries.
func (t *FlagTable) Lookup(name, v string) (f FlagSpec, negated, ok bool, other *FlagSpec) {
	if f, ok, other = t.lookup(name, v); ok || other != nil {
		return f, false, ok, other
	}
	for _, g := range t.Flags {
		if g.Negation == name && g.In(v) {
			return g, true, true, nil
		}
	}
	return FlagSpec{}, false, false, nil
}

func (t *FlagTable) lookup(name, v string) (FlagSpec, bool, *FlagSpec) {
	var other *FlagSpec
	for _, i := range t.byName[name] {
		if t.Flags[i].In(v) {
			return t.Flags[i], true, nil
		}
		other = &t.Flags[i]
	}
	return FlagSpec{}, false, other
}

// Names lists every name (with aliases and negations) valid in version v.
func (t *FlagTable) Names(v string) []string {
	var out []string
	for _, f := range t.Flags {
		if !f.In(v) {
			continue
		}
		out = append(out, f.Name)
		out = append(out, f.Aliases...)
		if f.Negation != "" {
			out = append(out, f.Negation)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Spelled is how a flag is written on a command line.
func (t *FlagTable) Spelled(name string) string {
	if t.ShortPrefix != "" && len(name) <= 3 {
		return t.ShortPrefix + name
	}
	return t.FlagPrefix + name
}

// Suggest is the valid name nearest to name in version v, "" when none
// is close enough to be a likely misspelling.
func (t *FlagTable) Suggest(name, v string) string {
	return nearest(name, t.Names(v))
}

func nearest(name string, names []string) string {
	best, bestD := "", len(name)/3+2
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance, with '_' and '-' taken as
// equal (vLLM accepts both; a study writing the other one is a typo).
func editDistance(a, b string) int {
	norm := func(s string) []rune { return []rune(strings.ReplaceAll(s, "_", "-")) }
	x, y := norm(a), norm(b)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}

// CheckValue checks a raw arg's value against the flag's type and
// choices; the message names what the flag takes.
func (f FlagSpec) CheckValue(v any, negated bool) string {
	if negated || f.Type == "bool" {
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("a switch: write true (or false to leave it out), not %s", show(v))
		}
		return ""
	}
	if _, ok := v.(bool); ok {
		return fmt.Sprintf("takes a %s value, not a switch", f.Type)
	}
	n, isNum := Number(v)
	switch f.Type {
	case "int":
		if !isNum || n != float64(int64(n)) {
			return fmt.Sprintf("takes an integer, not %s", show(v))
		}
	case "float":
		if !isNum {
			return fmt.Sprintf("takes a number, not %s", show(v))
		}
	case "json":
		s, _ := v.(string)
		if !json.Valid([]byte(s)) {
			return fmt.Sprintf("takes a JSON value, not %s", show(v))
		}
	}
	if len(f.Choices) > 0 {
		s := valueString(v)
		if !slices.Contains(f.Choices, s) {
			msg := fmt.Sprintf("invalid choice %s (choose from %s)", show(v), strings.Join(f.Choices, ", "))
			if near := nearest(s, f.Choices); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			return msg
		}
	}
	return ""
}

func valueString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if f, ok := Number(v); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return valueString(v)
}

// CompareVersions orders engine versions: "v0.5.3.post3" > "0.5.3" >
// "0.5.3rc1"; llama.cpp's "b4500" is build 4500. Numbers compare as
// numbers; a missing component is 0.
func CompareVersions(a, b string) int {
	x, y := versionKey(a), versionKey(b)
	for i := 0; i < max(len(x), len(y)); i++ {
		var p, q int
		if i < len(x) {
			p = x[i]
		}
		if i < len(y) {
			q = y[i]
		}
		if p != q {
			if p < q {
				return -1
			}
			return 1
		}
	}
	return 0
}

// versionKey turns a version into numbers: each release component, then
// a marker (-2 dev, -1 rc/pre-release, 0 release, 1 post) and its number.
func versionKey(v string) []int {
	v = strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v"), "b")
	var nums []int
	marker, extra := 0, 0
	i := 0
	for i < len(v) {
		j := i
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		if j > i {
			n, _ := strconv.Atoi(v[i:j])
			if marker != 0 {
				extra = n
			} else {
				nums = append(nums, n)
			}
			i = j
			continue
		}
		rest := v[i:]
		switch {
		case strings.HasPrefix(rest, "post"):
			marker, i = 1, i+4
		case strings.HasPrefix(rest, "rc"), strings.HasPrefix(rest, "a"), strings.HasPrefix(rest, "b"):
			marker = -1
			i++
		case strings.HasPrefix(rest, "dev"):
			marker, i = -2, i+3
		default:
			i++
		}
	}
	for len(nums) < 3 {
		nums = append(nums, 0)
	}
	return append(nums, marker, extra)
}

// VersionedKnobs replace knob mappings for the versions in [Since, Until).
type VersionedKnobs struct {
	Since string              `json:"since,omitempty"`
	Until string              `json:"until,omitempty"`
	Knobs map[string]KnobFlag `json:"knobs"`
}

// KnobsAt is the kind's knob mappings for engine version v.
func (k EngineKind) KnobsAt(v string) map[string]KnobFlag {
	out := make(map[string]KnobFlag, len(k.Knobs))
	for name, m := range k.Knobs {
		out[name] = m
	}
	for _, vk := range k.Versioned {
		if (FlagSpec{Since: vk.Since, Until: vk.Until}).In(v) {
			for name, m := range vk.Knobs {
				out[name] = m
			}
		}
	}
	return out
}
