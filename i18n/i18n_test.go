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

// Every key has a Chinese and a Russian text with the same arguments,
// and no markup (writers trust catalog text).
func TestCatalogsComplete(t *testing.T) {
	seen := map[string]bool{}
	check := func(key string, texts ...string) {
		if seen[key] {
			t.Errorf("key %q defined twice", key)
		}
		seen[key] = true
		want := strings.Join(verbs(key), "")
		for _, s := range texts {
			if strings.TrimSpace(s) == "" {
				t.Errorf("%q: empty translation", key)
			}
			if got := strings.Join(verbs(s), ""); got != want && !strings.HasPrefix(key, "metric ") {
				t.Errorf("%q: translation %q has verbs %q, want %q", key, s, got, want)
			}
			if strings.ContainsAny(verbRE.ReplaceAllString(s, ""), "*_[]<>|`\\") {
				t.Errorf("%q: markup characters in %q", key, s)
			}
		}
	}
	for _, m := range messages {
		en := m.key
		if e, ok := metricEnglish[m.key]; ok {
			en = e
		}
		check(m.key, en, m.zh, m.ru)
	}
	for _, m := range plurals {
		check(m.key, m.key, m.enOne, m.zh, m.ruOne, m.ruFew, m.ruMany)
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
			if !known[key] {
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
// it with the glossary's words in Chinese and Russian.
func TestCatalogsUseGlossary(t *testing.T) {
	for _, m := range messages {
		en := strings.ToLower(m.key)
		if e, ok := metricEnglish[m.key]; ok {
			en = strings.ToLower(e)
		}
		for _, term := range Terms {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(term.EN) + `(\b|\W|$)`).MatchString(en) {
				continue
			}
			if !strings.Contains(m.zh, term.ZH) {
				t.Errorf("%q: Chinese %q lacks %q", m.key, m.zh, term.ZH)
			}
			if !strings.Contains(strings.ToLower(m.ru), term.RU) {
				t.Errorf("%q: Russian %q lacks %q", m.key, m.ru, term.RU)
			}
		}
	}
}

// Chinese messages use full-width punctuation next to Chinese text.
func TestChinesePunctuation(t *testing.T) {
	bad := regexp.MustCompile(`\p{Han}[,;:()!?]|[,;:()!?]\p{Han}`)
	for _, m := range messages {
		if s := verbRE.ReplaceAllString(m.zh, "X"); bad.MatchString(s) {
			t.Errorf("%q: half-width punctuation in %q", m.key, m.zh)
		}
	}
}
