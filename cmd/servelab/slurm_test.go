package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"servelab.dev/execute/slurm"
)

// TestSlurmScript runs testdata/slurm on a one-node Slurm cluster that
// it starts (execute/slurm/testdata/cluster.sh: munged, slurmctld and
// slurmd, private to the test) and stops by pid when it ends, failed or
// not. Where the machine cannot run the cluster it skips and says why;
// with SERVELAB_REQUIRE_SLURM set (make test, where the Makefile could
// install Slurm) it fails instead.
func TestSlurmScript(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	conf, why := startCluster(t, repo)
	if why != "" {
		if os.Getenv("SERVELAB_REQUIRE_SLURM") != "" {
			t.Fatalf("SERVELAB_REQUIRE_SLURM is set but the Slurm cluster cannot run: %s", why)
		}
		t.Skip("Slurm testscripts skipped: " + why)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/slurm",
		UpdateScripts:       *update || os.Getenv("SERVELAB_UPDATE") != "",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exists-glob":  existsGlob,
			"grep-glob":    grepGlob,
			"slurm-wait":   slurmWait,
			"slurm-unique": slurmUnique,
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("PATH", simDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("SERVELAB_SIM_DIR", simDir)
			env.Setenv("CUE_REGISTRY", "none")
			env.Setenv("SLURM_CONF", conf)
			return nil
		},
	})
}

// startCluster starts the test cluster and returns its slurm.conf, or
// why it cannot run here.
func startCluster(t *testing.T, repo string) (conf, why string) {
	if os.Geteuid() != 0 {
		return "", "the test cluster runs its daemons as root (SlurmUser=root), and this is not root"
	}
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel"} {
		if _, err := exec.LookPath(b); err != nil {
			return "", b + " is not installed (make slurm-deps installs Debian's slurm-wlm and munge)"
		}
	}
	dir, err := os.MkdirTemp("", "servelab-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(repo, "execute", "slurm", "testdata", "cluster.sh")
	out, err := exec.Command("bash", script, "start", dir).CombinedOutput()
	t.Cleanup(func() {
		if out, err := exec.Command("bash", script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("stopping the Slurm cluster: %v\n%s", err, out)
		}
		os.RemoveAll(dir)
	})
	if err != nil {
		t.Fatalf("starting the Slurm cluster: %v\n%s", err, out)
	}
	return filepath.Join(dir, "slurm.conf"), ""
}

// ourJobs are the jobs of the script's results folder (the driver's
// comment names it), as squeue lists them.
func ourJobs(ts *testscript.TestScript, results string) []slurm.Status {
	os.Setenv("SLURM_CONF", ts.Getenv("SLURM_CONF"))
	jobs, err := slurm.Client{}.Jobs(context.Background())
	ts.Check(err)
	var out []slurm.Status
	for _, j := range jobs {
		if j.Comment == "servelab results="+ts.MkAbs(results) {
			out = append(out, j)
		}
	}
	return out
}

// slurmWait waits up to a minute for one of the jobs of the script's
// results folder (default results) to be in STATE (for RUNNING: its
// batch script has begun) and sets $JOB to its id.
func slurmWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: slurm-wait STATE [RESULTS]")
	}
	results := "results"
	if len(args) == 2 {
		results = args[1]
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, j := range ourJobs(ts, results) {
			if j.State == args[0] && (j.State != "RUNNING" || jobStarted(ts, results, j.ID)) {
				ts.Setenv("JOB", j.ID)
				return
			}
		}
	}
	ts.Fatalf("no job of this script reached %s in a minute", args[0])
}

// jobStarted reports whether a job's batch script has begun: squeue says
// RUNNING a moment before the script's first line reaches its log.
func jobStarted(ts *testscript.TestScript, results, id string) bool {
	logs, _ := filepath.Glob(filepath.Join(ts.MkAbs(results), ".slurm", "*-"+id+".log"))
	for _, f := range logs {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "servelab job started at") {
			return true
		}
	}
	return false
}

// slurmUnique fails when two of the script's jobs carry the same name:
// one configuration group submitted twice.
func slurmUnique(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: slurm-unique")
	}
	seen := map[string]string{}
	jobs := ourJobs(ts, "results")
	for _, j := range jobs {
		if id, dup := seen[j.Name]; dup {
			ts.Fatalf("%s submitted twice: jobs %s and %s", j.Name, id, j.ID)
		}
		seen[j.Name] = j.ID
		ts.Logf("job %s %s %s", j.ID, j.Name, j.State)
	}
	if len(jobs) == 0 {
		ts.Fatalf("no job of this script in squeue")
	}
}
