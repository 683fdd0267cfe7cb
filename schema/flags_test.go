package schema

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	ordered := []string{"0.4.0", "v0.5.3rc1", "0.5.3", "v0.5.3.post3", "0.5.4", "0.11.0", "v0.11.1", "0.12.0", "v0.17.1", "1.0.0", "v1.2.0rc1", "1.2.0"}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := CompareVersions(a, b); got != want {
				t.Errorf("CompareVersions(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	if CompareVersions("b4500", "b4499") != 1 || CompareVersions("b4500", "4500") != 0 {
		t.Error("llama.cpp build numbers do not compare as numbers")
	}
}

func TestFlagLookup(t *testing.T) {
	tables, err := LoadFlagTables()
	if err != nil {
		t.Fatal(err)
	}
	vllm := tables["vllm"]
	for _, c := range []struct {
		name, version string
		ok, negated   bool
		canonical     string
	}{
		{"max-num-seqs", "v0.11.0", true, false, "max-num-seqs"},
		{"tp", "v0.11.0", true, false, "tensor-parallel-size"},
		{"no-enable-prefix-caching", "v0.17.1", true, true, "enable-prefix-caching"},
		{"attention-backend", "v0.11.0", false, false, ""},
		{"attention-backend", "v0.12.0", true, false, "attention-backend"},
		{"max-cudagraph-capture-size", "v0.11.0", false, false, ""},
		{"max-cudagraph-capture-size", "v0.11.1", true, false, "max-cudagraph-capture-size"},
		{"no-disable-log-stats", "v0.17.1", false, false, ""}, // store_true: no negated form
	} {
		f, neg, ok, _ := vllm.Lookup(c.name, c.version)
		if ok != c.ok || neg != c.negated || (ok && f.Name != c.canonical) {
			t.Errorf("Lookup(%s, %s) = %s, negated %v, ok %v; want %s, %v, %v", c.name, c.version, f.Name, neg, ok, c.canonical, c.negated, c.ok)
		}
	}
	if f, _, _, _ := vllm.Lookup("kv-cache-dtype", "0.8.0"); slices.Contains(f.Choices, "fp8_inc") {
		t.Error("vLLM 0.8 kv-cache-dtype choices include fp8_inc")
	}
	if s := vllm.Suggest("max-num-seq", "0.17.1"); s != "max-num-seqs" {
		t.Errorf("Suggest(max-num-seq) = %q", s)
	}
	if s := vllm.Suggest("completely-different", "0.17.1"); s != "" {
		t.Errorf("Suggest(completely-different) = %q, want none", s)
	}
}

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// TestFlagTables checks each table's sources and that every knob mapping
// writes a flag, environment variable or option the table has wherever
// the mapping applies (at the table's ends, at each version bound of the
// mappings, and at the versions committed studies pin).
func TestFlagTables(t *testing.T) {
	l, err := NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	for kind, tb := range l.FlagTables() {
		if tb.Hand == "" && len(tb.Sources) == 0 {
			t.Errorf("%s: a table needs sources or a note on how it was checked", kind)
		}
		for _, s := range tb.Sources {
			if s.Repo == "" || s.Path == "" || !commitRE.MatchString(s.Commit) {
				t.Errorf("%s: source %+v needs a repo, a path and a full commit hash", kind, s)
			}
		}
		def, ok := l.Kinds()[kind]
		if !ok {
			t.Errorf("table %s has no engine kind", kind)
			continue
		}
		versions := []string{tb.Versions.From, tb.Versions.To}
		for _, vk := range def.Versioned {
			versions = append(versions, vk.Since, vk.Until)
		}
		versions = append(versions, pinnedVersions(t, l, kind)...)
		for _, v := range versions {
			if v == "" {
				continue
			}
			for name, m := range def.KnobsAt(v) {
				checkMapping(t, tb, kind+" "+v+" "+name, m, v)
			}
		}
	}
}

