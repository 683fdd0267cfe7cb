package i18n

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var verbRE = regexp.MustCompile(`%(\[\d+\])?[-+# 0-9.]*[a-zA-Z%]`)

// verbs counts a message's formatting verbs by kind, ignoring %%.
func verbs(s string) []string {
	var out []string
	for _, v := range verbRE.FindAllString(s, -1) {
		if v == "%%" {
			continue
		}
		out = append(out, v[len(v)-1:])
	}
	sort.Strings(out)
	return out
}

// texts are every text of key in l: its message or its plural forms.
func texts(l *Language, key string) []string {
	if p, ok := l.Plurals[key]; ok {
		var out []string
		for _, f := range []string{p.One, p.Few, p.Many, p.Other} {
			if f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	if s, ok := l.Messages[key]; ok {
		return []string{s}
	}
	if l.Code == "en" {
		return []string{key}
	}
	return nil
}

// Every key has a text in every language with the same arguments, and
// no markup (writers trust catalog text); a plural message is plural in
// every language, with an Other form.
func TestCatalogsComplete(t *testing.T) {
	if len(Codes()) < 2 || Codes()[0] != "en" {
		t.Fatalf("languages %v: English first, and others", Codes())
	}
	for _, key := range Keys() {
		want := strings.Join(verbs(key), "")
		for _, code := range Codes() {
			l := registry[code]
			_, plural := l.Plurals[key]
			if _, other := registry["ru"].Plurals[key]; plural != other {
				t.Errorf("%s: %q is plural in one language and not in another", code, key)
			}
			ts := texts(l, key)
			if len(ts) == 0 {
				t.Errorf("%s: no text for %q", code, key)
			}
			if plural && l.Plurals[key].Other == "" {
				t.Errorf("%s: %q has no Other form", code, key)
			}
			for _, s := range ts {
				if strings.TrimSpace(s) == "" {
					t.Errorf("%s: %q: empty translation", code, key)
				}
				if got := strings.Join(verbs(s), ""); got != want && !strings.HasPrefix(key, "metric ") {
					t.Errorf("%s: %q: translation %q has verbs %q, want %q", code, key, s, got, want)
				}
				if strings.ContainsAny(verbRE.ReplaceAllString(s, ""), "*_[]<>|`\\") {
					t.Errorf("%s: %q: markup characters in %q", code, key, s)
				}
			}
		}
	}
}

var useRE = regexp.MustCompile(`(?:\bd\.M|\.T)\("((?:[^"\\]|\\.)*)"`)

// Every message the renderers use is in the catalog.
func TestUsedKeysExist(t *testing.T) {
	files, _ := filepath.Glob("../render/*/*.go") // render/diff included
	more, _ := filepath.Glob("../site/*.go")
	files = append(files, more...)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range useRE.FindAllStringSubmatch(string(src), -1) {
			n++
			key := strings.ReplaceAll(m[1], `\"`, `"`)
			if key == "metric " {
				continue // metricName appends the metric
			}
			if !built().known[key] {
				t.Errorf("%s: message %q is not in the catalog", f, key)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d uses found: is the pattern still right?", n)
	}
}

func TestRussianPlurals(t *testing.T) {
	p := MustNew("ru")
	for n, want := range map[int]string{1: "раз.", 2: "раза.", 5: "раз.", 22: "раза."} {
		if got := p.T("Each trial is repeated %d times.", n); !strings.HasSuffix(got, want) {
			t.Errorf("%d: %q", n, got)
		}
	}
	if got := MustNew("en").T("Each trial is repeated %d times.", 1); got != "Each trial runs 1 time." {
		t.Errorf("en one: %q", got)
	}
}

func TestMatch(t *testing.T) {
	for in, want := range map[string]string{"ru-RU,ru;q=0.9": "ru", "zh-CN": "zh", "zh-TW": "zh", "de-DE": "en", "": "en"} {
		if got := Match(in); got != want {
			t.Errorf("Match(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestUnknownKeyIsMarked(t *testing.T) {
	if got := MustNew("zh").T("no such key %d", 1); !strings.HasPrefix(got, "[untranslated]") {
		t.Errorf("%q", got)
	}
}

// Every catalog message that names a glossary concept in English names
// it with the glossary's words in every other language.
func TestCatalogsUseGlossary(t *testing.T) {
	for _, key := range Keys() {
		en := strings.ToLower(texts(registry["en"], key)[0])
		for _, term := range Terms {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(term.EN) + `(\b|\W|$)`).MatchString(en) {
				continue
			}
			for _, code := range Codes()[1:] {
				for _, s := range texts(registry[code], key) {
					if w := term.Word(code); !strings.Contains(strings.ToLower(s), strings.ToLower(w)) {
						t.Errorf("%s: %q: %q lacks %q", code, key, s, w)
					}
				}
			}
		}
	}
}

// Chinese messages use full-width punctuation next to Chinese text.
func TestChinesePunctuation(t *testing.T) {
	bad := regexp.MustCompile(`\p{Han}[,;:()!?]|[,;:()!?]\p{Han}`)
	for _, key := range Keys() {
		for _, s := range texts(registry["zh"], key) {
			if bad.MatchString(verbRE.ReplaceAllString(s, "X")) {
				t.Errorf("%q: half-width punctuation in %q", key, s)
			}
		}
	}
}

// A Chinese argument joins the Chinese around it; Latin ones keep their
// spaces.
func TestJoinHan(t *testing.T) {
	p := MustNew("zh")
	for arg, want := range map[string]string{"并发 8": "在并发 8 下", "ShareGPT 8RPS": "在 ShareGPT 8RPS 下", "BS=4（并发 4）": "在 BS=4（并发 4）下"} {
		if got := p.T("lowest %s at %s", "延迟", arg); !strings.Contains(got, want) {
			t.Errorf("%q: %q, want it to contain %q", arg, got, want)
		}
	}
}
