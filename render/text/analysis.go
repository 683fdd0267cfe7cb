// Package text writes a decided study as plain text for a terminal:
// what `servelab analyze` prints. Figures are in the units people read
// them in (seconds for request latency, ms for the others); the
// Markdown and HTML reports are render/markdown and render/html.
package text

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"servelab.dev/execute/decide"
)

// Analysis writes a's decisions step by step, the final command, the
// validation, notes, warnings and missing records; then the runs no
// decision uses (a.Excluded) and the quality guard of each step that
// has one.
func Analysis(w io.Writer, a *decide.Analysis) {
	writeAnalysis(w, a)
	writeUnused(w, a)
	writeQuality(w, a)
}

// writeQuality prints the quality guard of each output-changing step:
// the share of the guard's prompts each option answers, greedily, with
// the incumbent's text over the first tokens, beside its speed above.
func writeQuality(w io.Writer, a *decide.Analysis) {
	for _, st := range a.Steps {
		head := false
		for _, o := range st.Options {
			g := o.Guard
			if g == nil {
				continue
			}
			if !head {
				fmt.Fprintf(w, "\nquality guard, step %s (greedy outputs identical to the incumbent's):\n", st.ID)
				head = true
			}
			switch {
			case !g.Known:
				fmt.Fprintf(w, "  %s: no guard outputs to compare\n", o.Variant)
			case g.Below:
				fmt.Fprintf(w, "  %s: %d of %d prompts (%.0f %%) over %d tokens, below the step's minimum of %.0f %%\n", o.Variant, g.Same, g.Prompts, g.Share*100, g.Tokens, g.Min*100)
			default:
				fmt.Fprintf(w, "  %s: %d of %d prompts (%.0f %%) over %d tokens\n", o.Variant, g.Same, g.Prompts, g.Share*100, g.Tokens)
			}
		}
	}
}

// writeUnused lists the study's runs that no decision uses: failed runs
// with their reasons, and files that are not valid records with what is
// wrong (the analysis's Excluded, which --json carries too).
func writeUnused(w io.Writer, a *decide.Analysis) {
	var failed, invalid []string
	for _, u := range a.Excluded {
		if u.Invalid {
			invalid = append(invalid, fmt.Sprintf("  %s  %s", u.Run, u.Reason))
		} else {
			why, _, _ := strings.Cut(u.Reason, "\n")
			failed = append(failed, fmt.Sprintf("  %s  %s: %s", u.Run, u.Path, why))
		}
	}
	for _, l := range []struct {
		head  string
		lines []string
	}{{"failed runs, not used in decisions", failed}, {"invalid records, left out of decisions and left in place", invalid}} {
		if len(l.lines) > 0 {
			fmt.Fprintf(w, "\n%s (%d):\n%s\n", l.head, len(l.lines), strings.Join(l.lines, "\n"))
		}
	}
}

// fmtValue writes a value in the unit people read it in: seconds for
// request latency, ms for the others, tok/s or req/s for rates.
func fmtValue(metric string, v float64) string {
	switch {
	case metric == "capacity" && v == 0:
		return "below search.low"
	case strings.HasPrefix(metric, "latency."):
		return fmt.Sprintf("%.2f s", v/1000)
	case decide.Unit(metric) == "ms":
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.2f %s", v, decide.Unit(metric))
}

func fmtVal(metric string, v *decide.Value) string {
	if v == nil {
		return "no record"
	}
	s := fmtValue(metric, v.Mean)
	if v.Low != nil && v.Interval == decide.IntervalRange {
		return s + fmt.Sprintf(" (%d runs: %s, %s)", v.Runs, strings.Fields(fmtValue(metric, *v.Low))[0], strings.Fields(fmtValue(metric, *v.High))[0])
	}
	if v.Low != nil {
		s += fmt.Sprintf(" [%s, %s]", strings.Fields(fmtValue(metric, *v.Low))[0], strings.Fields(fmtValue(metric, *v.High))[0])
	}
	if v.Runs > 1 {
		s += fmt.Sprintf(" (%d runs)", v.Runs)
	}
	if v.Derived {
		s += " (derived)"
	}
	return s
}

func writeAnalysis(w io.Writer, a *decide.Analysis) {
	o := a.Objective
	if line := SLOLine(a); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "study %s: %s %s on %s\n", a.Study, goalWord(o.Goal), o.Metric, o.Profile)
	fmt.Fprintf(w, "rule: adopt a variant better by more than %.1f %% and, where the runs give a noise estimate, significantly at %.0f %%; runs that failed more than %.1f %% of their requests are invalid\n",
		o.MinGain*100, o.Confidence*100, o.MaxFailed*100)
	fmt.Fprintf(w, "figures: %s\n", provenanceText(a))
	for _, st := range a.Steps {
		writeStep(w, o.Metric, st)
	}
	if a.Final != nil {
		fmt.Fprintf(w, "\nfinal (%s %s, %s):\n  %s\n", a.Final.Kind, a.Final.Version, a.Final.Model, a.Final.Command)
		if a.Final.Unmeasured {
			fmt.Fprintln(w, "  unmeasured: every run of this configuration failed, so nothing shows that it serves (see the failed runs below)")
		}
	} else {
		fmt.Fprintln(w, "\nfinal: not decided")
	}
	writeValidation(w, o.Metric, a)
	writeAnswers(w, a)
	for _, n := range a.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	writeWarnings(w, a)
	if len(a.Missing) > 0 {
		fmt.Fprintf(w, "\nmissing records (%d):\n", len(a.Missing))
		for _, m := range a.Missing {
			fmt.Fprintf(w, "  %s/%s/%s/%d  %s\n", m.Step, m.Variant, m.Profile, m.Repeat, m.Key[:12])
		}
	}
}