func checkMapping(t *testing.T, tb *FlagTable, where string, m KnobFlag, v string) {
	has := func(list []FlagSpec, name string) bool {
		for _, f := range list {
			if (f.Name == name || slices.Contains(f.Aliases, name)) && f.In(v) {
				return true
			}
		}
		return false
	}
	switch {
	case m.Refuse != "":
	case m.Flag != "" && !has(tb.Flags, m.Flag), m.JSON != "" && !has(tb.Flags, m.JSON):
		t.Errorf("%s: writes a flag the table lacks", where)
	case m.Env != "" && !has(tb.Env, m.Env):
		t.Errorf("%s: writes environment variable %s the table lacks", where, m.Env)
	case m.Option != "" && !has(tb.Options, m.Option):
		t.Errorf("%s: writes option %s the table lacks", where, m.Option)
	}
	for _, f := range m.Flags {
		if !has(tb.Flags, f) {
			t.Errorf("%s: writes --%s, which the table lacks", where, f)
		}
	}
	for _, f := range m.Fields {
		if f.Flag != "" && !has(tb.Flags, f.Flag) {
			t.Errorf("%s: field %s writes --%s, which the table lacks", where, f.Knob, f.Flag)
		}
	}
	for _, a := range append(slices.Clone(m.On), m.Off...) {
		if _, _, ok, _ := tb.Lookup(strings.TrimPrefix(a, tb.FlagPrefix), v); !ok {
			t.Errorf("%s: writes %s, which the table lacks", where, a)
		}
	}
}

