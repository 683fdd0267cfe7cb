package text

import (
	"fmt"
	"io"
	"strings"

	"servelab.dev/execute/decide"
)

// SLOLine is the answer to a study's SLO in one line, or "" when the
// study has no bounds or no final configuration: met, or which bounds
// no configuration meets and how close the final one came, its command
// then best-effort.
func SLOLine(a *decide.Analysis) string {
	ans := a.SLO
	if ans == nil || a.Final == nil {
		return ""
	}
	bounds := boundsText(ans)
	if c := ans.Capacity; c != nil {
		if ans.Met {
			return fmt.Sprintf("SLO met: %s holds at %s, capacity %s", bounds, ans.Profile, capacityText(c))
		}
		return fmt.Sprintf("No configuration meets %s at %s; the closest is %s, capacity %s. The final command is best-effort.",
			bounds, ans.Profile, Adopted(a), capacityText(c))
	}
	if ans.Met {
		return fmt.Sprintf("SLO met: the final configuration meets %s at %s (%s)", bounds, ans.Profile, finalValues(ans))
	}
	return fmt.Sprintf("No configuration meets %s at %s; the closest is %s at %s. The final command is best-effort.",
		bounds, ans.Profile, Adopted(a), finalValues(ans))
}

// Adopted names the final configuration by what the steps adopted:
// "the baseline" when they adopted nothing.
func Adopted(a *decide.Analysis) string {
	var parts []string
	for _, st := range a.Steps {
		if st.Adopted != nil {
			parts = append(parts, st.ID+"="+*st.Adopted)
		}
	}
	if len(parts) == 0 {
		return "the baseline"
	}
	return "the final configuration (" + strings.Join(parts, ", ") + ")"
}

func boundsText(ans *decide.SLOAnswer) string {
	var out []string
	for _, b := range ans.Bounds {
		lim, upper := b.Limit()
		op := "≤"
		if !upper {
			op = "≥"
		}
		out = append(out, fmt.Sprintf("%s %s %s", b.Metric, op, fmtValue(b.Metric, lim)))
	}
	return strings.Join(out, " and ")
}

func finalValues(ans *decide.SLOAnswer) string {
	var out []string
	for _, b := range ans.Bounds {
		v := "not reported"
		if p := ans.Final[b.Metric]; p != nil {
			v = fmtValue(b.Metric, *p)
		}
		out = append(out, b.Metric+" "+v)
	}
	return strings.Join(out, ", ")
}

// capacityText is a capacity search's answer: a rate, "below LOW req/s"
// or "at least HIGH req/s", never the rate 0 or HIGH as a capacity.
func capacityText(c *decide.CapacitySide) string {
	switch {
	case c == nil:
		return "not measured"
	case !c.Known && c.Confirm:
		return fmt.Sprintf("not known yet: %s (the search needs a second run at %g req/s, whose first broke the SLO in its tail alone)", sustained(c), c.Next)
	case !c.Known:
		return fmt.Sprintf("not known yet: %s (the search needs a probe at %g req/s)", sustained(c), c.Next)
	case c.BelowLow:
		return fmt.Sprintf("below %g req/s (lower search.low)", c.Low)
	case c.AboveHigh:
		return fmt.Sprintf("at least %g req/s (raise search.high)", c.High)
	}
	return fmt.Sprintf("%g req/s (the next probe, %g req/s, broke the SLO)", *c.Rate, c.Bracket[1])
}

// sustained is the highest probed rate an unfinished search has found
// within the SLO while the server kept up.
func sustained(c *decide.CapacitySide) string {
	if c.Sustained == nil {
		return "no probe has met the SLO so far"
	}
	return fmt.Sprintf("at least %g req/s so far", *c.Sustained)
}

// writeAnswers prints each validation search's capacities and the
// trade-offs of the final configuration.
func writeAnswers(w io.Writer, a *decide.Analysis) {
	for _, row := range a.Validation {
		if c := row.Capacity; c != nil {
			fmt.Fprintf(w, "\ncapacity at %s: final %s; baseline %s\n", row.Profile, capacityText(c.Final), capacityText(c.Baseline))
		}
	}
	writeTradeoffs(w, "trade-offs, what the final makes worse than the baseline:", a.Tradeoffs)
	writeTradeoffs(w, "unsettled, worse on average but the runs disagree:", a.Unsettled)
}

func writeTradeoffs(w io.Writer, title string, ts []decide.Tradeoff) {
	if len(ts) == 0 {
		return
	}
	fmt.Fprintln(w, "\n"+title)
	for _, t := range ts {
		fmt.Fprintf(w, "  %s at %s: %s → %s (%.2fx worse)\n", t.Metric, t.Profile, fmtTradeoff(t.Metric, t.Baseline), fmtTradeoff(t.Metric, t.Final), t.Ratio)
	}
}

func fmtTradeoff(metric string, v float64) string {
	if metric == "capacity" {
		return fmt.Sprintf("%g req/s", v)
	}
	return fmtValue(metric, v)
}
