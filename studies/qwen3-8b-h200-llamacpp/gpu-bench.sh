#!/usr/bin/env bash
# The benchmark client's figures on the GPU host (issues 20 and 23),
# run before the llama.cpp build while the host's cores are idle. The
# Go test binaries travel built (the host has no Go) in bench.tar.xz:
# execute/load's before (main at 7b5e32a) and after this change, with
# servelab-sim beside them (SERVELAB_SIM_BIN), and execute/dataset's
# for the trace-replay timing test. Each make-bench figure is printed
# as the benchmark reports it; logs go to $OUT/bench.log.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
REPO=${REPO:-$PWD}
W=${W:-/root/servelab-work}
OUT=${OUT:-$W/out}
B=$W/bench
mkdir -p "$B" "$OUT"
exec > >(tee -a "$OUT/bench.log") 2>&1
t0=$(date +%s)
stamp() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - t0)) s) $*"; }
stamp "host: $(nproc) cores, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
systemd-detect-virt 2>/dev/null || grep -o hypervisor /proc/cpuinfo | head -1 || true
uptime
tar -C "$B" -xJf "$G/bench.tar.xz"
export SERVELAB_SIM_BIN=$B/servelab-sim BENCH_ROUNDS=${BENCH_ROUNDS:-1}
cd "$B"
for v in ${CLIENTS-after before after}; do
	stamp "BenchmarkClient ($v)"
	"./load-$v.test" -test.run '^$' -test.bench 'BenchmarkClient$' -test.benchtime 1x -test.cpu 1 2>&1 | grep -vE '^(goos|goarch|pkg|cpu):'
done
stamp "BenchmarkReadFloor, BenchmarkLoopbackRead, BenchmarkScheduleLag500 (after)"
./load-after.test -test.run '^$' -test.bench 'ReadFloor|LoopbackRead|ScheduleLag500' -test.cpu 1 2>&1 | grep -E '^Benchmark'
# The replay test reads its sample trace from its package's testdata.
if [[ ${REPLAYS:-10} -gt 0 ]]; then
	stamp "trace replay timing test, ${REPLAYS:-10} replays (after)"
	(cd "$REPO/execute/dataset" && SERVELAB_TIMING_ALONE=1 "$B/dataset.test" -test.run '^TestTraceReplayKeepsArrivals$' \
		-test.count "${REPLAYS:-10}" -test.v 2>&1 | grep -E 'attempt|^(--- |ok|PASS|FAIL)|panic|build')
fi
stamp "bench done"
