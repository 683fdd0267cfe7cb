package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"

	"servelab.dev/schema"
)

// Exit codes: user errors (bad study, bad input) exit 1, misuse of the
// command line exits 2.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

type command struct {
	summary string
	run     func(env *env, args []string) error
}

// env is what a command writes to.
type env struct {
	stdout, stderr io.Writer
	// named are the invalid records the command named and left out of
	// its decisions: it exits 1 after its work when there are any.
	named map[string]bool
}

var commands = map[string]command{
	"vet":       {"validate study files and folders", runVet},
	"plan":      {"expand a study into its trials", runPlan},
	"schema":    {"write the embedded schema for stock cue tools", runSchema},
	"import":    {"import another tool's benchmark output as a trial's record", runImport},
	"analyze":   {"decide a study from its records", runAnalyze},
	"render":    {"write a study's reports in Markdown and HTML", runRender},
	"site":      {"build the static docs site of every study", runSite},
	"bench":     {"drive one load profile against a running endpoint", runBench},
	"calibrate": {"measure the benchmark client's headroom on this host", runCalibrate},
	"run":       {"run a study's trials (on engines, or on servelab-sim with --simulate)", runRun},
	"diff":      {"review what a change does to studies, records and recommendations", runDiff},
	"export":    {"write the recommended configuration for docker, compose, Kubernetes or GPUStack", runExport},
	"version":   {"print the version", runVersion},
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "devel"

// errUsage marks an error of the command line itself.
var errUsage = errors.New("usage")

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
func (e usageError) Unwrap() error { return errUsage }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errReported means the command already printed its errors.
var errReported = errors.New("errors reported")

// Main runs servelab with args (without the program name) and returns
// the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, named: map[string]bool{}}
	if len(args) == 2 && args[0] == "help" {
		args = []string{args[1], "-h"} // servelab help CMD: that command's help
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name := args[0]
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "servelab: unknown command %q\nRun 'servelab help' for the commands.\n", name)
		return exitUsage
	}
	err := cmd.run(e, args[1:])
	switch {
	case err == nil && len(e.named) > 0:
		fmt.Fprintf(stderr, "servelab %s: %d invalid records were left out of every decision (named above, left in place): restore them from git or move them out of the results folder\n", name, len(e.named))
		return exitError
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "servelab %s: %v\n", name, err)
		return exitUsage
	case errors.Is(err, errReported):
		return exitError
	}
	var list schema.List
	if errors.As(err, &list) {
		fmt.Fprintln(stderr, list.Error())
		return exitError
	}
	fmt.Fprintf(stderr, "servelab %s: %v\n", name, err)
	return exitError
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "servelab turns LLM-serving tuning studies into published recommendations.")
	fmt.Fprintln(w, "\nUsage: servelab <command> [arguments]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'servelab help <command>' for a command's flags.")
}

// newFlags returns a flag set that reports its errors as usage errors
// instead of exiting.
func newFlags(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: servelab %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags placed anywhere among the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func runVersion(e *env, args []string) error {
	fmt.Fprintf(e.stdout, "servelab %s (schema v%d)\n", version, schema.Version)
	return nil
}
