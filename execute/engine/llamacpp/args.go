// Package llamacpp knows llama.cpp's llama-server as servelab launches
// it: the flags of the pinned version, read from llama.cpp's own argument
// parser (common/arg.cpp), and written out as the schema's flag table.
package llamacpp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Option is one command-line option of llama-server.
type Option struct {
	// Names are the option's spellings without dashes, long ones first;
	// Negations are the spellings that turn a boolean off.
	Names, Negations []string
	// Kind is "switch" (no value), "int", "number", "string" or
	// "int|string" (a count that also takes words, as -ngl auto).
	Kind string
	// Values are the allowed words, from a hint such as [on|off|auto].
	Values []string
	Hint   string
	Env    string
}

var (
	openRe     = regexp.MustCompile(`add_opt\(\s*common_arg\(`)
	stringRe   = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	lambdaRe   = regexp.MustCompile(`\[[^\]]*\]\s*\(\s*common_params\s*&\s*(?:\w+|/\*\w*\*/)?\s*(?:,\s*([^)]*))?\)`)
	examplesRe = regexp.MustCompile(`\.set_examples\(\s*(\{[^}]*\}|\w+)\s*\)`)
	excludesRe = regexp.MustCompile(`\.set_excludes\(\s*\{([^}]*)\}\s*\)`)
	envRe      = regexp.MustCompile(`\.set_env\(\s*"([^"]+)"\s*\)`)
	hintEnumRe = regexp.MustCompile(`^\[([a-z0-9_-]+(?:\|[a-z0-9_-]+)+)\]$`)
)

// ServerOptions parses arg.cpp and returns the options llama-server
// accepts: those declared for every tool, or for LLAMA_EXAMPLE_SERVER,
// and not excluded from it. An option declared twice (arg.cpp declares
// --parallel once for the server and once for the others) is kept once.
func ServerOptions(src []byte) ([]Option, error) {
	text := stripComments(string(src))
	var out []Option
	seen := map[string]bool{}
	for _, loc := range openRe.FindAllStringIndex(text, -1) {
		end := closing(text, loc[1]-1)
		if end < 0 {
			return nil, fmt.Errorf("arg.cpp byte %d: unbalanced add_opt(common_arg(", loc[0])
		}
		call := text[loc[1]:end]
		tail := text[end:min(len(text), end+2000)]
		if i := strings.Index(tail, "add_opt("); i >= 0 {
			tail = tail[:i]
		}
		if !forServer(text, tail) {
			continue
		}
		o, err := parseOption(call)
		if err != nil {
			return nil, fmt.Errorf("arg.cpp byte %d: %w", loc[0], err)
		}
		if m := envRe.FindStringSubmatch(tail); m != nil {
			o.Env = m[1]
		}
		if len(o.Names) == 0 || seen[o.Names[0]] {
			continue
		}
		seen[o.Names[0]] = true
		out = append(out, o)
	}
	if len(out) < 50 {
		return nil, fmt.Errorf("found %d server options: not llama.cpp's common/arg.cpp?", len(out))
	}
	return out, nil
}

// closing finds the index of the parenthesis closing the one at open,
// skipping string and character literals.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func forServer(text, tail string) bool {
	if m := excludesRe.FindStringSubmatch(tail); m != nil && strings.Contains(m[1], "LLAMA_EXAMPLE_SERVER") {
		return false
	}
	m := examplesRe.FindStringSubmatch(tail)
	if m == nil {
		return true // declared for every tool
	}
	list := m[1]
	if !strings.HasPrefix(list, "{") {
		// a named list, e.g. mmproj_examples = {...}
		def := regexp.MustCompile(regexp.QuoteMeta(list) + `\s*=\s*\{([^}]*)\}`).FindStringSubmatch(text)
		if def == nil {
			return false
		}
		list = def[1]
	}
	return strings.Contains(list, "LLAMA_EXAMPLE_SERVER") || strings.Contains(list, "LLAMA_EXAMPLE_COMMON")
}

func parseOption(call string) (Option, error) {
	var o Option
	rest := strings.TrimSpace(call)
	names, rest, ok := braces(rest)
	if !ok {
		return o, fmt.Errorf("option without a name list: %.60q", call)
	}
	o.Names = dashless(names)
	if neg, r, ok := braces(rest); ok {
		o.Negations, rest = dashless(neg), r
	}
	lam := lambdaRe.FindStringSubmatchIndex(rest)
	if lam == nil {
		return o, fmt.Errorf("option %v: no handler", o.Names)
	}
	params := ""
	if lam[2] >= 0 {
		params = rest[lam[2]:lam[3]]
	}
	body := rest[lam[1]:]
	before := stringRe.FindAllStringSubmatch(rest[:lam[0]], -1)
	switch {
	case params == "" || strings.HasPrefix(params, "bool"):
		o.Kind = "switch"
	case strings.HasPrefix(params, "int"):
		o.Kind = "int"
	case strings.Count(params, ",") > 0:
		o.Kind = "string" // two values (e.g. --lora-scaled FNAME SCALE): not typed further
	case strings.Contains(body, "std::stof") || strings.Contains(body, "std::stod"):
		o.Kind = "number"
	default:
		o.Kind = "string"
	}
	if o.Kind != "switch" && len(before) > 0 {
		o.Hint = before[0][1]
	}
	if m := hintEnumRe.FindStringSubmatch(o.Hint); m != nil && o.Kind == "string" {
		o.Values = strings.Split(m[1], "|")
	}
	if o.Kind == "string" && o.Hint == "N" && (strings.Contains(body, "std::stoi") || strings.Contains(body, "std::stoul")) {
		o.Kind = "int|string"
	}
	return o, nil
}

// stripComments blanks // and /* */ comments outside literals, so a
// quote or brace in a comment cannot confuse the parse.
func stripComments(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'':
			q := b[i]
			for i++; i < len(b) && b[i] != q && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}

// braces reads a leading {"-a", "--b"} list of string literals.
func braces(s string) ([]string, string, bool) {
	s = strings.TrimLeft(s, " \t\n,")
	if !strings.HasPrefix(s, "{") {
		return nil, s, false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return nil, s, false
	}
	var out []string
	for _, m := range stringRe.FindAllStringSubmatch(s[:end], -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		return nil, s, false
	}
	return out, strings.TrimLeft(s[end+1:], " \t\n,"), true
}

// dashless keeps the long spellings (those servelab can write as
// --name), without dashes, in declaration order.
func dashless(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, "--") {
			out = append(out, strings.TrimPrefix(n, "--"))
		}
	}
	return slices.Compact(out)
}
