package record

import "testing"

func TestAgreement(t *testing.T) {
	inc := &Quality{Prompts: 4, Tokens: 8, Outputs: []string{"a", "b", "c", "d"}}
	for _, c := range []struct {
		v    *Quality
		want float64
		ok   bool
	}{
		{&Quality{Prompts: 4, Tokens: 8, Outputs: []string{"a", "b", "c", "d"}}, 1, true},
		{&Quality{Prompts: 4, Tokens: 8, Outputs: []string{"a", "x", "c", "y"}}, 0.5, true},
		{&Quality{Prompts: 4, Tokens: 16, Outputs: []string{"a", "b", "c", "d"}}, 0, false},
		{&Quality{Prompts: 4, Tokens: 8, Error: "HTTP 500"}, 0, false},
		{nil, 0, false},
	} {
		got, ok := Agreement(inc, c.v)
		if got != c.want || ok != c.ok {
			t.Errorf("Agreement(%v) = %v, %v; want %v, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}
