package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// Error is one problem in a study, located in the user's file where it
// has a location.
type Error struct {
	File string // as the user named it; "" when there is no file
	Line int    // 0 when the problem has no position
	Col  int
	Path string // CUE path inside the study, e.g. "steps[2].variants[0].knobs"
	Msg  string
}

func (e Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Col)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// List is every problem found, in file order.
type List []Error

func (l List) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the list by file, line, column and message, and drops
// exact duplicates (CUE reports some conflicts once per side).
func (l List) Sort() List {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Error() < b.Error()
	})
	out := l[:0]
	for i, e := range l {
		if i > 0 && e == out[len(out)-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// fileErr is an error about a whole file.
func fileErr(file, format string, args ...any) Error {
	return Error{File: file, Msg: fmt.Sprintf(format, args...)}
}

// posErr is an error located at a position the loader mapped back to the
// user's file.
func posErr(pos token.Pos, file, path, format string, args ...any) Error {
	e := Error{File: file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if pos.IsValid() {
		p := pos.Position()
		if p.Filename == file {
			e.Column(p)
		}
	}
	return e
}

// Column fills the line and column of e from p.
func (e *Error) Column(p token.Position) { e.Line, e.Col = p.Line, p.Column }

// fromCUE converts a CUE error into located errors. Positions inside the
// embedded schema are not shown: the user cannot edit those files, so an
// error that only has such positions is located at the nearest enclosing
// value of the study that has a position in the user's file.
//
// Paths are shown relative to the study: the leading study id is dropped
// when it is one of ids.
func fromCUE(err error, file string, study cue.Value, ids map[string]bool) List {
	var out List
	for _, m := range messages(err) {
		e := m.err
		path := e.Path()
		if len(path) > 1 && ids[unquote(path[0])] {
			path = path[1:]
		}
		le := Error{File: file, Path: joinPath(path), Msg: m.msg}
		if p, ok := userPos(e, file); ok {
			le.Column(p)
		} else if p, ok := nearestPos(study, path, file); ok {
			le.Column(p)
		}
		out = append(out, le)
	}
	return out
}

// userPos is the last of the error's positions in the user's file: CUE
// lists enclosing expressions (`schema.#Study & {`) before the literal
// that is at fault.
func userPos(e cueerrors.Error, file string) (token.Position, bool) {
	var last token.Position
	found := false
	for _, p := range cueerrors.Positions(e) {
		if pp := p.Position(); p.IsValid() && pp.Filename == file {
			last, found = pp, true
		}
	}
	return last, found
}

func unquote(label string) string {
	if s, err := strconv.Unquote(label); err == nil {
		return s
	}
	return label
}

// nearestPos walks up path until a value with a position in file is found.
func nearestPos(v cue.Value, path []string, file string) (token.Position, bool) {
	for n := len(path); n >= 0; n-- {
		sel := cue.ParsePath(joinPath(path[:n]))
		if sel.Err() != nil {
			continue
		}
		w := v.LookupPath(sel)
		if p := w.Pos(); w.Exists() && p.IsValid() && p.Position().Filename == file {
			return p.Position(), true
		}
	}
	return token.Position{}, false
}

// joinPath writes a CUE error path the way users write it: list indexes
// in brackets, fields that are not identifiers quoted.
func joinPath(path []string) string {
	var b strings.Builder
	for _, p := range path {
		switch {
		case isIndex(p):
			b.WriteString("[" + p + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// message is one CUE error to show, with its text.
type message struct {
	err cueerrors.Error
	msg string
}

var disjunctionRE = regexp.MustCompile(`^(\d+) errors in empty disjunction:?$`)

// messages flattens err into the messages users should read. CUE reports
// a value outside an enumeration as "N errors in empty disjunction"
// followed by one "conflicting values" error per alternative; that
// becomes one message naming the value and the alternatives.
func messages(err error) []message {
	errs := cueerrors.Errors(err)
	var out []message
	for i := 0; i < len(errs); i++ {
		e := errs[i]
		text := errText(e)
		if m := disjunctionRE.FindStringSubmatch(text); m != nil {
			n, _ := strconv.Atoi(m[1])
			if i+n < len(errs) {
				if msg, ok := enumMessage(errs[i+1 : i+1+n]); ok {
					out = append(out, message{errs[i+1], msg})
					i += n
					continue
				}
			}
			continue // the alternatives that follow say it better
		}
		out = append(out, message{e, text})
	}
	return out
}

func errText(e cueerrors.Error) string {
	format, args := e.Msg()
	if s := fmt.Sprintf(format, args...); s != "" {
		return s
	}
	return e.Error()
}

// enumMessage merges "conflicting values A and V" errors that share the
// value V into "invalid value V (want one of A, B, ...)".
func enumMessage(errs []cueerrors.Error) (string, bool) {
	count := map[string]int{}
	var pairs [][2]string
	for _, e := range errs {
		format, args := e.Msg()
		if format != "conflicting values %s and %s" || len(args) != 2 {
			return "", false
		}
		a, b := fmt.Sprint(args[0]), fmt.Sprint(args[1])
		pairs = append(pairs, [2]string{a, b})
		count[a]++
		count[b]++
	}
	var value string
	for v, n := range count {
		if n == len(errs) && (value == "" || v < value) {
			value = v
		}
	}
	if value == "" {
		return "", false
	}
	var alts []string
	for _, p := range pairs {
		if p[0] != value {
			alts = append(alts, p[0])
		} else {
			alts = append(alts, p[1])
		}
	}
	sort.Strings(alts)
	return fmt.Sprintf("invalid value %s (want one of %s)", value, strings.Join(alts, ", ")), true
}
