// Package flagscan reads the flags an engine's own argument parser
// declares from its Python source: argparse add_argument calls (vLLM,
// SGLang) and click options (TensorRT-LLM's trtllm-serve). It extracts
// what the call states literally — names, type=int/float/str, store_true
// and BooleanOptionalAction switches, click's is_flag, literal choices —
// and reports every flag whose type or choices come from elsewhere
// (vLLM's **kwargs["field"] from a config dataclass, choices computed at
// run time) as unresolved, so a table built from it is finished by hand
// and says so. A default is kept only where the call writes a literal
// (default=0.9, default="fcfs", a store_true switch's implied false);
// one written as an expression is reported, never guessed. It does not
// evaluate Python.
package flagscan

import (
	"regexp"
	"sort"
	"strings"

	"servelab.dev/schema"
)

// Result is what a scan found.
type Result struct {
	Flags []schema.FlagSpec
	// Unresolved names each flag whose type or choices the call does not
	// state literally, with what stood in their place.
	Unresolved map[string]string
	// NoDefault names each flag whose default the call gives as an
	// expression (or through **kwargs), with that expression: it is
	// left out, to be read where it is defined.
	NoDefault map[string]string
}

var (
	callRE   = regexp.MustCompile(`(?:add_argument|click\.option)\(`)
	nameRE   = regexp.MustCompile(`^\s*["'](-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*)["']\s*$`)
	typeRE   = regexp.MustCompile(`\btype\s*=\s*([A-Za-z_][A-Za-z0-9_.]*)`)
	actionRE = regexp.MustCompile(`\baction\s*=\s*([^,)\s]+)`)
	listRE   = regexp.MustCompile(`\bchoices\s*=\s*\[([^\]]*)\]|click\.Choice\(\s*\[([^\]]*)\]`)
	strRE    = regexp.MustCompile(`["']([^"']*)["']`)
)

// Scan reads src.
func Scan(src string) Result {
	res := Result{Unresolved: map[string]string{}, NoDefault: map[string]string{}}
	seen := map[string]bool{}
	for _, loc := range callRE.FindAllStringIndex(src, -1) {
		args, ok := callArgs(src, loc[1])
		if !ok {
			continue
		}
		f, why := flagOf(args)
		if f.Name == "" || seen[f.Name] {
			continue
		}
		if expr := defaultOf(&f, args); expr != "" {
			res.NoDefault[f.Name] = expr
		}
		seen[f.Name] = true
		res.Flags = append(res.Flags, f)
		if why != "" {
			res.Unresolved[f.Name] = why
		}
	}
	sort.Slice(res.Flags, func(i, j int) bool { return res.Flags[i].Name < res.Flags[j].Name })
	return res
}

// callArgs splits the argument list that starts at i (just after the
// opening parenthesis) at its top-level commas, skipping strings.
func callArgs(src string, i int) ([]string, bool) {
	var args []string
	depth, start := 0, i
	for j := i; j < len(src); j++ {
		switch c := src[j]; c {
		case '"', '\'':
			k := strings.IndexByte(src[j+1:], c)
			if k < 0 {
				return nil, false
			}
			j += k + 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return append(args, src[start:j]), true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, src[start:j])
				start = j + 1
			}
		}
	}
	return nil, false
}

func flagOf(args []string) (schema.FlagSpec, string) {
	var f schema.FlagSpec
	var names []string
	var rest []string
	for _, a := range args {
		if m := nameRE.FindStringSubmatch(a); m != nil {
			names = append(names, m[1])
			continue
		}
		rest = append(rest, a)
	}
	long := ""
	for _, n := range names {
		if strings.HasPrefix(n, "--") && long == "" {
			long = n
		}
	}
	if long == "" {
		return f, ""
	}
	f.Name = strings.TrimPrefix(long, "--")
	for _, n := range names {
		if n != long {
			f.Aliases = append(f.Aliases, strings.TrimLeft(n, "-"))
		}
	}
	kw := strings.Join(rest, ",")
	why := ""
	switch a := actionRE.FindStringSubmatch(kw); {
	case a != nil && strings.Contains(a[1], "store_true"), strings.Contains(kw, "is_flag=True"):
		f.Type = "bool"
	case a != nil && strings.Contains(a[1], "BooleanOptionalAction"):
		f.Type, f.Negation = "bool", "no-"+f.Name
	}
	if f.Type == "" {
		switch t := typeRE.FindStringSubmatch(kw); {
		case t == nil:
			f.Type = "string" // argparse's default
		case t[1] == "int":
			f.Type = "int"
		case t[1] == "float":
			f.Type = "float"
		case t[1] == "str", t[1] == "click.Choice":
			f.Type = "string"
		default:
			f.Type, why = "string", "type="+t[1]
		}
	}
	if m := listRE.FindStringSubmatch(kw); m != nil {
		for _, s := range strRE.FindAllStringSubmatch(m[1]+m[2], -1) {
			f.Choices = append(f.Choices, s[1])
		}
	} else if strings.Contains(kw, "choices") || strings.Contains(kw, "Choice(") {
		why = strings.TrimPrefix(why+"; choices computed at run time", "; ")
	}
	if strings.Contains(kw, "**") {
		why = strings.TrimPrefix(why+"; type and choices from "+strings.TrimSpace(kw[strings.Index(kw, "**"):]), "; ")
	}
	return f, why
}

var (
	defaultRE = regexp.MustCompile(`(?s)^\s*default\s*=\s*(.*?)\s*$`)
	numberRE  = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE]-?[0-9]+)?$`)
	quotedRE  = regexp.MustCompile(`^"([^"\\]*)"$|^'([^'\\]*)'$`)
)

// defaultOf sets f's default where the call writes it as a literal, as
// it would be written on the command line, and returns the expression
// it stands as otherwise. A store_true switch (or click's is_flag) with
// no default is false; None is no default at all (the engine decides
// later), so nothing is kept or reported.
func defaultOf(f *schema.FlagSpec, args []string) string {
	expr, given := "", false
	for _, a := range args {
		if m := defaultRE.FindStringSubmatch(a); m != nil {
			expr, given = m[1], true
		} else if strings.Contains(a, "**") && !given {
			expr = strings.TrimSpace(a)
		}
	}
	kw := strings.Join(args, ",")
	switch m := quotedRE.FindStringSubmatch(expr); {
	case !given && expr != "":
		return "from " + expr
	case !given && f.Type == "bool" && f.Negation == "" && (strings.Contains(kw, "store_true") || strings.Contains(kw, "is_flag=True")):
		f.Default = "false"
	case !given, expr == "None":
	case expr == "True", expr == "False":
		f.Default = strings.ToLower(expr)
	case numberRE.MatchString(expr):
		f.Default = expr
	case m != nil:
		f.Default = m[1] + m[2]
	default:
		return expr
	}
	return ""
}
