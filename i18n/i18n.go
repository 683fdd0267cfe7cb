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
	"sort"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
	"golang.org/x/text/number"
)

// Codes are the report languages, in the order reports list them.
var Codes = []string{"en", "zh", "ru"}

var tags = map[string]language.Tag{"en": language.English, "zh": language.SimplifiedChinese, "ru": language.Russian}

// Names are the languages' names in themselves, for language choosers.
var Names = map[string]string{"en": "English", "zh": "中文", "ru": "Русский"}

var cat = build()

func build() *catalog.Builder {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, m := range messages {
		en := m.key
		if e, ok := metricEnglish[m.key]; ok {
			en = e
		}
		must(b.SetString(language.English, m.key, en))
		must(b.SetString(language.SimplifiedChinese, m.key, m.zh))
		must(b.SetString(language.Russian, m.key, m.ru))
	}
	for _, m := range plurals {
		must(b.Set(language.English, m.key, plural.Selectf(1, "%d", plural.One, m.enOne, plural.Other, m.key)))
		must(b.SetString(language.SimplifiedChinese, m.key, m.zh))
		must(b.Set(language.Russian, m.key, plural.Selectf(1, "%d",
			plural.One, m.ruOne, plural.Few, m.ruFew, plural.Many, m.ruMany, plural.Other, m.ruFew)))
	}
	return b
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
	t, ok := tags[lang]
	if !ok {
		return nil, fmt.Errorf("unknown language %q (want %s)", lang, strings.Join(Codes, ", "))
	}
	return &Printer{lang: lang, p: message.NewPrinter(t, message.Catalog(cat))}, nil
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
	if s, ok := units[p.lang][u]; ok {
		return s
	}
	return u
}

var units = map[string]map[string]string{
	"ru": {"s": "с", "ms": "мс", "tok/s": "ток/с", "req/s": "запр/с", "GiB": "ГиБ", "TB/s": "ТБ/с"},
}

// T formats the message key in the printer's language. A key missing
// from the catalog is a programming error the tests catch; it prints in
// English with a marker so it cannot pass unnoticed.
func (p *Printer) T(key string, args ...any) string {
	if !known[key] {
		return "[untranslated] " + fmt.Sprintf(key, args...)
	}
	return p.p.Sprintf(key, args...)
}

var known = func() map[string]bool {
	k := map[string]bool{}
	for _, m := range messages {
		k[m.key] = true
	}
	for _, m := range plurals {
		k[m.key] = true
	}
	return k
}()

// Keys lists every message key.
func Keys() []string {
	var out []string
	for k := range known {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Match picks the report language for an Accept-Language header.
func Match(accept string) string {
	supported := []language.Tag{language.English, language.SimplifiedChinese, language.Russian}
	want, _, _ := language.ParseAcceptLanguage(accept)
	_, i, _ := language.NewMatcher(supported).Match(want...)
	return Codes[i]
}

// Glossary are the terms reports keep in their original spelling in
// every language: engineers search for them as they are.
var Glossary = []string{
	"TTFT", "TPOT", "ITL", "E2E", "GPU", "GPUs", "vLLM", "SGLang", "TensorRT-LLM", "ShareGPT", "RPS", "BS",
	"MTP", "EAGLE", "EAGLE3", "FP8", "BF16", "CUDA", "CUDA graph", "KV", "Torch.compile", "torch.compile",
	"guidellm", "servelab", "servelab-sim", "NVIDIA", "H100", "H200", "HBM3", "SXM", "TB/s", "GiB",
	"tok/s", "req/s", "ms", "s", "P50", "P90", "P95", "P99", "JSON", "Markdown", "HTML", "API",
	"docker run", "Docker Compose", "Kubernetes", "GPUStack",
}
