package startup

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// dump prints settings one per line, for golden files a reader can check
// against the log beside them.
func dump(s *Settings) string {
	if s == nil {
		return "nothing\n"
	}
	var b strings.Builder
	last := ""
	for _, st := range s.Settings {
		if st.Line != last {
			fmt.Fprintf(&b, "from %s\n", st.Line)
			last = st.Line
		}
		key := ""
		if st.Key {
			key = " key"
		}
		fmt.Fprintf(&b, "  setting %s = %s flag=%q%s\n", st.Name, st.Value, st.Flag, key)
	}
	for _, n := range s.Notices {
		fmt.Fprintf(&b, "notice %s flags=%q\n  from %s\n", n.Text, n.Flags, n.Line)
	}
	return b.String()
}

// Every log under testdata/ENGINE parses to its golden file: the
// committed llama-server logs of the H200 study, and vLLM, SGLang and
// upstream llama.cpp lines pasted in public issues (testdata/SOURCE).
func TestGolden(t *testing.T) {
	logs, _ := filepath.Glob("testdata/*/*.log")
	if len(logs) < 8 {
		t.Fatalf("%d fixtures", len(logs))
	}
	for _, path := range logs {
		engine := filepath.Base(filepath.Dir(path))
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Read(f, engine)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, golden := []byte(dump(s)), strings.TrimSuffix(path, ".log")+".golden"
		if *update {
			os.WriteFile(golden, got, 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant (%s):\n%s", path, got, golden, want)
		}
	}
}

// The last line a bounded read cuts is dropped, not parsed.
func TestReadBound(t *testing.T) {
	pad := strings.Repeat("x", MaxRead-20) + "\n"
	log := pad + "0.00.1 I srv    load_model: initializing, n_slots = 81920\n"
	s, err := Read(strings.NewReader(log), "llamacpp")
	if err != nil || s != nil {
		t.Errorf("got %v %v, want nothing: the slots line is past the bound", dump(s), err)
	}
}

func TestUnknownEngine(t *testing.T) {
	if s, err := Read(strings.NewReader("anything"), "trtllm"); s != nil || err != nil {
		t.Errorf("trtllm: %v %v", s, err)
	}
}

// A list cut mid-value keeps the items before the cut and nothing of the
// cut one; a mismatched bracket gives nothing.
func TestItems(t *testing.T) {
	for _, c := range []struct {
		in   string
		open bool
		want string
	}{
		{"a=1, b=2)", false, "a=1|b=2"},
		{"a=1, b=22", false, "a=1"},
		{"a=1, b=22", true, "a=1|b=22"},
		{"a=1, b=C(x=[1, 2]), c='),'", true, "a=1|b=C(x=[1, 2])|c='),'"},
		{"a=1, b=C(x=[1, 2), c=3)", false, ""},
		{"a='it\\'s, ok', b=2}", false, "a='it\\'s, ok'|b=2"},
		{"a=[1, 2", true, ""},
	} {
		if got := strings.Join(items(c.in, c.open), "|"); got != c.want {
			t.Errorf("items(%q, %v) = %q, want %q", c.in, c.open, got, c.want)
		}
	}
}
