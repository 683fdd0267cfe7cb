package schema

import (
	"encoding/json"
	"testing"
)

// A summary is one text or a list of them, and writes back as it came.
func TestLeadJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		fail bool
	}{
		{in: `{"en":"one"}`, n: 1},
		{in: `[{"en":"a"},{"en":"b","zh":"乙"}]`, n: 2},
		{in: `"bare"`, fail: true},
	} {
		var l Lead
		err := json.Unmarshal([]byte(tc.in), &l)
		if tc.fail {
			if err == nil {
				t.Errorf("%s: no error", tc.in)
			}
			continue
		}
		if err != nil || len(l) != tc.n {
			t.Fatalf("%s: %v, %d texts", tc.in, err, len(l))
		}
		out, _ := json.Marshal(l)
		if string(out) != tc.in {
			t.Errorf("%s written back as %s", tc.in, out)
		}
	}
}
