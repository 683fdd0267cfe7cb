package event

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// A recorded event stream (a simulated run's, with the kinds it did not
// meet added by hand; and a cluster driver's) drives the plain log and
// the terminal bar; both are compared with their goldens. The stream
// reads back and writes out to the same bytes.
func TestRecordedStreams(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no recorded streams in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			evs, err := ReadJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			var js, log, bar bytes.Buffer
			jsink, lsink := JSON(&js), Log(&log)
			b := NewBar(&bar, 5, time.Minute, evs[0].Time)
			for _, e := range evs {
				jsink.Emit(e)
				lsink.Emit(e)
				b.Emit(e)
			}
			b.Finish()
			if *update {
				os.WriteFile(f, js.Bytes(), 0o644) // the recorded stream in servelab's own field order
			} else if js.String() != string(raw) {
				t.Errorf("the stream does not write back to its own bytes:\n%s", firstDiff(string(raw), js.String()))
			}
			base := strings.TrimSuffix(f, ".jsonl")
			golden(t, base+".log", log.Bytes())
			golden(t, base+".bar", bar.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it; review it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it; review the diff):\n%s", path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\nwant " + a + "\ngot  " + b
		}
	}
	return "(same lines)"
}

func itoa(n int) string { return strconv.Itoa(n) }

var (
	erase  = regexp.MustCompile(`\r\x1b\[K`)
	status = regexp.MustCompile(`\[[= ]{30}\] [^\n\r]*`)
)

// The bar shows the plain log's lines, word for word, between its status
// lines; no status line is wider than a terminal row (a wrapped line
// could not be erased), and Finish erases the last one.
func TestBarIsTheLogWithAStatusLine(t *testing.T) {
	raw, err := os.ReadFile("testdata/local.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ReadJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var log, bar bytes.Buffer
	b := NewBar(&bar, 6, time.Minute, evs[0].Time)
	for _, e := range evs {
		Log(&log).Emit(e)
		b.Emit(e)
	}
	last := status.FindAllString(bar.String(), -1)
	if got := last[len(last)-1]; !strings.Contains(got, "] 6/6 trials · 9s elapsed · ETA 0s · launch sgl…") {
		t.Errorf("last status line %q", got)
	}
	b.Finish()
	out := bar.String()
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("status line not erased at the end: %q", out[max(0, len(out)-40):])
	}
	for _, st := range status.FindAllString(out, -1) {
		if n := len([]rune(st)); n > statusWidth {
			t.Errorf("status line of %d columns: %q", n, st)
		}
	}
	if got := erase.ReplaceAllString(status.ReplaceAllString(out, ""), ""); got != log.String() {
		t.Errorf("the bar's lines are not the log's:\n%s", firstDiff(log.String(), got))
	}
}

// A long command is clipped to one terminal row.
func TestBarClipsLongLaunch(t *testing.T) {
	var bar bytes.Buffer
	b := NewBar(&bar, 2, time.Minute, time.Unix(0, 0))
	b.Emit(Event{Time: time.Unix(3, 0), Kind: Launching, Launch: &Launch{Engine: strings.Repeat("x", 200), Trials: 1, Command: "cmd"}})
	st := status.FindAllString(bar.String(), -1)
	s := st[len(st)-1]
	if n := len([]rune(s)); n != statusWidth || !strings.HasSuffix(s, "…") || !strings.Contains(s, "0/2 trials · 3s elapsed · ETA 57s") {
		t.Errorf("status line of %d columns: %q", n, s)
	}
}
