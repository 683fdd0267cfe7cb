// Package slurm talks to a Slurm cluster through its own commands
// (sbatch, squeue, sacct, scancel) in their machine-readable forms:
// sbatch --parsable, squeue and sacct with explicit '|'-separated
// fields. It knows nothing of studies; the runner's cluster driver
// decides what to submit.
package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"time"
)

// Client runs the Slurm commands. The zero value uses the commands on
// PATH and the environment (SLURM_CONF) of this process.
type Client struct {
	// Command runs one Slurm command and returns its standard output;
	// nil runs it with os/exec. Tests replace it to feed parsers.
	Command func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Job is what to submit: one batch script.
type Job struct {
	Name      string
	Comment   string
	Script    string // path of the batch script
	Output    string // log path; %j is the job id
	Dir       string // working directory of the job
	GPUs      int
	Time      time.Duration // limit, rounded up to whole minutes
	Partition string
	Account   string
}

// Args are sbatch's arguments for j, before the script.
func (j Job) Args() []string {
	args := []string{"--parsable", "--job-name=" + j.Name, "--comment=" + j.Comment, "--output=" + j.Output,
		"--chdir=" + j.Dir, "--nodes=1", "--ntasks=1", "--time=" + strconv.Itoa(minutes(j.Time))}
	if j.GPUs > 0 {
		args = append(args, "--gres=gpu:"+strconv.Itoa(j.GPUs))
	}
	if j.Partition != "" {
		args = append(args, "--partition="+j.Partition)
	}
	if j.Account != "" {
		args = append(args, "--account="+j.Account)
	}
	return append(args, j.Script)
}

func minutes(d time.Duration) int { return max(1, int((d+time.Minute-1)/time.Minute)) }

// Submit submits j and returns its job id.
func (c Client) Submit(ctx context.Context, j Job) (string, error) {
	out, err := c.run(ctx, "sbatch", j.Args()...)
	if err != nil {
		return "", err
	}
	return ParseSubmit(out)
}

// ParseSubmit reads sbatch --parsable's "id" or "id;cluster".
func ParseSubmit(out []byte) (string, error) {
	line := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:] // warnings may come first
	}
	id, _, _ := strings.Cut(line, ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch --parsable printed %q, not a job id", line)
	}
	return id, nil
}

// Status is one job as squeue or sacct sees it.
type Status struct {
	ID      string
	Name    string
	State   string // PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, ...
	Reason  string // why it waits or failed, as squeue says
	Submit  time.Time
	Start   time.Time // zero until it starts
	Comment string
}

// Active is true while the job may still run.
func (s Status) Active() bool { return !Terminal(s.State) }

// Terminal states end a job. Anything else (PENDING, RUNNING,
// CONFIGURING, COMPLETING, SUSPENDED, REQUEUED, ...) may still run.
func Terminal(state string) bool {
	switch state {
	case "COMPLETED", "FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "CANCELLED",
		"PREEMPTED", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED":
		return true
	}
	return false
}

const squeueFormat = "%i|%T|%V|%S|%r|%j|%k"

// Jobs lists this user's jobs that slurmctld still knows, finished ones
// included (for MinJobAge after they end).
func (c Client) Jobs(ctx context.Context) ([]Status, error) {
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	out, err := c.run(ctx, "squeue", "--noheader", "--states=all", "--user="+u.Username, "--format="+squeueFormat)
	if err != nil {
		return nil, err
	}
	return ParseSqueue(out)
}

// ParseSqueue reads squeue's output in squeueFormat: the free-text
// fields (reason, name, comment) come last, the comment last of all, so
// that a '|' in it cannot shift the others.
func ParseSqueue(out []byte) ([]Status, error) {
	var jobs []Status
	for n, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "|", 7)
		if len(f) != 7 {
			return nil, fmt.Errorf("squeue line %d: %q: want 7 '|'-separated fields", n+1, line)
		}
		if _, err := strconv.ParseUint(strings.Split(f[0], "_")[0], 10, 64); err != nil {
			return nil, fmt.Errorf("squeue line %d: job id %q", n+1, f[0])
		}
		jobs = append(jobs, Status{ID: f[0], State: f[1], Submit: slurmTime(f[2]), Start: slurmTime(f[3]), Reason: f[4], Name: f[5], Comment: f[6]})
	}
	return jobs, nil
}

// slurmTime reads Slurm's local times (2026-12-03T06:10:39); "N/A",
// "Unknown" and "None" are the zero time.
func slurmTime(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}

// State is a job's state: from squeue while slurmctld remembers it,
// else from sacct (the accounting database), else an error.
func (c Client) State(ctx context.Context, id string) (Status, error) {
	jobs, err := c.Jobs(ctx)
	if err == nil {
		for _, j := range jobs {
			if j.ID == id {
				return j, nil
			}
		}
	}
	st, aerr := c.Accounting(ctx, id)
	if aerr != nil && err != nil {
		return st, fmt.Errorf("job %s: squeue failed (%v) and %w", id, err, aerr)
	}
	return st, aerr
}

// Accounting is a job's state from sacct (slurmdbd), for a job that
// slurmctld no longer lists.
func (c Client) Accounting(ctx context.Context, id string) (Status, error) {
	out, err := c.run(ctx, "sacct", "--noheader", "--parsable2", "--allocations", "--jobs="+id, "--format=JobID,State,Submit,Start,Reason,JobName,Comment")
	if err != nil {
		return Status{}, fmt.Errorf("job %s: sacct: %w", id, err)
	}
	return ParseSacct(out, id)
}

// ParseSacct reads sacct --parsable2's line for job id. Its state may
// carry a detail ("CANCELLED by 0"): the first word is the state.
func ParseSacct(out []byte, id string) (Status, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 7)
		if len(f) == 7 && f[0] == id {
			state, _, _ := strings.Cut(f[1], " ")
			return Status{ID: id, State: state, Submit: slurmTime(f[2]), Start: slurmTime(f[3]), Reason: f[4], Name: f[5], Comment: f[6]}, nil
		}
	}
	return Status{}, fmt.Errorf("job %s: sacct does not know it", id)
}

// Cancel cancels jobs; ones already finished are fine.
func (c Client) Cancel(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := c.run(ctx, "scancel", ids...)
	return err
}

func (c Client) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if c.Command != nil {
		return c.Command(ctx, name, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) || stderr.Len() > 0 {
			return out, fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(stderr.String()))
		}
		return out, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
