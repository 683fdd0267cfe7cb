package report

import (
	"strconv"

	"servelab.dev/i18n"
	d "servelab.dev/render/document"
)

func itoa(n int) string { return strconv.Itoa(n) }

func trim(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// params writes a parameter count as each language's model cards do:
// 8.2 B in English, 82 亿 in Chinese, 8,2 млрд in Russian.
type params float64

func (n params) In(p *i18n.Printer, f d.Format) string {
	v := float64(n)
	switch p.Lang() {
	case "zh":
		return d.Num{V: v / 1e8, Prec: -1}.In(p, f) + f.Esc(" 亿")
	case "ru":
		return d.Num{V: v / 1e9, Prec: -1}.In(p, f) + f.Esc("\u00a0млрд")
	}
	return d.Num{V: v / 1e9, Prec: -1}.In(p, f) + f.Esc("\u00a0B")
}

// num is a figure with as many decimals as it has, up to two.
func num(v float64) d.Num { return d.Num{V: v, Prec: -1} }
