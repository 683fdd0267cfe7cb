package schema

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docsDataBlocks are the top-level values of schema/*.cue that hold data,
// not the shape of a study: their keys are names, not fields, so the test
// leaves them out. The fields those entries fill are their definitions'
// (#EngineKind, #KnobFlag, #GPU), which the test does check: #KnobFlag is
// what a custom engine's knobMap holds, #GPU's fields match hardware's,
// and #EngineKind and #VersionedKnobs, which no study writes, are short
// enough to document in docs/engines.md for whoever adds an engine kind.
var docsDataBlocks = map[string]string{
	"#EngineKinds":  "the built-in engine kinds (vllm, sglang, trtllm, llamacpp, custom), entries of #EngineKind",
	"#GPUs":         "the GPU table, keyed by the name nvidia-smi prints, entries of #GPU",
	"_vllmBackends": "a hidden table of vLLM's attention backend names",
}

// docsNotFields are words that read like a field before a colon but are
// CUE syntax.
var docsNotFields = map[string]bool{
	"if": true, "for": true, "let": true, "in": true, "package": true, "import": true,
}

// docsField is one field a definition of schema/*.cue declares.
type docsField struct {
	name, file, def string
}

// TestDocsCoverStudyFields: every field that schema/*.cue declares in a
// definition (the study's fields in study.cue, an engine's knob mapping
// and kind in engines.cue, a GPU's facts in gpus.cue) appears in docs/*.md
// as code: a word of an inline code span (`fieldName`, `model.fieldName`),
// or "fieldName:" in a fenced code block. The message names each missing
// field, the file and the definition that declares it.
func TestDocsCoverStudyFields(t *testing.T) {
	files, err := filepath.Glob("*.cue")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no *.cue files in schema/")
	}
	var fields []docsField
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, docsCUEFields(f, string(src))...)
	}
	// A parser that lost its way would find nothing and pass: the study
	// alone declares far more than this.
	if len(fields) < 100 {
		t.Fatalf("found only %d fields in %v: the parser is broken", len(fields), files)
	}

	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	var inline, fenced []string
	for _, d := range docs {
		src, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		i, f := docsMarkdownCode(string(src))
		inline = append(inline, i...)
		fenced = append(fenced, f...)
	}
	inlineText := strings.Join(inline, "\n")
	fencedText := strings.Join(fenced, "\n")

	// A name declared by several definitions (env, knobs, title) is
	// documented once it appears; the first declaration is reported.
	seen := map[string]bool{}
	var missing []docsField
	for _, f := range fields {
		if seen[f.name] {
			continue
		}
		seen[f.name] = true
		q := regexp.QuoteMeta(f.name)
		if regexp.MustCompile(`(^|[^A-Za-z0-9_])`+q+`($|[^A-Za-z0-9_])`).MatchString(inlineText) ||
			regexp.MustCompile(`(^|[^A-Za-z0-9_])`+q+`[!?]?\s*:`).MatchString(fencedText) {
			continue
		}
		missing = append(missing, f)
	}
	sort.Slice(missing, func(i, j int) bool {
		a, b := missing[i], missing[j]
		return a.file+a.def+a.name < b.file+b.def+b.name
	})
	for _, f := range missing {
		t.Errorf("%s: %s.%s is not documented in docs/*.md: add it, as code (`%s`), to docs/study-language.md's field reference (or docs/engines.md for an engine kind's fields)",
			f.file, f.def, f.name, f.name)
	}
}

var docsFieldRE = regexp.MustCompile(`(?:^|[\s{,(\[])([A-Za-z_][A-Za-z0-9_]*)[!?]?\s*:`)

// docsCUEFields returns the fields declared inside the top-level definitions
// of one CUE file, leaving out docsDataBlocks. It drops comments and
// string literals first, so that quoted keys ("NVIDIA H200": …), regular
// expressions and prose are never taken for fields; definition names
// (#Study) and hidden names (_x) are not fields either.
func docsCUEFields(file, src string) []docsField {
	var out []docsField
	for _, decl := range docsTopLevel(docsStripCUE(src)) {
		name := decl.name
		if !strings.HasPrefix(name, "#") {
			continue // package clause, hidden values
		}
		if _, skip := docsDataBlocks[name]; skip {
			continue
		}
		for _, m := range docsFieldRE.FindAllStringSubmatch(decl.body, -1) {
			f := m[1]
			if docsNotFields[f] || strings.HasPrefix(f, "_") {
				continue
			}
			out = append(out, docsField{name: f, file: "schema/" + file, def: name})
		}
	}
	return out
}

// docsStripCUE blanks comments and the contents of string literals, keeping
// the quotes and newlines.
func docsStripCUE(src string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				b.WriteByte(c)
			case c == '\n':
				b.WriteByte(c)
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				b.WriteByte('\n')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

type docsDecl struct{ name, body string }

// docsTopLevel splits stripped CUE into its top-level declarations: each
// begins at bracket depth 0 and runs until a newline at depth 0. name is
// the declaration's first word (#Study, _vllmBackends, package); body is
// the rest.
func docsTopLevel(src string) []docsDecl {
	var out []docsDecl
	depth, start := 0, 0
	flush := func(end int) {
		text := strings.TrimSpace(src[start:end])
		start = end
		if text == "" {
			return
		}
		n := strings.IndexAny(text, ": \t\n")
		if n < 0 {
			n = len(text)
		}
		out = append(out, docsDecl{name: text[:n], body: text[n:]})
	}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
		case '\n':
			if depth == 0 {
				flush(i + 1)
			}
		}
	}
	flush(len(src))
	return out
}

var (
	docsFenceRE      = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	docsInlineCodeRE = regexp.MustCompile("(`+)([^`]+?)(`+)")
)

// docsMarkdownCode returns a document's inline code spans and the lines of
// its fenced code blocks. A fence closes only on a fence of the same
// character at least as long, as in CommonMark, so a ```` block may hold
// ``` lines.
func docsMarkdownCode(src string) (inline, fenced []string) {
	var fence string
	for _, line := range strings.Split(src, "\n") {
		if fence != "" {
			if m := docsFenceRE.FindStringSubmatch(line); m != nil && m[1][0] == fence[0] &&
				len(m[1]) >= len(fence) && strings.TrimSpace(line[len(m[0]):]) == "" {
				fence = ""
				continue
			}
			fenced = append(fenced, line)
			continue
		}
		if m := docsFenceRE.FindStringSubmatch(line); m != nil {
			fence = m[1]
			continue
		}
		for _, m := range docsInlineCodeRE.FindAllStringSubmatch(line, -1) {
			inline = append(inline, m[2])
		}
	}
	return inline, fenced
}

// The parser finds fields inside definitions, nested and inline, and
// nothing in comments, strings, data blocks or hidden values.
func TestDocsCoverStudyFieldsParser(t *testing.T) {
	src := `package schema

// #Doc: commented: out
#A: {
	one!: string // two: not a field
	"quoted": int
	re?: =~"^x: y$"
	nested?: {three: int, four?: [...{five!: int}]}
	if one == "x" {
		six?: int
	}
}
#R: int | {seven!: int}
#GPUs: {"NVIDIA X": {memoryGiB: 1}}
_hidden: {eight: 1}
`
	var got []string
	for _, f := range docsCUEFields("x.cue", src) {
		got = append(got, f.def+"."+f.name)
	}
	want := "#A.one #A.re #A.nested #A.three #A.four #A.five #A.six #R.seven"
	if strings.Join(got, " ") != want {
		t.Errorf("fields: got %q, want %q", strings.Join(got, " "), want)
	}
	inline, fenced := docsMarkdownCode("a `x.one` b\n````md\n```\nin: 1\n```\n````\n`after`\n")
	if strings.Join(inline, ",") != "x.one,after" || strings.Join(fenced, ",") != "```,in: 1,```" {
		t.Errorf("markdown: inline %q, fenced %q", inline, fenced)
	}
}
