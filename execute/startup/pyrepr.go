package startup

import "regexp"

// items splits s, the inside of a Python repr of keyword arguments
// ("a=1, b='x', c=Cfg(d=2)") or of a dict ("'a': 1, 'b': [2, 3]"), at
// its top-level commas, minding quotes and brackets. It stops at the
// closer of the bracket s was opened by (an unopened ')', ']' or '}').
//
// An item is kept only when a separator follows it, or when it is the
// last one and the list was closed (or, with open, s ends balanced: a
// list that ends with its line). A log cut mid-value, or a bracket that
// does not match, loses the items from there on rather than give a cut
// value: unknown stays unknown.
func items(s string, open bool) []string {
	var out []string
	var stack []byte
	start, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, closer(c))
		case c == ')' || c == ']' || c == '}':
			if len(stack) == 0 {
				return keep(out, s[start:i]) // the list's own closer
			}
			if stack[len(stack)-1] != c {
				return nil // mismatched: nothing here can be trusted
			}
			stack = stack[:len(stack)-1]
		case c == ',' && len(stack) == 0:
			out = keep(out, s[start:i])
			start = i + 1
		}
	}
	if open && quote == 0 && len(stack) == 0 {
		return keep(out, s[start:])
	}
	return out
}

func closer(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

func keep(out []string, item string) []string {
	for len(item) > 0 && (item[0] == ' ' || item[0] == '\t') {
		item = item[1:]
	}
	for len(item) > 0 && (item[len(item)-1] == ' ' || item[len(item)-1] == '\t') {
		item = item[:len(item)-1]
	}
	if item == "" {
		return out
	}
	return append(out, item)
}

var (
	kwargRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.+)$`)
	entryRE = regexp.MustCompile(`^'([A-Za-z_][A-Za-z0-9_]*)': (.+)$`)
)

// pair is one name and its value as printed.
type pair struct{ name, value string }

// pairs parses items as name=value (kwargs) or 'name': value (a dict's
// entries); an item of another shape ends the list there, as the cut
// end of a pasted line.
func pairs(list []string, dict bool) []pair {
	re := kwargRE
	if dict {
		re = entryRE
	}
	var out []pair
	for _, it := range list {
		m := re.FindStringSubmatch(it)
		if m == nil {
			return out
		}
		out = append(out, pair{m[1], m[2]})
	}
	return out
}
