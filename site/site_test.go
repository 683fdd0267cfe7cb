package site

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"servelab.dev/render/outdir"
)

// build writes the site from the committed studies and results. It needs
// the pinned npm echarts package: `make test` installs it and sets
// SERVELAB_REQUIRE_SITE so that its absence fails instead of skipping.
func build(t *testing.T) string {
	t.Helper()
	ech := filepath.Join("node_modules", "echarts")
	if _, err := os.Stat(ech); err != nil {
		if os.Getenv("SERVELAB_REQUIRE_SITE") != "" {
			t.Fatalf("%s missing: run `make site-deps` (npm ci in site/)", ech)
		}
		t.Skipf("%s missing: run `make site-deps` (npm ci in site/) to test the site", ech)
	}
	out := filepath.Join(t.TempDir(), "public")
	if err := Build(out, Options{Studies: "../studies", Results: "../results", ECharts: ech, BaseURL: "https://example.org/lab/"}); err != nil {
		t.Fatal(err)
	}
	return out
}

// shared is the site built once for the tests that only read it.
var shared struct {
	once     sync.Once
	tmp, dir string
	err      error
}

// built is the shared site, built on first use; tests must not change it.
func built(t *testing.T) string {
	t.Helper()
	ech := filepath.Join("node_modules", "echarts")
	if _, err := os.Stat(ech); err != nil {
		build(t) // skips, or fails where the site is required
	}
	shared.once.Do(func() {
		if shared.tmp, shared.err = os.MkdirTemp("", "servelab-site-test-"); shared.err != nil {
			return
		}
		shared.dir = filepath.Join(shared.tmp, "public")
		shared.err = Build(shared.dir, Options{Studies: "../studies", Results: "../results", ECharts: ech, BaseURL: "https://example.org/lab/"})
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.tmp != "" {
		os.RemoveAll(shared.tmp)
	}
	os.Exit(code)
}

func tree(t *testing.T, dir string) map[string][]byte {
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = b
		}
		return err
	})
	return out
}

func TestBuildIsDeterministic(t *testing.T) {
	a, b := tree(t, built(t)), tree(t, build(t))
	if len(a) != len(b) {
		t.Fatalf("%d files vs %d", len(a), len(b))
	}
	for name, x := range a {
		if !bytes.Equal(x, b[name]) {
			t.Errorf("%s differs between two builds", name)
		}
	}
}

// Three languages × (index + two studies, each as HTML and Markdown),
// the root chooser, the sitemap and the assets with ECharts' licence.
func TestBuildLayout(t *testing.T) {
	files := tree(t, built(t))
	want := []string{"index.html", "sitemap.xml", "assets/echarts.min.js", "assets/echarts-LICENSE.txt", "assets/echarts-NOTICE.txt",
		"assets/servelab-charts.js", "assets/site.js", "assets/report.css", "assets/site.css"}
	for _, l := range []string{"en", "zh", "ru"} {
		want = append(want, l+"/index.html")
		for _, s := range []string{"qwen3.5-9b-h100-latency", "qwen3-8b-h100-latency"} {
			want = append(want, l+"/"+s+".html", l+"/"+s+".md")
		}
	}
	for _, w := range want {
		if _, ok := files[w]; !ok {
			t.Errorf("missing %s", w)
		}
	}
}

// Every internal link and asset resolves; no script, style or image
// comes from another host (only a citation's <a> leaves the site); every page has the CSP and its alternates.
func TestLinksResolveAndStayLocal(t *testing.T) {
	dir := built(t)
	for name, data := range tree(t, dir) {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		doc, err := html.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		csp, alternates := false, 0
		walk(doc, func(n *html.Node) {
			for _, a := range n.Attr {
				if a.Key != "href" && a.Key != "src" {
					continue
				}
				checkLink(t, dir, name, n.Data, a.Val)
			}
			if n.Data == "meta" && attr(n, "http-equiv") == "Content-Security-Policy" && attr(n, "content") == CSP {
				csp = true
			}
			if n.Data == "link" && attr(n, "rel") == "alternate" && attr(n, "hreflang") != "" {
				alternates++
			}
		})
		if !csp {
			t.Errorf("%s: no Content-Security-Policy meta", name)
		}
		if alternates < 3 {
			t.Errorf("%s: %d hreflang alternates", name, alternates)
		}
	}
}

func checkLink(t *testing.T, dir, page, element, ref string) {
	t.Helper()
	if strings.HasPrefix(ref, "#") {
		return
	}
	// A citation of a published source is a link a reader follows, not
	// something the page loads.
	if element == "a" && strings.HasPrefix(ref, "https://") {
		return
	}
	if strings.Contains(ref, "//") || strings.HasPrefix(ref, "/") || strings.Contains(ref, ":") {
		t.Errorf("%s: <%s> refers outside the site: %s", page, element, ref)
		return
	}
	target := filepath.Join(dir, filepath.Dir(page), strings.SplitN(ref, "#", 2)[0])
	if _, err := os.Stat(target); err != nil {
		t.Errorf("%s: <%s> %s does not resolve", page, element, ref)
	}
}

func walk(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
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

// A failed build leaves the previous site in place.
func TestFailedBuildKeepsOldSite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "keep.txt"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(out, outdir.Marker), outdir.Manifest(map[string]bool{"keep.txt": true}), 0o644)
	err := Build(out, Options{Studies: "../studies", Results: "../results", ECharts: filepath.Join(t.TempDir(), "none")})
	if err == nil || !strings.Contains(err.Error(), "make site") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "keep.txt")); string(b) != "old" {
		t.Error("the old site was touched")
	}
}

// A folder servelab did not make is refused before any work; a site it
// made is replaced, and its files that the new build lacks go with it.
func TestBuildRefusesForeignFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "run.json"), []byte("{}"), 0o644)
	err := Build(out, Options{Studies: "../studies", Results: "../results", ECharts: "none"})
	if err == nil || !strings.Contains(err.Error(), "servelab did not create it") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "run.json")); string(b) != "{}" {
		t.Error("a file servelab did not write was touched")
	}
	dir := build(t)
	os.WriteFile(filepath.Join(dir, "en", "gone.html"), []byte("old page"), 0o644)
	old, _ := os.ReadFile(filepath.Join(dir, outdir.Marker))
	os.WriteFile(filepath.Join(dir, outdir.Marker), append(old, "en/gone.html\n"...), 0o644)
	if err := Build(dir, Options{Studies: "../studies", Results: "../results", ECharts: filepath.Join("node_modules", "echarts")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "en", "gone.html")); err == nil {
		t.Error("a page servelab wrote before and no longer builds is still there")
	}
	if _, err := os.Stat(filepath.Join(dir, "sitemap.xml")); err == nil {
		t.Error("sitemap.xml written without a base URL")
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".site-*"))
	if len(matches) > 0 {
		t.Errorf("left behind: %v", matches)
	}
}

// BenchmarkBuild is the whole site: every study × three languages,
// analysis, reports, assets (target: under 2 s).
func BenchmarkBuild(b *testing.B) {
	ech := filepath.Join("node_modules", "echarts")
	if _, err := os.Stat(ech); err != nil {
		b.Skip("npm echarts not installed")
	}
	out := filepath.Join(b.TempDir(), "public")
	for b.Loop() {
		if err := Build(out, Options{Studies: "../studies", Results: "../results", ECharts: ech}); err != nil {
			b.Fatal(err)
		}
	}
}
