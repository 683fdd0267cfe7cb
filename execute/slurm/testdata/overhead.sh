#!/bin/bash
# make bench-slurm: launcher overhead per trial, locally and through a
# one-node Slurm cluster, in one run of the simulated example study.
#   overhead.sh BIN_DIR
# Locally the overhead is launching, waiting for health and tearing
# down; through Slurm, each job adds its time from sbatch to the job's
# start (the driver measures it from the job script's start mark).
set -euo pipefail
bin=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d)
trap 'bash "$here/cluster.sh" stop "$work/cluster"; rm -rf "$work"' EXIT
eval "export $(bash "$here/cluster.sh" start "$work/cluster")"
cp "$here/../../../studies/examples/sim-quickstart.cue" "$work/study.cue"
cd "$work"

"$bin/servelab" run study.cue --simulate --sim "$bin/servelab-sim" --results local >local.out 2>local.err
"$bin/servelab" run study.cue --simulate --sim "$bin/servelab-sim" --results slurm --cluster slurm --poll 200ms >slurm.out 2>slurm.err
cat local.out slurm.out
grep -h "^trial" slurm/.slurm/*.log || true
# trials: N run, ...; GPU time: Xs in benchmarks, Ys launching, ...
awk -F'[ ;,:]+' '
	FILENAME == "local.out" && /^trials:/ { for (i = 1; i <= NF; i++) { if ($i == "run") lt = $(i-1); if ($i == "launching") lo = $(i-1) } }
	FILENAME == "slurm.out" && /^trials:/ { for (i = 1; i <= NF; i++) if ($i == "run") st = $(i-1) }
	FILENAME == "slurm.out" && /^slurm jobs:/ { for (i = 1; i <= NF; i++) { if ($i == "start") sw = $(i+1); if ($i == "over") sj = $(i+1) } }
	FILENAME == "slurm.err" && /from submission to start/ { n++ }
	END {
		sub(/s$/, "", sw); lo = secs(lo)
		printf "local: %d trials, %.3f s launch overhead per trial\n", lt, lo / lt
		printf "slurm: %d trials in %d jobs, %.3f s from submission to start per job, %.3f s per trial (on top of the same launch inside the job)\n", st, sj, sw / sj, sw / st
	}
	function secs(v) { if (v ~ /ms$/) { sub(/ms$/, "", v); return v / 1000 } sub(/s$/, "", v); return v }
' local.out slurm.out slurm.err
