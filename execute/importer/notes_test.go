package importer

import (
	"strings"
	"testing"

	"servelab.dev/i18n"
)

// Every note an import can write is translated, so reports in every
// language show it under the run.
func TestNotesTranslated(t *testing.T) {
	for _, lang := range []string{"en", "zh", "ru"} {
		p := i18n.MustNew(lang)
		for _, k := range NoteKeys {
			args := make([]any, strings.Count(k, "%s"))
			for i := range args {
				args[i] = "1"
			}
			if got := p.T(k, args...); strings.Contains(got, "untranslated") || strings.Contains(got, "%!") {
				t.Errorf("%s: %q → %q", lang, k, got)
			}
		}
	}
}
