package plan

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"
)

// FuzzShell: any argv without NUL bytes must come back from the printed
// command exactly. Words are separated by NUL in the fuzz input.
func FuzzShell(f *testing.F) {
	for _, argv := range tricky {
		f.Add(strings.Join(argv, "\x00"))
	}
	f.Fuzz(func(t *testing.T, in string) {
		argv := strings.Split(in, "\x00")
		line, err := Shell(nil, argv)
		if err != nil {
			t.Skip() // only invalid UTF-8 or the like reach here
		}
		got, err := shell.Fields(line, func(string) string { return "" })
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !reflect.DeepEqual(got, argv) {
			t.Fatalf("round trip of %q:\n got %q\nwant %q", line, got, argv)
		}
	})
}
