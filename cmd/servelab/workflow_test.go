package main

import (
	"io"
	"testing"

	"github.com/rhysd/actionlint"
)

// The study-repository workflow passes actionlint (the same checks as
// the actionlint command; shellcheck runs too where it is installed).
func TestWorkflowLints(t *testing.T) {
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFile("../../.github/workflows/studies.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}
