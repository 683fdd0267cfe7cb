package slurm

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestJobArgs(t *testing.T) {
	j := Job{Name: "servelab-s-abc", Comment: "servelab results=/shared/r", Script: "/shared/r/.slurm/abc.sh",
		Output: "/shared/r/.slurm/abc-%j.log", Dir: "/home/u", GPUs: 2, Time: 61*time.Minute + time.Second, Partition: "h100", Account: "perf"}
	want := []string{"--parsable", "--job-name=servelab-s-abc", "--comment=servelab results=/shared/r", "--output=/shared/r/.slurm/abc-%j.log",
		"--chdir=/home/u", "--nodes=1", "--ntasks=1", "--time=62", "--gres=gpu:2", "--partition=h100", "--account=perf", "/shared/r/.slurm/abc.sh"}
	if got := j.Args(); !reflect.DeepEqual(got, want) {
		t.Errorf("args\n got %q\nwant %q", got, want)
	}
	if got := (Job{Time: time.Second}).Args(); got[7] != "--time=1" || len(got) != 9 {
		t.Errorf("minimal job: %q", got)
	}
}

func TestParseSubmit(t *testing.T) {
	for in, want := range map[string]string{"42\n": "42", "42;cluster2\n": "42", "sbatch: warning: x\n7\n": "7"} {
		if got, err := ParseSubmit([]byte(in)); err != nil || got != want {
			t.Errorf("ParseSubmit(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Submitted batch job 42\n", "x;y"} {
		if _, err := ParseSubmit([]byte(in)); err == nil {
			t.Errorf("ParseSubmit(%q): no error", in)
		}
	}
}

func TestParseSqueue(t *testing.T) {
	out := "12|RUNNING|2026-12-03T06:10:39|2026-12-03T06:10:42|None|servelab-s-abc|servelab results=/r|x\n" +
		"13|PENDING|2026-12-03T06:10:40|N/A|Resources|servelab-s-def|\n"
	jobs, err := ParseSqueue([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Comment != "servelab results=/r|x" || jobs[0].Start.IsZero() || !jobs[1].Start.IsZero() ||
		jobs[1].Reason != "Resources" || !jobs[1].Active() || jobs[0].Name != "servelab-s-abc" {
		t.Errorf("jobs %+v", jobs)
	}
	if got := jobs[0].Start.Sub(jobs[0].Submit); got != 3*time.Second {
		t.Errorf("start - submit = %s", got)
	}
	if _, err := ParseSqueue([]byte("12|RUNNING\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("short line: err = %v", err)
	}
}

func TestParseSacct(t *testing.T) {
	out := "41|COMPLETED|2026-12-03T06:00:00|2026-12-03T06:00:01|None|a|\n42|CANCELLED by 0|2026-12-03T06:00:00|2026-12-03T06:00:02|None|b|c\n"
	st, err := ParseSacct([]byte(out), "42")
	if err != nil || st.State != "CANCELLED" || st.Name != "b" || st.Active() {
		t.Errorf("ParseSacct = %+v, %v", st, err)
	}
	if _, err := ParseSacct([]byte(out), "43"); err == nil {
		t.Error("unknown job: no error")
	}
}

func TestTerminal(t *testing.T) {
	for _, s := range []string{"FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "CANCELLED", "COMPLETED"} {
		if !Terminal(s) {
			t.Errorf("%s not terminal", s)
		}
	}
	for _, s := range []string{"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "REQUEUED", "SUSPENDED"} {
		if Terminal(s) {
			t.Errorf("%s terminal", s)
		}
	}
}

// State falls back to sacct when squeue no longer lists the job.
func TestStateFallsBackToSacct(t *testing.T) {
	var calls []string
	c := Client{Command: func(_ context.Context, name string, args ...string) ([]byte, error) {
		calls = append(calls, name)
		if name == "squeue" {
			return []byte("9|RUNNING|N/A|N/A|None|n|c\n"), nil
		}
		return []byte("42|TIMEOUT|2026-12-03T06:00:00|2026-12-03T06:00:02|None|n|c\n"), nil
	}}
	st, err := c.State(context.Background(), "42")
	if err != nil || st.State != "TIMEOUT" || strings.Join(calls, ",") != "squeue,sacct" {
		t.Errorf("State = %+v, %v after %v", st, err, calls)
	}
}

func FuzzParseSqueue(f *testing.F) {
	f.Add([]byte("12|RUNNING|2026-12-03T06:10:39|2026-12-03T06:10:42|None|n|c\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		jobs, err := ParseSqueue(b)
		if err == nil && len(jobs) > strings.Count(string(b), "\n")+1 {
			t.Errorf("%d jobs from %d lines", len(jobs), strings.Count(string(b), "\n")+1)
		}
	})
}

func FuzzParseSubmit(f *testing.F) {
	f.Add([]byte("42;c\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if id, err := ParseSubmit(b); err == nil && (id == "" || strings.ContainsAny(id, ";\n ")) {
			t.Errorf("id %q from %q", id, b)
		}
	})
}

func FuzzParseSacct(f *testing.F) {
	f.Add([]byte("42|CANCELLED by 0|2026-12-03T06:00:00|N/A|None|b|c\n"), "42")
	f.Fuzz(func(t *testing.T, b []byte, id string) {
		if st, err := ParseSacct(b, id); err == nil && (st.ID != id || strings.Contains(st.State, " ")) {
			t.Errorf("status %+v for %q", st, id)
		}
	})
}