// committedStudies are the study files under studies/.
func committedStudies(t *testing.T) []string {
	var files []string
	err := filepath.WalkDir("../studies", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".cue") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func pinnedVersions(t *testing.T, l *Loader, kind string) []string {
	var out []string
	for _, f := range committedStudies(t) {
		s, err := l.LoadFile(f)
		if err != nil {
			continue // TestCommittedStudiesFlags reports it
		}
		for _, e := range s.Engines {
			if e.Kind == kind {
				out = append(out, e.Version)
			}
		}
	}
	return out
}

// TestCommittedStudiesFlags fails when a committed study uses a raw flag
// outside its engine version's table, independently of vet's checker.
func TestCommittedStudiesFlags(t *testing.T) {
	l, err := NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	files := committedStudies(t)
	if len(files) < 2 {
		t.Fatalf("found %d committed studies", len(files))
	}
	for _, f := range files {
		s, err := l.LoadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		check := func(where, engine string, args Args) {
			e := s.Engines[engine]
			tb := l.FlagTables()[e.Kind]
			if tb == nil {
				return
			}
			for _, name := range slices.Sorted(maps.Keys(args)) {
				fl, neg, ok, _ := tb.Lookup(name, e.Version)
				if !ok {
					t.Errorf("%s: %s: --%s is not in the %s %s flag table", f, where, name, e.Kind, e.Version)
				} else if msg := fl.CheckValue(args[name], neg); msg != "" {
					t.Errorf("%s: %s: --%s: %s", f, where, name, msg)
				}
			}
		}
		for name, e := range s.Engines {
			check("engines."+name, name, e.Args)
		}
		for _, st := range s.Steps {
			for _, v := range st.Variants {
				if st.Engine != "" {
					check("steps "+st.ID+"/"+v.Name, st.Engine, v.Args)
				} else if len(v.Args) > 0 {
					t.Errorf("%s: step %s has raw args but no engine", f, st.ID)
				}
			}
		}
	}
}

func TestFlagTableErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"engine":"x","flagPrefix":"--","flags":[{"name":"a","type":"list"}]}`, `type "list"`},
		{`{"engine":"x","flagPrefix":"--","flags":[{"name":"a","type":"int"},{"name":"a","type":"int","since":"1.0"}]}`, "listed twice"},
		{`{"engine":"x","flagPrefix":"--","flags":[],"extra":1}`, "unknown field"},
		{`{"flagPrefix":"--"}`, "engine and flagPrefix"},
		{`{"engine":"x","flagPrefix":"--","sources":[{"path":"p"}],"flags":[{"name":"a","type":"int","default":"0.5"}]}`, `default "0.5": takes an integer`},
		{`{"engine":"x","flagPrefix":"--","sources":[{"path":"p"}],"flags":[{"name":"a","type":"string","choices":["on","off"],"default":"auto"}]}`, "invalid choice"},
		{`{"engine":"x","flagPrefix":"--","sources":[{"path":"p"}],"flags":[{"name":"a","type":"bool","default":"yes"}]}`, "a switch"},
		{`{"engine":"x","flagPrefix":"--","sources":[{"path":"p"},{"path":"q"}],"flags":[{"name":"a","type":"int","default":"1"}]}`, "needs defaultFrom"},
		{`{"engine":"x","flagPrefix":"--","sources":[{"path":"p"}],"flags":[{"name":"a","type":"int","default":"1","defaultFrom":"r"}]}`, `defaultFrom "r"`},
		{`{"engine":"x","flagPrefix":"--","sources":[{"path":"p"}],"flags":[{"name":"a","type":"int","default":"1","defaultNote":"n"}]}`, "both a default"},
		{`{"engine":"x","flagPrefix":"--","flags":[{"name":"a","type":"int","defaultFrom":"p"}]}`, "defaultFrom without"},
	} {
		if _, err := ParseFlagTable([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseFlagTable(%s) = %v, want an error with %q", c.json, err, c.want)
		}
	}
	ok := `{"engine":"x","flagPrefix":"--","flags":[{"name":"a","type":"int","until":"1.0"},{"name":"a","type":"string","since":"1.0"}]}`
	if _, err := ParseFlagTable([]byte(ok)); err != nil {
		t.Errorf("disjoint ranges refused: %v", err)
	}
}

// A value a study writes matches a default as the parser reads both.
func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		typ  string
		v    any
		def  string
		same bool
	}{
		{"float", 0.9, "0.90", true},
		{"float", "0.9", "0.90", true},
		{"float", 0.95, "0.9", false},
		{"int", int64(2048), "2048", true},
		{"int", 2048.0, "2048", true},
		{"int", 1024.0, "2048", false},
		{"bool", true, "true", true},
		{"bool", false, "true", false},
		{"bool", "true", "true", false}, // a switch is written as a bool
		{"string", "f16", "f16", true},
		{"string", "q8_0", "f16", false},
	} {
		if got := (FlagSpec{Type: c.typ}).SameValue(c.v, c.def); got != c.same {
			t.Errorf("%s %v against default %q: same %v, want %v", c.typ, c.v, c.def, got, c.same)
		}
	}
}

// The llama.cpp table carries the defaults read by hand, each with its
// source, and notes where the default is not a value one could write.
func TestFlagTableDefaults(t *testing.T) {
	tables, err := LoadFlagTables()
	if err != nil {
		t.Fatal(err)
	}
	ll := tables["llamacpp"]
	for name, want := range map[string]string{"cache-ram": "8192", "batch-size": "2048", "cache-type-k": "f16", "flash-attn": "auto", "cont-batching": "true"} {
		f, _, ok, _ := ll.Lookup(name, "0.4.0")
		src, err := ll.DefaultSource(f)
		if !ok || f.Default != want || err != nil || src.Path != "common/common.h" {
			t.Errorf("llamacpp %s: default %q from %q (%v), want %q from common/common.h", name, f.Default, src.Path, err, want)
		}
	}
	for _, name := range []string{"parallel", "ctx-size"} {
		if f, _, _, _ := ll.Lookup(name, "0.4.0"); f.Default != "" || f.DefaultNote == "" {
			t.Errorf("llamacpp %s: default %q, note %q; want none, with a note", name, f.Default, f.DefaultNote)
		}
	}
}

func FuzzParseFlagTable(f *testing.F) {
	for _, n := range []string{"vllm", "sglang", "trtllm"} {
		b, err := os.ReadFile(filepath.Join("flags", n+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "v0.11.0")
	}
	f.Fuzz(func(t *testing.T, b []byte, v string) {
		tb, err := ParseFlagTable(b)
		if err != nil {
			return
		}
		for _, n := range tb.Names(v) {
			if _, _, ok, _ := tb.Lookup(n, v); !ok {
				t.Fatalf("listed name %q not found in %q", n, v)
			}
		}
	})
}

func FuzzCompareVersions(f *testing.F) {
	for _, v := range []string{"v0.5.3.post3", "1.2.0rc1", "b4500", "0.11.0", "", "v", "1..2", "rcpost"} {
		f.Add(v, "0.11.1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if CompareVersions(a, b) != -CompareVersions(b, a) {
			t.Fatalf("CompareVersions(%q, %q) is not antisymmetric", a, b)
		}
		if CompareVersions(a, a) != 0 {
			t.Fatalf("CompareVersions(%q, %q) != 0", a, a)
		}
	})
}
