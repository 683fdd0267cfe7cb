package document

import (
	"testing"

	"servelab.dev/i18n"
	"servelab.dev/schema"
)

// marked shows inline code as [code], so a test sees where a span ends.
type marked struct{ plain }

func (marked) Code(s string) string { return "[" + s + "]" }

// A flag in study prose is set as code with its value, and the value
// ends where the prose resumes, in any language.
func TestFlagsInProse(t *testing.T) {
	for _, c := range []struct{ lang, in, want string }{
		{"en", "Add --parallel 8 here.", "Add [--parallel 8] here."},
		{"en", "as with --attention-backend=flashinfer (its log)", "as with [--attention-backend=flashinfer] (its log)"},
		{"zh", "相当于 --attention-backend=flashinfer（启动日志会写明）", "相当于 [--attention-backend=flashinfer]（启动日志会写明）"},
		{"ru", "как с --attention-backend=flashinfer (это видно)", "как с [--attention-backend=flashinfer] (это видно)"},
		{"en", "use --reasoning-parser qwen3, then", "use [--reasoning-parser qwen3], then"},
	} {
		text := schema.Text{}
		switch c.lang {
		case "en":
			text.EN = c.in
		case "zh":
			text.EN, text.ZH = "x", c.in
		case "ru":
			text.EN, text.RU = "x", c.in
		}
		if got := (Prose(text)).In(i18n.MustNew(c.lang), marked{}); got != c.want {
			t.Errorf("%s: %q\n got %q\nwant %q", c.lang, c.in, got, c.want)
		}
	}
}

func TestRussianSpacing(t *testing.T) {
	const nb = "\u00a0"
	for _, c := range []struct{ in, want string }{
		{"15,34 мс против 25 мс", "15,34" + nb + "мс против 25" + nb + "мс"},
		{"KV-пул на 32 768 токенов", "KV-пул на 32" + nb + "768 токенов"},
		{"1 000 000 запросов", "1" + nb + "000" + nb + "000 запросов"},
		{"на 5,8 %, за 2,3 с.", "на 5,8" + nb + "%, за 2,3" + nb + "с."},
		{"8 слотов и 3 или 4 прогона", "8 слотов и 3 или 4 прогона"},
		{"при 2 запр./с", "при 2" + nb + "запр./с"},
	} {
		text := schema.Text{EN: "x", RU: c.in}
		if got := (Prose(text)).In(i18n.MustNew("ru"), marked{}); got != c.want {
			t.Errorf("%q\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
