package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"servelab.dev/execute/store"
)

// Every run a figure pools is in the appendix, also one of a trial the
// study no longer plans (the H200 study's shared-prefix final has one
// from an earlier session), and the page's run count says as many.
func TestAppendixHoldsEveryPooledRun(t *testing.T) {
	s, a := h200Study(t)
	md := markdownOf(t, s, a, store.Open("../../results"), "en")
	m := regexp.MustCompile(`Figures on this page: (\d+) runs`).FindStringSubmatch(md)
	if m == nil {
		t.Fatal("no run count on the page")
	}
	n, _ := strconv.Atoi(m[1])
	blocks := strings.Count(md, "Output token throughput (tok/s):")
	if blocks != n {
		t.Errorf("the appendix holds %d benchmark blocks, the page counts %d runs", blocks, n)
	}
	if !strings.Contains(md, "### Earlier runs pooled into these figures") || !strings.Contains(md, "308.36") {
		t.Error("the earlier shared-prefix run of the final configuration (308.36 tok/s) is not in the appendix")
	}
}