func provenanceText(a *decide.Analysis) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a.Provenance)) {
		parts = append(parts, fmt.Sprintf("%d %s", a.Provenance[k], k))
	}
	s := "no records"
	if len(parts) > 0 {
		s = strings.Join(parts, ", ") + " runs"
	}
	if a.SetAside > 0 {
		s += fmt.Sprintf("; %d runs of the other class (simulated vs real) set aside", a.SetAside)
	}
	return s
}

func goalWord(goal string) string {
	if goal == "min" {
		return "minimise"
	}
	return "maximise"
}

func writeStep(w io.Writer, metric string, st decide.Step) {
	head := fmt.Sprintf("\nstep %s (%s): %s", st.ID, st.Kind, st.Status)
	switch st.Outcome {
	case decide.Adopted:
		head += ", adopted " + *st.Adopted + " (" + st.Reason + ")"
	case decide.Kept:
		head += ", incumbent kept (" + st.Reason + ")"
	case decide.Waiting, decide.Invalid, decide.Skipped:
		head += ": " + st.Detail
	}
	fmt.Fprintln(w, head)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if st.Incumbent != nil {
		fmt.Fprintf(tw, "  incumbent (%s)\t%s\n", st.Incumbent.Variant, fmtVal(metric, st.Incumbent.Value))
	}
	for _, o := range st.Options {
		fmt.Fprintf(tw, "  %s\t%s\n", o.Variant, fmtVal(metric, o.Value))
	}
	tw.Flush()
	if c := st.Comparison; c != nil {
		fmt.Fprintf(w, "  %s\n", comparisonText(metric, c))
	}
	for _, m := range st.Missing {
		fmt.Fprintf(w, "  missing: %s\n", m)
	}
	for _, iv := range st.Invalid {
		fmt.Fprintf(w, "  invalid: %s\n", iv.Message)
	}
	if n := len(st.UnknownFailed); n > 0 {
		fmt.Fprintf(w, "  failed count unknown (the source did not report it; the failure limit is unchecked): %s\n", strings.Join(st.UnknownFailed, ", "))
	}
}

func comparisonText(metric string, c *decide.Comparison) string {
	word := "better"
	if c.Ratio < 1 {
		word = "worse"
	}
	s := fmt.Sprintf("%s vs %s: %s vs %s, %.2fx %s", c.A, c.B, fmtValue(metric, c.ValueA), fmtValue(metric, c.ValueB), ratioShown(c.Ratio), word)
	if c.TTFT != nil {
		s += fmt.Sprintf("; TTFT %.2f vs %.2f ms", c.TTFT.A, c.TTFT.B)
	}
	if c.TPOT != nil {
		s += fmt.Sprintf("; TPOT %.2f vs %.2f ms", c.TPOT.A, c.TPOT.B)
	}
	if c.Interval != nil {
		s += fmt.Sprintf("; ratio interval %.2fx to %.2fx (%s)", c.Interval[0], c.Interval[1], c.Method)
	}
	return s + "; " + c.Verdict
}

// ratioShown writes a ratio below 1 as its inverse, so "1.03x worse"
// reads as the seeds write it.
func ratioShown(r float64) float64 {
	if r > 0 && r < 1 {
		return 1 / r
	}
	return r
}

func writeValidation(w io.Writer, metric string, a *decide.Analysis) {
	if len(a.Validation) == 0 {
		return
	}
	fmt.Fprintln(w, "\nvalidation, baseline → final:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  PROFILE\tMETRIC\tBASELINE\tFINAL\tRATIO")
	for _, row := range a.Validation {
		if row.Capacity != nil {
			continue // writeAnswers states the capacities
		}
		for _, r := range append([]*decide.ValidationRow{&row, row.Latency, row.Throughput, row.TTFT, row.TPOT, row.ITL}, row.Percentiles...) {
			if r == nil {
				continue
			}
			ratio := "-"
			if r.Ratio != nil {
				ratio = fmt.Sprintf("%.2fx", *r.Ratio)
			}
			if rr := r.RatioRange; rr != nil && fmt.Sprintf("%.2f", rr[0]) != fmt.Sprintf("%.2f", rr[1]) {
				ratio += fmt.Sprintf(" (%.2f-%.2fx with the source's rounding)", rr[0], rr[1])
			}
			if iv := r.Interval; iv != nil {
				ratio += fmt.Sprintf(" [%.2f, %.2f] %s", iv[0], iv[1], r.Verdict)
			}
			if r.Invalid != "" {
				ratio = "invalid: " + r.Invalid
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", row.Profile, r.Metric, fmtVal(r.Metric, r.Baseline), fmtVal(r.Metric, r.Final), ratio)
		}
	}
	tw.Flush()
}

func writeWarnings(w io.Writer, a *decide.Analysis) {
	if len(a.Warnings) == 0 {
		return
	}
	fmt.Fprintf(w, "\nwarnings (%d):\n", len(a.Warnings))
	for _, x := range a.Warnings {
		fmt.Fprintf(w, "  %s/%s/%s %s: %s\n", x.Step, x.Variant, x.Profile, x.Code, x.Message)
	}
}
