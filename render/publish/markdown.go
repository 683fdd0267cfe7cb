package publish

import (
	"io"

	"servelab.dev/i18n"
	"servelab.dev/render/document"
	"servelab.dev/render/markdown"
)

// Markdown reports: charts as Mermaid, each with its table.
var _ = register(Writer{Name: "md", Rank: 1, Write: func(w io.Writer, doc *document.Doc, p *i18n.Printer) error {
	return markdown.Write(w, doc, p, markdown.Options{})
}})
