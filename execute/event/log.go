package event

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Log writes the plain log a CI job keeps: one line (or a few) per
// event that a reader of the log needs, in English. Events of the
// launch's inner phases (health wait, ready, teardown), re-plans and
// the summary add no line: the launch line and each trial's lines tell
// the story, and the command prints the summary itself.
func Log(w io.Writer) Sink {
	return Func(func(e Event) { io.WriteString(w, Line(e)) })
}

// Line is the event's text in the plain log, with its newline; "" for
// an event the log leaves out.
func Line(e Event) string {
	switch e.Kind {
	case Notice:
		return e.Message + "\n"
	case InvalidRecord:
		return fmt.Sprintf("invalid record skipped: %s\n", e.Reason)
	case GPUWait:
		return fmt.Sprintf("waiting for GPU memory to be free:%s\n", gpuList(e.GPUs))
	case Launching:
		l := e.Launch
		return fmt.Sprintf("launch %s %s (%d trials%s): %s\n", l.Engine, l.Version, l.Trials, onGPUs(l.GPUs), l.Command)
	case TrialFailed:
		if e.Trial.Job != "" {
			return "" // the driver's count; the job-ended line says why
		}
		t := e.Trial
		return fmt.Sprintf("failed %s/%s/%s: %s\n", t.Step, t.Variant, t.Profile, firstLine(e.Reason))
	case QualityGuard:
		q := e.Quality
		return fmt.Sprintf("  quality guard: %d greedy outputs of %d tokens%s\n", q.Outputs, q.Tokens, errSuffix(q.Error))
	case TrialStarted:
		t := e.Trial
		return fmt.Sprintf("trial %s/%s/%s#%d (%s)\n", t.Step, t.Variant, t.Profile, t.Repeat, short(t.Key))
	case EarlyStop:
		return fmt.Sprintf("  stopped early: %s\n", e.Stop.Reason)
	case TrialFinished:
		if e.Trial.Job != "" {
			return ""
		}
		r := e.Result
		return fmt.Sprintf("  %s in %.1fs: %d ok, %d failed\n", r.Status, r.Seconds, r.Completed, r.Failed)
	case JobAttached:
		j := e.Job
		return fmt.Sprintf("attached to job %s (%s, %s): submitted by an earlier servelab run\n", j.ID, j.Name, j.State)
	case JobSubmitted:
		j := e.Job
		return fmt.Sprintf("submitted job %s (%s): %s %s, %d trials, %d GPUs, time limit %d min: %s\n",
			j.ID, j.Name, j.Engine, j.Version, j.Trials, j.GPUs, j.TimeLimitMinutes, j.Command)
	case JobRunning:
		return fmt.Sprintf("job %s RUNNING\n", e.Job.ID)
	case JobsCancelled:
		return fmt.Sprintf("cancelled jobs %s\n", strings.Join(e.Job.IDs, ","))
	case JobEnded:
		return jobEnded(e.Job)
	}
	return ""
}

func jobEnded(j *Job) string {
	waited := ""
	if j.QueueWaitSeconds != nil {
		waited = fmt.Sprintf(", %.2fs from submission to start", *j.QueueWaitSeconds)
	}
	if j.State == "COMPLETED" {
		return fmt.Sprintf("job %s COMPLETED%s\n", j.ID, waited)
	}
	why := ""
	if j.Reason != "" && j.Reason != "None" {
		why = " (" + j.Reason + ")"
	}
	return fmt.Sprintf("job %s (%s) %s%s; log %s, tail:\n%s\n", j.ID, j.Name, j.State, why, j.Log, j.Tail)
}

func onGPUs(gpus []string) string {
	if len(gpus) == 0 {
		return ""
	}
	return ", GPUs " + strings.Join(gpus, ",")
}

func gpuList(gs []GPU) string {
	var b strings.Builder
	for i, g := range gs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " GPU %s has %d MiB in use", g.ID, g.UsedMiB)
	}
	return b.String()
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return " (" + firstLine(e) + ")"
}

func short(key string) string { return key[:min(12, len(key))] }

// JSON writes each event as one JSON object on its own line. The same
// events give the same bytes: fields in a fixed order, times in UTC.
func JSON(w io.Writer) Sink {
	return Func(func(e Event) {
		b, err := Marshal(e)
		if err == nil {
			w.Write(b)
		}
	})
}

// Marshal is the event's line in the JSON stream, with its newline.
func Marshal(e Event) ([]byte, error) {
	e.Time = e.Time.UTC()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(e)
	return buf.Bytes(), err
}

// ReadJSON reads a stream JSON wrote; an error names the line. Fields
// it does not know (from a later servelab) are ignored.
func ReadJSON(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("line %d: %w", n, err)
		}
		if e.Kind == "" {
			return out, fmt.Errorf("line %d: no kind", n)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
