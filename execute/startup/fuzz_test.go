package startup

import (
	"strings"
	"testing"
)

// fuzz checks what any input may not do: crash, or report a setting or
// notice whose line is not in the log.
func fuzz(f *testing.F, engine string) {
	f.Fuzz(func(t *testing.T, log string) {
		s := Parse([]byte(log), engine)
		if s == nil {
			return
		}
		for _, st := range s.Settings {
			if st.Name == "" || !strings.Contains(log, strings.TrimSpace(st.Line)) && engine != "llamacpp" {
				t.Fatalf("setting %+v not from the log", st)
			}
			if engine != "llamacpp" && !strings.Contains(st.Line, st.Value) && st.Value != "" {
				t.Fatalf("value %q not in its line %q", st.Value, st.Line)
			}
		}
		for _, n := range s.Notices {
			if n.Text == "" || !strings.Contains(log, n.Text) {
				t.Fatalf("notice %+v not from the log", n)
			}
		}
	})
}

func FuzzLlamaCpp(f *testing.F) { fuzz(f, "llamacpp") }
func FuzzVLLM(f *testing.F)     { fuzz(f, "vllm") }
func FuzzSGLang(f *testing.F)   { fuzz(f, "sglang") }
