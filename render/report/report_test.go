package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	rhtml "servelab.dev/render/html"
	"servelab.dev/render/markdown"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// -update (or SERVELAB_UPDATE=1) rewrites testdata/golden; review the diff.
var update = flag.Bool("update", false, "rewrite the golden reports")

var studies = []string{"qwen3.5-9b-h100-latency", "qwen3-8b-h100-latency"}

func seed(t *testing.T, id string) (*schema.Study, *decide.Analysis, decide.Runs) {
	t.Helper()
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("../../studies/" + id + ".cue")
	if err != nil {
		t.Fatal(err)
	}
	all, err := store.Open("../../results").All()
	if err != nil {
		t.Fatal(err)
	}
	runs := decide.Runs{}
	for k, rs := range all {
		for _, r := range rs {
			runs[k] = append(runs[k], r.Record)
		}
	}
	a, err := decide.Analyze(s, decide.Records{Runs: runs}, decide.Auto)
	if err != nil {
		t.Fatal(err)
	}
	return s, a, runs
}

func renderAll(t *testing.T, s *schema.Study, a *decide.Analysis, runs decide.Runs) map[string][]byte {
	doc := Build(s, a, runs)
	out := map[string][]byte{}
	for _, lang := range i18n.Codes() {
		p := i18n.MustNew(lang)
		var md, h bytes.Buffer
		if err := markdown.Write(&md, doc, p, markdown.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := rhtml.Write(&h, doc, p, rhtml.Options{Assets: "assets/"}); err != nil {
			t.Fatal(err)
		}
		out[s.ID+"."+lang+".md"], out[s.ID+"."+lang+".html"] = md.Bytes(), h.Bytes()
	}
	return out
}

// The six Markdown and six HTML reports of the seed studies, golden.
func TestGoldenReports(t *testing.T) {
	up := *update || os.Getenv("SERVELAB_UPDATE") != ""
	for _, id := range studies {
		s, a, runs := seed(t, id)
		for name, got := range renderAll(t, s, a, runs) {
			path := filepath.Join("testdata", "golden", name)
			if up {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				os.WriteFile(path+".got", got, 0o644)
				t.Errorf("%s differs from its golden file; see %s.got", name, path)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	s, a, runs := seed(t, studies[1])
	x, y := renderAll(t, s, a, runs), renderAll(t, s, a, runs)
	if !reflect.DeepEqual(x, y) {
		t.Error("two renders differ")
	}
}

var (
	fenceRE    = regexp.MustCompile("(?s)```.*?```")
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	linkRE     = regexp.MustCompile(`\]\([^)]*\)`) // a link's target is a path, not prose
	englishRE  = regexp.MustCompile(`[A-Za-z]{2,}(?:[ ,'-]+[A-Za-z]{2,})+`)
)

// The Chinese and Russian reports have no English sentence outside code,
// commands, numbers and glossary terms.
func TestTranslatedReportsHaveNoEnglish(t *testing.T) {
	gloss := append([]string{}, i18n.Glossary...)
	for _, id := range studies {
		s, a, runs := seed(t, id)
		gloss = append(gloss, s.Hardware.GPU, s.Model.ID)
		reports := renderAll(t, s, a, runs)
		for _, lang := range []string{"zh", "ru"} {
			text := string(reports[id+"."+lang+".md"])
			text = fenceRE.ReplaceAllString(text, "")
			text = codeSpanRE.ReplaceAllString(text, "")
			text = linkRE.ReplaceAllString(text, "]")
			for _, g := range longestFirst(gloss) {
				text = strings.ReplaceAll(text, g, " ")
			}
			for _, m := range englishRE.FindAllString(text, -1) {
				t.Errorf("%s.%s: English words %q", id, lang, m)
			}
		}
	}
}

func longestFirst(s []string) []string {
	out := append([]string{}, s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if len(out[j]) > len(out[i]) {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// The serving command block parses, as a POSIX shell command, back to
// exactly the argv of the configuration the page deploys (seed 000's
// speculative-config included): the final command, less the settings
// adopted on noise where a step measured it without them (seed 000's
// --performance-mode and --language-model-only).
func TestCommandBlockRoundTrip(t *testing.T) {
	for _, id := range studies {
		s, a, runs := seed(t, id)
		var md bytes.Buffer
		markdown.Write(&md, Build(s, a, runs), i18n.MustNew("en"), markdown.Options{})
		block := regexp.MustCompile("(?s)### Serving command\n\n```bash\n(.*?)\n```").FindStringSubmatch(md.String())
		if block == nil {
			t.Fatalf("%s: no serving command block", id)
		}
		l, err := plan.Command(s, *a.Recommended(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := parseCommand(t, block[1]); !reflect.DeepEqual(got, l.Argv) {
			t.Errorf("%s: block parses to\n%q\nwant %q", id, got, l.Argv)
		}
		lean := slices.Contains(l.Argv, "--language-model-only") != slices.Contains(a.Final.Argv, "--language-model-only")
		if lean != (id == "qwen3.5-9b-h100-latency") {
			t.Errorf("%s: recommends %q against the final %q", id, l.Argv, a.Final.Argv)
		}
	}
}

// Study text with script tags renders inert: in the page's prose, in a
// chart's title and in its option JSON; the page parses as HTML.
func TestHostileStudyTextIsInert(t *testing.T) {
	s, a, runs := seed(t, studies[0])
	evil := "<script>alert(1)</script> and </script><img src=x onerror=alert(2)>"
	s.Notes = append(s.Notes, schema.Text{EN: evil, ZH: evil, RU: evil})
	s.Steps[0].Title = schema.Text{EN: "Engine " + evil, ZH: evil, RU: evil}
	doc := Build(s, a, runs)
	for _, lang := range i18n.Codes() {
		var h bytes.Buffer
		if err := rhtml.Write(&h, doc, i18n.MustNew(lang), rhtml.Options{Assets: "assets/"}); err != nil {
			t.Fatal(err)
		}
		root, err := html.Parse(bytes.NewReader(h.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		checkInert(t, root)
		if !strings.Contains(textOf(root), "<script>alert(1)</script>") {
			t.Errorf("%s: the note's text is gone instead of shown", lang)
		}
	}
}

func checkInert(t *testing.T, n *html.Node) {
	if n.Type == html.ElementNode {
		switch n.Data {
		case "img", "iframe", "object":
			t.Errorf("element <%s> from study text", n.Data)
		case "script":
			typ, src := attr(n, "type"), attr(n, "src")
			body := textOf(n)
			switch {
			case typ == "application/json":
				if strings.Contains(body, "</") || strings.Contains(body, "<script") {
					t.Errorf("chart JSON holds markup: %.80s", body)
				}
			case strings.HasPrefix(src, "assets/") && body == "":
			default:
				t.Errorf("unexpected script (type %q, src %q): %.80s", typ, src, body)
			}
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("event handler attribute %s", a.Key)
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		checkInert(t, c)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// A report from simulated records says so at the top, in every language.
func TestSimulatedBanner(t *testing.T) {
	s, a, runs := seed(t, studies[1])
	for _, rs := range runs {
		for _, r := range rs {
			c := *r
			c.Provenance.Kind = "simulated"
			*r = c
		}
	}
	doc := Build(s, a, runs)
	if _, ok := doc.Blocks[0].(d.Banner); !ok {
		t.Fatalf("first block is %T, want the banner", doc.Blocks[0])
	}
	for _, lang := range i18n.Codes() {
		var md bytes.Buffer
		markdown.Write(&md, doc, i18n.MustNew(lang), markdown.Options{})
		if !strings.Contains(strings.SplitN(md.String(), "\n## ", 2)[0], "servelab-sim") {
			t.Errorf("%s: no simulated banner before the first section", lang)
		}
	}
}

// No page shows Markdown's asterisks as text: every "**" becomes bold in
// the HTML, in every language (CommonMark does not close "**" after a
// full-width colon followed by a CJK character).
func TestNoLiteralAsterisks(t *testing.T) {
	code := regexp.MustCompile(`(?s)<(script|pre|code|style)\b.*?</(script|pre|code|style)>`)
	tag := regexp.MustCompile(`<[^>]*>`)
	for _, id := range studies {
		s, a, runs := seed(t, id)
		for name, page := range renderAll(t, s, a, runs) {
			if !strings.HasSuffix(name, ".html") {
				continue
			}
			visible := tag.ReplaceAllString(code.ReplaceAllString(string(page), ""), "")
			if i := strings.Index(visible, "**"); i >= 0 {
				t.Errorf("%s shows literal asterisks: %q", name, visible[max(0, i-40):min(len(visible), i+40)])
			}
		}
	}
}
