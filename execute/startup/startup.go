// Package startup reads an engine's start-up log into the settings the
// engine says it runs with: what a report shows beside the command that
// asked for them, because an engine may change or ignore a flag, and
// only its own log says so.
//
// It reads only the part of a log before the engine serves its first
// request, at most MaxRead bytes, and knows the lines of llama.cpp's
// llama-server, vLLM and SGLang. What it does not recognise stays
// unknown: a value it cannot read whole (a line cut short, a bracket
// that does not match) gives no setting, never a guessed one. It is a data package: no I/O beyond the reader it is
// given, nothing from the runner or the engines.
package startup

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// MaxRead bounds how much of a log is read: engines print their
// settings in the first few kilobytes, and a log of a long run can be
// hundreds of megabytes.
const MaxRead = 1 << 20

// maxLine bounds one line: vLLM's config line is about 5 KB, SGLang's
// ServerArgs line about 10 KB; a longer one is not a settings line.
const maxLine = 64 << 10

// Setting is one setting as the engine printed it.
type Setting struct {
	Name  string // the engine's own name: n_slots, max_num_seqs, tp_size
	Value string // as printed, quotes of a plain string removed
	// Flag is the command-line flag that sets it ("--parallel"), empty
	// where none is known (a figure the engine derives).
	Flag string
	// Key marks a setting a performance engineer reads first (slots,
	// context, KV cache, parallelism); SGLang prints two hundred.
	Key bool
	// Line is the log line it came from; llama-server's without its
	// time stamp, so that the lines of two launches compare.
	Line string
}

// Notice is the engine saying that it changed or ignored a setting.
type Notice struct {
	Text  string   // the message, without time stamp and level
	Flags []string // the flags it names, in order ("--cache-idle-slots")
	Line  string
}

// Settings is what one start-up log says.
type Settings struct {
	Engine   string // llamacpp, vllm, sglang
	Settings []Setting
	Notices  []Notice
}

// Empty reports whether the log said nothing this package understands.
func (s *Settings) Empty() bool { return s == nil || len(s.Settings)+len(s.Notices) == 0 }

// engine is how one engine's log is read: its parser, and the lines
// that show it serving, where reading stops.
type engine struct {
	parse func(lines []string) *Settings
	busy  func(line string) bool
}

// engines are the engines whose logs are understood, by record kind.
var engines = map[string]engine{
	"llamacpp": {LlamaCpp, llamaServing},
	"vllm":     {VLLM, func(l string) bool { return busy(l, vllmBusy) }},
	"sglang":   {SGLang, func(l string) bool { return busy(l, sglangBusy) }},
}

// Known reports whether engine's logs can be parsed.
func Known(engine string) bool { return engines[engine].parse != nil }

// Read parses the start of r as a start-up log of engine (a record's
// engine kind), reading up to the first line that shows the engine
// serving, and at most MaxRead bytes. An engine it does not know gives
// nil settings and no error; so does a log without a line it knows.
func Read(r io.Reader, engine string) (*Settings, error) {
	e := engines[engine]
	if e.parse == nil {
		return nil, nil
	}
	br := bufio.NewReader(io.LimitReader(r, MaxRead))
	var ls []string
	n := 0
	for {
		l, err := br.ReadString('\n')
		if n += len(l); err == io.EOF && n >= MaxRead {
			break // the bound cut this line: it is not a line the engine wrote
		}
		if l != "" {
			l = strings.TrimRight(l, "\r\n")
			if e.busy(l) {
				break
			}
			if len(l) <= maxLine {
				ls = append(ls, l)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the %s start-up log: %w", engine, err)
		}
	}
	return nonEmpty(e.parse(ls)), nil
}

// Parse is Read on a log already in memory.
func Parse(data []byte, engine string) *Settings {
	s, _ := Read(bytes.NewReader(data), engine)
	return s
}

func nonEmpty(s *Settings) *Settings {
	if s.Empty() {
		return nil
	}
	return s
}

// add appends a setting; one the engine printed before under the same
// flag (or, without a flag, the same name) is replaced, so that what
// stays is the last word: vLLM prints max_model_len as asked and then
// max_seq_len as run.
func (s *Settings) add(st Setting) {
	for i, old := range s.Settings {
		if st.Flag != "" && old.Flag == st.Flag || st.Flag == "" && old.Flag == "" && old.Name == st.Name {
			s.Settings = append(s.Settings[:i], s.Settings[i+1:]...)
			break
		}
	}
	s.Settings = append(s.Settings, st)
}

var flagRE = regexp.MustCompile(`(?:^|[\s(,'"])(--[a-z][a-z0-9-]*[a-z0-9])`)

// flagsIn lists the long flags a message names, each once.
func flagsIn(msg string) []string {
	var out []string
	for _, m := range flagRE.FindAllStringSubmatch(msg, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// dashed is the flag of an argparse destination: max_num_seqs is
// --max-num-seqs, in vLLM and SGLang alike.
func dashed(name string) string { return "--" + strings.ReplaceAll(name, "_", "-") }

// unquote removes the quotes of a Python string literal without escapes;
// anything else is returned as printed.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] && !strings.ContainsAny(v[1:len(v)-1], `\'"`) {
		return v[1 : len(v)-1]
	}
	return v
}
