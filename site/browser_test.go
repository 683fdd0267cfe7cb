package site

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// chromiumPath finds Debian's chromium. `make test` installs it when it
// can (root and apt-get) and then sets SERVELAB_REQUIRE_BROWSER, so that
// on CI a missing browser fails the test instead of skipping it.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SERVELAB_REQUIRE_BROWSER") != "" {
		t.Fatal("chromium not found but SERVELAB_REQUIRE_BROWSER is set")
	}
	t.Skip("chromium not installed and not installable here (`make chromium` needs root and apt-get): browser test skipped")
	return ""
}

// recorder serves the site and remembers what was asked for and missed.
type recorder struct {
	h       http.Handler
	mu      sync.Mutex
	missing []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rw := &status{ResponseWriter: w, code: 200}
	r.h.ServeHTTP(rw, req)
	if rw.code == http.StatusNotFound {
		r.mu.Lock()
		r.missing = append(r.missing, req.URL.Path)
		r.mu.Unlock()
	}
}

type status struct {
	http.ResponseWriter
	code int
}

func (s *status) WriteHeader(c int) { s.code = c; s.ResponseWriter.WriteHeader(c) }

// chrome loads url headless in a fresh profile with every host but
// loopback unresolvable, and returns the DOM after scripts ran and what
// the page logged to its console. Requests the page made to any host but
// loopback (from Chromium's net log: the page is their initiator) fail
// the test; Chromium's own background requests have no page initiator.
func chrome(t *testing.T, bin, url string, extra ...string) (dom, console string) {
	t.Helper()
	netlog := filepath.Join(t.TempDir(), "net.json")
	extra = append(extra, "--log-net-log="+netlog)
	defer func() {
		for _, u := range foreignRequests(t, netlog) {
			t.Errorf("%s requested %s", url, u)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(),
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
		"--enable-logging=stderr", "--v=0", "--virtual-time-budget=15000",
	}, extra...)
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, tail(errb.String()))
	}
	return out.String(), errb.String()
}

// consoleRE matches what Chromium logs of a page's console, e.g.
// [8795:8795:1202/162722.141480:INFO:CONSOLE:1] "Uncaught ReferenceError: …", source: …
var consoleRE = regexp.MustCompile(`(?m)^\[[^\]]*:CONSOLE[:(]\d+\)?\] (.*)$`)

// consoleErrors are the page's console messages. servelab's pages log
// nothing, so every message is a problem: a script error, a refused (CSP)
// or failed load, a console.error.
func consoleErrors(log string) []string {
	var out []string
	for _, m := range consoleRE.FindAllStringSubmatch(log, -1) {
		out = append(out, m[1])
	}
	return out
}

