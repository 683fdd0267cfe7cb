package i18n

// Term is one concept the reports name. Each language gives its word
// for it (Language.Terms: the words the user's seed reports use; for
// Russian a stem shared by the word's inflections) and the words a page
// must not use instead (Language.Avoid: calques, earlier variants).
// Required terms appear on every decided report page.
type Term struct {
	EN       string
	Required bool
}

// Word is the term's word in lang (the English one for English).
func (t Term) Word(lang string) string {
	if l := registry[lang]; l != nil && l.Terms[t.EN] != "" {
		return l.Terms[t.EN]
	}
	return t.EN
}

// Avoid lists the words lang's pages must not use for the term.
func (t Term) Avoid(lang string) []string {
	if l := registry[lang]; l != nil {
		return l.Avoid[t.EN]
	}
	return nil
}

// Terms is the glossary the catalogs and the tests use.
var Terms = []Term{
	{EN: "benchmark case", Required: true},
	{EN: "serving command", Required: true},
	{EN: "baseline", Required: true},
	{EN: "optimized", Required: true},
	{EN: "summary of optimization options", Required: true},
	{EN: "other benchmark cases", Required: true},
	{EN: "confidence interval"},
	{EN: "warm-up", Required: true},
	{EN: "experimental setup", Required: true},
	{EN: "conclusion", Required: true},
	{EN: "mean latency", Required: true},
	{EN: "%d runs", Required: true},
	{EN: "engine", Required: true},
	{EN: "max-num-seqs"},
	{EN: "quality guard"},
	{EN: "token"},
}
