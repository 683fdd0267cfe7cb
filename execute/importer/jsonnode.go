package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// node is one JSON object of a file being read, with the path that names
// it in messages ("benchmarks[1].metrics"). Reading a field of the wrong
// type records the first such error (shared by every node of the file)
// instead of taking the field for absent: a figure silently dropped would
// turn a damaged file into a record that looks whole.
type node struct {
	m    map[string]any
	path string
	bad  *error
}

// fixEdited is what a type error tells the user to do.
const fixEdited = "the tool never writes that, so the file was edited or damaged: export it again from the tool"

func newNode(m map[string]any, path string) node {
	return node{m: m, path: path, bad: new(error)}
}

func (n node) name(key string) string {
	if n.path == "" {
		return key
	}
	return n.path + "." + key
}

func (n node) fail(key, format string, args ...any) {
	if *n.bad == nil {
		*n.bad = fmt.Errorf("%s: %s", n.name(key), fmt.Sprintf(format, args...))
	}
}

// err is the first type error read so far in n's file.
func (n node) err() error { return *n.bad }

func (n node) has(key string) bool {
	v, ok := n.m[key]
	return ok && v != nil
}

// Non-finite literals (NaN, Infinity) are not JSON; quoteNonFinite turns
// them into these strings, which no tool writes, before decoding.
const (
	litNaN    = "\x00NaN"
	litInf    = "\x00Infinity"
	litNegInf = "\x00-Infinity"
)

// num reads a measured figure. Absent, null and NaN (a tool's "no value")
// are unknown; a string, array, object, or an infinite figure is an error.
func (n node) num(key string) (float64, bool) {
	switch v := n.m[key].(type) {
	case nil:
		return 0, false
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			n.fail(key, "%s is out of range; %s", v, fixEdited)
			return 0, false
		}
		return f, true
	case string:
		switch v {
		case litNaN:
			return 0, false
		case litInf, litNegInf:
			n.fail(key, "%s is not a measurement; %s", strings.TrimPrefix(v, "\x00"), fixEdited)
			return 0, false
		}
		n.fail(key, "%q is a string where a number belongs; %s", v, fixEdited)
	default:
		n.fail(key, "%s where a number belongs; %s", kindOf(v), fixEdited)
	}
	return 0, false
}

// rate reads a request rate: a positive number, or inf (also written
// "inf" or bare Infinity) for every request at once; 0 when unknown.
func (n node) rate(key string) float64 {
	if s, ok := n.m[key].(string); ok {
		switch strings.ToLower(strings.TrimPrefix(s, "\x00")) {
		case "inf", "infinity", "+inf":
			return math.Inf(1)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 && !math.IsInf(f, 0) {
			return f // vLLM's metadata may write a finite rate as text
		}
	}
	v, ok := n.num(key)
	if !ok {
		return 0
	}
	if v < 0 {
		n.fail(key, "%s is negative; %s", num(v), fixEdited)
		return 0
	}
	return v
}

// fp is a non-negative figure, nil when unknown.
func (n node) fp(key string) *float64 {
	v, ok := n.num(key)
	if !ok {
		return nil
	}
	if v < 0 {
		n.fail(key, "%s is negative, and no figure here can be; %s", num(v), fixEdited)
		return nil
	}
	return &v
}

// count is a whole, non-negative count, nil when unknown.
func (n node) count(key string) *int {
	v, ok := n.num(key)
	switch {
	case !ok:
		return nil
	case v != math.Trunc(v) || v < 0 || v > 1<<53:
		n.fail(key, "%s is not a whole number of requests or tokens; %s", num(v), fixEdited)
		return nil
	}
	c := int(v)
	return &c
}

func (n node) str(key string) string {
	switch v := n.m[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		n.fail(key, "%s where a string belongs; %s", kindOf(v), fixEdited)
		return ""
	}
}

// sub is the object at key; an empty node when absent.
func (n node) sub(key string) node {
	out := node{path: n.name(key), bad: n.bad}
	switch v := n.m[key].(type) {
	case nil:
	case map[string]any:
		out.m = v
	default:
		n.fail(key, "%s where an object belongs; %s", kindOf(v), fixEdited)
	}
	return out
}

func (n node) list(key string) []any {
	switch v := n.m[key].(type) {
	case nil:
		return nil
	case []any:
		return v
	default:
		n.fail(key, "%s where a list belongs; %s", kindOf(v), fixEdited)
		return nil
	}
}

// item is element i of the list at key, which must be an object.
func (n node) item(key string, i int, v any) (node, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return node{}, fmt.Errorf("%s[%d]: %s where an object belongs; %s", n.name(key), i, kindOf(v), fixEdited)
	}
	return node{m: m, path: fmt.Sprintf("%s[%d]", n.name(key), i), bad: n.bad}, nil
}

func kindOf(v any) string {
	switch v := v.(type) {
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case bool:
		return "true/false"
	case string:
		return strconv.Quote(v) + " (a string)"
	case json.Number:
		return string(v) + " (a number)"
	}
	return "a value"
}
