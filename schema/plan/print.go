package plan

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// KeyPrefix is how many hex digits of a key tables show.
const KeyPrefix = 12

// WriteTable writes the plan for a terminal: one line per trial, then
// the state of each step and the estimate.
func WriteTable(w io.Writer, p *Plan, repeats bool) error {
	fmt.Fprintf(w, "study %s\n\n", p.Study)
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	head := "STEP\tVARIANT\tENGINE\tMODEL\tPROFILE\t"
	if repeats {
		head += "REPEAT\t"
	}
	fmt.Fprintln(tw, head+"STATUS\tKEY\tNOTE")
	for _, t := range p.Trials {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t", t.Step, t.Variant, orDash(t.Engine), orDash(t.Model), t.Profile)
		if repeats {
			fmt.Fprintf(tw, "%d\t", t.Repeat)
		}
		key := "-"
		if t.Key != "" {
			key = t.Key[:KeyPrefix]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Status, key, note(t))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		io.WriteString(w, strings.TrimRight(line, " \n"))
		if strings.HasSuffix(line, "\n") {
			io.WriteString(w, "\n")
		}
	}
	fmt.Fprintln(w)
	for _, st := range p.Steps {
		line := fmt.Sprintf("step %s (%s): %s", st.ID, st.Kind, st.Status)
		if st.Runs != "" {
			line = fmt.Sprintf("step %s (%s, %s runs): %s", st.ID, st.Kind, st.Runs, st.Status)
		}
		if st.Status == StepDecided {
			line += ", " + adoptedText(st)
		} else if st.Detail != "" {
			line += ": " + st.Detail
		}
		fmt.Fprintln(w, line)
	}
	e := p.Estimate
	fmt.Fprintf(w, "\ntrials: %d (%d runnable, %d pending, %d cached)\n",
		e.Trials, e.Trials-e.Pending-e.Cached, e.Pending, e.Cached)
	_, err := fmt.Fprintf(w, "estimated GPU time: %s = %d launches × %s + %s of benchmarks (pending trials counted as planned)\n",
		dur(e.TotalSeconds), e.Launches, dur(e.LaunchSeconds/max(1, float64(e.Launches))), dur(e.BenchmarkSeconds))
	if err == nil && e.MaxSeconds > 0 {
		_, err = fmt.Fprintf(w, "with adaptive repeats: %s to %s, as the open comparisons close at min or run to max repeats\n", dur(e.TotalSeconds), dur(e.MaxSeconds))
	}
	return err
}

// note names the other roles of a merged trial, or what a pending
// variant adds to a configuration not known yet.
func note(t *Trial) string {
	switch {
	case len(t.Also) > 0:
		return "also " + strings.Join(t.Also, ", ")
	case len(t.Changes) > 0:
		return "adds " + strings.Join(t.Changes, " ")
	}
	return ""
}

func adoptedText(st StepState) string {
	if st.Adopted == "" {
		return "incumbent kept"
	}
	return "adopted " + st.Adopted
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func dur(sec float64) string {
	return (time.Duration(sec+0.5) * time.Second).String()
}
