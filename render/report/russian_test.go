package report

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"servelab.dev/execute/decide"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// A Russian page never puts a profile's title bare after a preposition
// or after the word "профиль" in any case: the title is a nominative
// phrase («Конкурентность 8»), so it stands in quotes after a noun that
// carries the case ("при профиле «Конкурентность 8»").
func TestRussianProfileTitlesQuoted(t *testing.T) {
	pages := map[string]func() (*schema.Study, *decide.Analysis){}
	for _, id := range studies {
		pages[id] = func() (*schema.Study, *decide.Analysis) {
			s, a, runs := seed(t, id)
			a.Runs = runs
			return s, a
		}
	}
	pages[h200] = func() (*schema.Study, *decide.Analysis) { return h200Study(t) }
	p := i18n.MustNew("ru")
	before := `(?i)(?:^|[\s(])(?:в|во|при|на|для|по|с|у|из|от|до|к|о|об|профиль|профиля|профилю|профиле|профилем|профили|профилей|профилях|профилям|профилями)\s+`
	for id, load := range pages {
		s, a := load()
		md := strings.ReplaceAll(markdownOf(t, s, a, nil, "ru"), "\u00a0", " ")
		for _, name := range slices.Sorted(maps.Keys(s.Profiles)) {
			title := d.String(ProfileTitle(s, name), p)
			re := regexp.MustCompile(before + regexp.QuoteMeta(title))
			if m := re.FindString(md); m != "" {
				t.Errorf("%s: a bare profile title after a preposition: %q", id, m)
			}
		}
	}
}
