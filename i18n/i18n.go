// Package i18n holds servelab's message catalogs for the report
// languages (English, Simplified Chinese, Russian), built on
// golang.org/x/text: a catalog per language, plural forms for Russian,
// and language matching for readers' browsers.
//
// Keys are the English messages. Numbers in reports are formatted by the
// callers (two decimals, as the seeds print them) and passed in as
// strings, so the printer's locale rules never change a figure; counts
// go through plural selection.
package i18n

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
	"golang.org/x/text/number"
)

// A Language is one report language and its catalog. Each language's
// file registers one (en.go, zh.go, ru.go), so adding a language is a
// one-file change for the catalogs; TestCatalogsComplete lists what a
// new one lacks.
type Language struct {
	Code string // as in file names and URLs: zh
	Tag  language.Tag
	Name string // in itself, for language choosers
	Rank int    // position in Codes
	// Messages are the texts by English key; a key missing from English
	// is its own text. They hold no Markdown or HTML markup: writers
	// escape what comes from studies and records, and trust these.
	Messages map[string]string
	// Plurals are the messages whose form depends on their first
	// argument, a count.
	Plurals map[string]Plural
	// Units spell unit symbols as the language writes them (Printer.Unit).
	Units map[string]string
	// Terms and Avoid are the glossary's words (see Term).
	Terms map[string]string
	Avoid map[string][]string
}

// Plural is a message's forms by CLDR plural category; a message with
// only Other has one form.
type Plural struct{ One, Few, Many, Other string }

var registry = map[string]*Language{}

func register(l Language) bool {
	if _, dup := registry[l.Code]; dup {
		panic("i18n: language " + l.Code + " registered twice")
	}
	registry[l.Code] = &l
	return true
}

// Codes are the report languages, in the order reports list them.
func Codes() []string { return built().codes }

// Name is the language's name in itself, for language choosers.
func Name(code string) string {
	if l := registry[code]; l != nil {
		return l.Name
	}
	return code
}

type catalogs struct {
	codes []string
	cat   *catalog.Builder
	known map[string]bool
}

// built assembles the registered languages once, after every
// language's file has registered.
var built = sync.OnceValue(func() catalogs {
	c := catalogs{cat: catalog.NewBuilder(catalog.Fallback(language.English)), known: map[string]bool{}}
	for code := range registry {
		c.codes = append(c.codes, code)
	}
	sort.Slice(c.codes, func(i, j int) bool {
		a, b := registry[c.codes[i]], registry[c.codes[j]]
		return a.Rank < b.Rank || a.Rank == b.Rank && a.Code < b.Code
	})
	for _, l := range registry {
		for k := range l.Messages {
			c.known[k] = true
		}
		for k := range l.Plurals {
			c.known[k] = true
		}
	}
	for _, l := range registry {
		for k := range c.known {
			add(c.cat, l, k)
		}
	}
	return c
})

// add sets key's text in l; a key l lacks falls back to English (the
// catalog test reports it), and English's own text of a key is the key.
func add(b *catalog.Builder, l *Language, key string) {
	if p, ok := l.Plurals[key]; ok {
		var cases []any
		for _, c := range []struct {
			form plural.Form
			text string
		}{{plural.One, p.One}, {plural.Few, p.Few}, {plural.Many, p.Many}} {
			if c.text != "" {
				cases = append(cases, c.form, c.text)
			}
		}
		if len(cases) == 0 {
			must(b.SetString(l.Tag, key, p.Other))
			return
		}
		must(b.Set(l.Tag, key, plural.Selectf(1, "%d", append(cases, plural.Other, p.Other)...)))
		return
	}
	text, ok := l.Messages[key]
	if !ok && l.Tag != language.English {
		return
	}
	if !ok {
		text = key
	}
	must(b.SetString(l.Tag, key, text))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// Printer formats messages in one language.
type Printer struct {
	lang string
	p    *message.Printer
}

// New returns the printer for a language code (en, zh, ru).
func New(lang string) (*Printer, error) {
	l, ok := registry[lang]
	if !ok {
		return nil, fmt.Errorf("unknown language %q (want %s)", lang, strings.Join(Codes(), ", "))
	}
	return &Printer{lang: lang, p: message.NewPrinter(l.Tag, message.Catalog(built().cat))}, nil
}

// MustNew is New for languages known to exist.
func MustNew(lang string) *Printer {
	p, err := New(lang)
	if err != nil {
		panic(err)
	}
	return p
}

// Lang is the printer's language code.
func (p *Printer) Lang() string { return p.lang }

// Num writes v with prec decimals as the language writes numbers
// (golang.org/x/text/number): 1,012.73 in English and Chinese, 1 012,73
// in Russian (decimal comma, non-breaking space between thousands).
func (p *Printer) Num(v float64, prec int) string {
	return p.p.Sprint(number.Decimal(v, number.Scale(prec)))
}

// Unit spells a unit symbol as the language writes it: Russian text uses
// Russian symbols (с, мс); Chinese technical text keeps the SI symbols.
func (p *Printer) Unit(u string) string {
	if s, ok := registry[p.lang].Units[u]; ok {
		return s
	}
	return u
}

// T formats the message key in the printer's language. A key missing
// from the catalog is a programming error the tests catch; it prints in
// English with a marker so it cannot pass unnoticed.
func (p *Printer) T(key string, args ...any) string {
	if !built().known[key] {
		return "[untranslated] " + fmt.Sprintf(key, args...)
	}
	out := p.p.Sprintf(key, args...)
	if p.lang == "zh" {
		out = joinHan(out)
	}
	return out
}

// hanSpace is a space between two Chinese characters, or between one
// and a full-width parenthesis.
var hanSpace = regexp.MustCompile(`([\p{Han}）]) +([\p{Han}（])`)

// joinHan drops the spaces a message's template puts around an argument
// when the argument is Chinese too: "在 %s 下" keeps them around
// "ShareGPT 8RPS" and reads "在并发 8 下" with "并发 8".
func joinHan(s string) string {
	for {
		t := hanSpace.ReplaceAllString(s, "$1$2")
		if t == s {
			return s
		}
		s = t
	}
}

// Keys lists every message key.
func Keys() []string {
	var out []string
	for k := range built().known {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Match picks the report language for an Accept-Language header.
func Match(accept string) string {
	var supported []language.Tag
	for _, c := range Codes() {
		supported = append(supported, registry[c].Tag)
	}
	want, _, _ := language.ParseAcceptLanguage(accept)
	_, i, _ := language.NewMatcher(supported).Match(want...)
	return Codes()[i]
}

// Glossary are the terms reports keep in their original spelling in
// every language: engineers search for them as they are.
var Glossary = []string{
	"TTFT", "TPOT", "ITL", "E2E", "GPU", "GPUs", "vLLM", "SGLang", "TensorRT-LLM", "ShareGPT", "RPS", "BS",
	"MTP", "EAGLE", "EAGLE3", "FP8", "BF16", "CUDA", "CUDA graph", "KV", "Torch.compile", "torch.compile",
	"guidellm", "servelab", "servelab-sim", "NVIDIA", "H100", "H200", "HBM3", "SXM", "TB/s", "GiB", "GB",
	"tok/s", "req/s", "ms", "s", "P50", "P90", "P95", "P99", "JSON", "Markdown", "HTML", "API",
	"docker run", "Docker Compose", "Kubernetes", "GPUStack", "flashinfer",
}

// NewList returns the printers of a comma-separated list of languages.
func NewList(list string) ([]*Printer, error) {
	var out []*Printer
	for _, l := range strings.Split(list, ",") {
		p, err := New(strings.TrimSpace(l))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