// foreignRequests reads Chromium's net log and returns the URLs a page
// (initiator 127.0.0.1) asked for on another host.
func foreignRequests(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("no net log: %v", err)
		return nil
	}
	var log struct {
		Events []struct {
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Errorf("net log: %v", err)
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range log.Events {
		u, init := e.Params.URL, e.Params.Initiator
		if u == "" || !strings.HasPrefix(init, "http://127.0.0.1") || strings.HasPrefix(u, "http://127.0.0.1") || strings.HasPrefix(u, "data:") || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
	}
	return out
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// Every page of the site, loaded once in Chromium at 1280 px wide: no
// console message, no request beyond loopback, no 404, every chart drawn.
// On report pages also: every chart's option is sane (checkOptions);
// every category has its label and no two labels meet (labelProblems);
// the page is at most maxHeight tall. Between them the report pages
// have every kind of chart. The pages run in parallel subtests (as many
// at once as -parallel): each waits mostly on Chromium's start.
func TestPagesInChromium(t *testing.T) {
	bin := chromiumPath(t)
	dir := built(t)
	rec := &recorder{h: measuring{dir: dir, h: http.FileServer(http.Dir(dir))}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	var mu sync.Mutex
	kinds := map[string]int{}
	reports := 0
	t.Run("pages", func(t *testing.T) {
		for name := range tree(t, dir) {
			if !strings.HasSuffix(name, ".html") {
				continue
			}
			page := filepath.ToSlash(name)
			report := !strings.HasSuffix(page, "index.html")
			if report {
				reports++
			}
			t.Run(strings.ReplaceAll(page, "/", "_"), func(t *testing.T) {
				t.Parallel()
				m, dom := measure(t, bin, srv.URL+"/"+page)
				checkCharts(t, page, dom)
				if !report {
					return
				}
				checkOptions(t, page, dom)
				checkReport(t, page, m)
				mu.Lock()
				defer mu.Unlock()
				for _, c := range m.Charts {
					kinds[kindOf(c)]++
				}
			})
		}
	})
	rec.mu.Lock()
	for _, m := range rec.missing {
		t.Errorf("404 for %s", m)
	}
	rec.mu.Unlock()
	if reports < 6 {
		t.Errorf("only %d report pages", reports)
	}
	for _, k := range chartKinds {
		if kinds[k] == 0 {
			t.Errorf("no report page has %s: the label test no longer covers them", k)
		}
	}
	t.Logf("charts by kind: %v", kinds)
}

// checkReport fails a report page whose charts' labels are missing or
// meet, or that is taller than maxHeight.
func checkReport(t *testing.T, page string, m measured) {
	if len(m.Charts) == 0 {
		t.Errorf("%s: no charts", page)
	}
	for _, c := range m.Charts {
		for _, p := range labelProblems(c) {
			t.Errorf("%s %s: %s", page, c.ID, p)
		}
	}
	t.Logf("%s: %d px tall at 1280 px", page, m.Height)
	if m.Height > maxHeight {
		t.Errorf("%s: %d px tall at 1280 px wide, more than %d", page, m.Height, maxHeight)
	}
}

// checkCharts fails when a chart container was left empty: ECharts must
// have drawn an SVG into every one.
func checkCharts(t *testing.T, page, dom string) {
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	n := 0
	walk(doc, func(e *html.Node) {
		if e.Data != "div" || !strings.Contains(attr(e, "class"), "chart-canvas") {
			return
		}
		n++
		svg := false
		walk(e, func(c *html.Node) { svg = svg || c.Data == "svg" })
		if !svg {
			t.Errorf("%s: chart %s is empty", page, attr(e, "id"))
		}
	})
	if strings.Contains(page, "latency") && n == 0 {
		t.Errorf("%s: no chart containers", page)
	}
}

// The root page sends a reader to their browser's language.
func TestLanguageChooser(t *testing.T) {
	bin := chromiumPath(t)
	dir := built(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	for lang, flag := range map[string]string{"ru": "--lang=ru-RU", "zh": "--lang=zh-CN", "en": "--lang=de-DE"} {
		dom, _ := chrome(t, bin, srv.URL+"/index.html", "--dump-dom", flag, "--accept-lang="+strings.TrimPrefix(flag, "--lang="))
		if !strings.Contains(dom, `<html lang="`+lang+`"`) {
			t.Errorf("%s: the chooser did not lead to /%s/ (%.200s)", flag, lang, dom)
		}
	}
}

// One screenshot per language, kept for a person to look at.
func TestScreenshots(t *testing.T) {
	bin := chromiumPath(t)
	dir := built(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	shots := filepath.Join(os.TempDir(), "servelab-site-screenshots")
	os.MkdirAll(shots, 0o755)
	for _, lang := range []string{"en", "zh", "ru"} {
		png := filepath.Join(shots, lang+".png")
		chrome(t, bin, srv.URL+"/"+lang+"/qwen3-8b-h100-latency.html", "--screenshot="+png, "--window-size=1280,2200", "--hide-scrollbars")
		if fi, err := os.Stat(png); err != nil || fi.Size() < 10000 {
			t.Errorf("%s: screenshot missing or empty (%v)", lang, err)
		}
	}
	t.Logf("screenshots in %s", shots)
}
