package publish

import (
	"io"
	"maps"

	"servelab.dev/i18n"
	"servelab.dev/render/document"
	"servelab.dev/render/html"
)

// HTML reports link their stylesheet, chart script and the pinned
// ECharts build from assets/ beside them (relative, so they open from
// file:// and under any sub-path).
var _ = register(Writer{Name: "html", Rank: 2,
	Write: func(w io.Writer, doc *document.Doc, p *i18n.Printer) error {
		return html.Write(w, doc, p, html.Options{Assets: "assets/"})
	},
	Assets: func(echarts string) (map[string][]byte, error) {
		ech, err := html.ECharts(echarts)
		if err != nil {
			return nil, err
		}
		files := html.Assets()
		maps.Copy(files, ech)
		return files, nil
	}})
