#!/usr/bin/env bash
# Device call 2 of 2: runs the study with servelab on the llama-server
# and models call 1 left in $W, decides it, then checks that the final
# serve command servelab prints starts the same server: it launches that
# command as printed (through bash) and compares what llama.cpp itself
# logs of its effective settings with the log of the run's launch of the
# final configuration. Records and logs come back in $OUT/records.tar.gz.
# The records the repository already holds seed the results folder, so
# only what they lack is run (the cache resumes across sessions); so do
# records an earlier call brought back, carried in $G/results, when the
# machine started cold. records.tar.gz holds every result folder the
# repository lacks (all of this session's so far, whichever call made
# them), the run's events (--json-events) go to $OUT/events.jsonl.
# RUN=0 skips the study run (the checks then use the records as they
# are). FALLBACK=1 (the default), once the study is complete, measures the
# printed command against the fallback its note gives for builds without
# --kv-unified-per-slot
# (--ctx-size 32768 in its place): each launched in turn, its settings
# lines compared, and BENCH_RUNS runs of the study's c8 load sent to each
# with servelab bench; the records come back in fallback/. EXTRA=1 (the
# default) then measures the two settings the page names as untested
# (extra_check below); the records come back in extra/.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
REPO=$PWD
W=${W:-/root/servelab-work}
OUT=${OUT:-$W/out}
S=qwen3-8b-h200-llamacpp
mkdir -p "$OUT"
exec > >(tee -a "$OUT/study.log") 2>&1
t0=$(date +%s)
stamp() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - t0)) s) $*"; }
pack() {
	(cd "$W/study" && for d in results/*/; do [[ -e $REPO/$d ]] || echo "$d"; done >new-dirs.txt
		tar -czf "$OUT/records.tar.gz" -T new-dirs.txt fallback extra clocks ab probes analyze.txt analyze.json plan.txt final-server.log final-check.txt 2>/dev/null)
	ls -l "$OUT"
}
trap pack EXIT
cd "$W/study" || exit 1
export PATH=$(cat "$W/bin-path"):$PATH
cp "$G/$S.cue" .
mkdir -p results
[[ -d $REPO/results ]] && cp -rn "$REPO/results/." results/
[[ -d $G/results ]] && cp -rn "$G/results/." results/
stamp "study run starts ($(command -v llama-server))"
rc=0
# RUN=0 runs no trial: the checks below then use the records as they are.
if [[ ${RUN:-1} == 1 ]]; then
	timeout -s INT -k 30 "${RUN_LIMIT:-500}" "$G/servelab" run "$S.cue" --results results --json-events >>"$OUT/events.jsonl"
	rc=$?
fi
stamp "study run ended (rc $rc)"
"$G/servelab" analyze "$S.cue" --results results >analyze.txt 2>&1
"$G/servelab" analyze "$S.cue" --results results --json >analyze.json 2>/dev/null
cat analyze.txt
"$G/servelab" plan "$S.cue" --results results >plan.txt 2>&1
cmd=$(awk '/^final \(/{getline; sub(/^ +/, ""); print; exit}' analyze.txt)
key=$(grep -E '^validate +final |validate/final' plan.txt | grep -oE '\b[0-9a-f]{12}\b' | head -1)
{
	echo "printed final command: $cmd"
	echo "run's launch of it: results/$key*/engine.log"
} | tee final-check.txt
[[ -n $cmd && -n $key ]] || { stamp "no final command or key"; exit 1; }
bash -c "exec $cmd --host 127.0.0.1 --port 18123" >final-server.log 2>&1 &
pid=$!
for i in $(seq 1 180); do
	curl -sf http://127.0.0.1:18123/health >/dev/null && break
	sleep 1
done
curl -s http://127.0.0.1:18123/health | tee -a final-check.txt; echo | tee -a final-check.txt
curl -s http://127.0.0.1:18123/props | head -c 600 | tee -a final-check.txt; echo | tee -a final-check.txt
kill "$pid"; wait "$pid"
settings() { grep -E ' I (srv +llama_server: --kv-unified|srv +load_model: (loading model|capping|initializing)|cmn +init: llama threadpool)' "$1" | sed -E 's/^\S+ //'; }
# serve CMD LOG: starts CMD as printed, on the check's port, and waits
# for its health.
serve() {
	local i
	bash -c "exec $1 --host 127.0.0.1 --port 18123" >"$2" 2>&1 &
	pid=$!
	for i in $(seq 1 180); do
		curl -sf http://127.0.0.1:18123/health >/dev/null && return 0
		sleep 1
	done
	return 1
}
# bench_c8 NAME: BENCH_RUNS runs of the study's c8 profile (200 requests
# of 256 random tokens in and 64 out, 4 warm-up, seed 1) against :18123.
bench_c8() {
	local r
	for r in $(seq 1 "${BENCH_RUNS:-3}"); do
		"$G/servelab" bench --target http://127.0.0.1:18123 --model models/qwen3-8b-random-f16.gguf \
			--kind concurrency --concurrency 8 --requests 200 --warmup 4 --random 256,64 \
			--api completions --ignore-eos --seed 1 --timeout 120s -o "${DIR:-fallback}/$1-c8-$r.json" 2>&1 | tail -3
	done
}
fallback_check() {
	local fb=${1/--kv-unified-per-slot 4096/--ctx-size 32768}
	mkdir -p fallback
	echo "printed: $1" >fallback/check.txt
	echo "fallback: $fb" >>fallback/check.txt
	for which in printed fallback; do
		local c=$1
		[[ $which == fallback ]] && c=$fb
		stamp "$which command: launch and bench"
		serve "$c" "fallback/$which-server.log" || { stamp "$which did not start"; kill "$pid"; return 1; }
		grep -E 'load_model: initializing|llama_context: n_ctx|llama_kv_cache: +size' "fallback/$which-server.log" | sed -E 's/^\S+ //' | tee -a fallback/check.txt
		bench_c8 "$which"
		kill "$pid"; wait "$pid"
	done
	stamp "fallback measured"
}
run_log=$(ls results/$key*/engine.log | head -1)
settings "$run_log" >settings-run.txt
settings final-server.log >settings-final.txt
cat settings-final.txt | tee -a final-check.txt
if [[ -s settings-final.txt ]] && diff settings-run.txt settings-final.txt >>final-check.txt; then
	echo "SAME SERVER: the printed command starts llama-server with the settings of the run's final configuration" | tee -a final-check.txt
else
	echo "DIFFERENT: the printed command's server differs from the run's (diff above)" | tee -a final-check.txt
fi
# bench_rate NAME RATE [S]: one Poisson run of S (30) s at RATE req/s, the
# capacity search's probe shape (256 tokens in, 64 out; seed SEED, 1).
bench_rate() {
	local n
	n=$(awk -v r="$2" -v s="${3:-30}" 'BEGIN{printf "%d", r * s}')
	"$G/servelab" bench --target http://127.0.0.1:18123 --model models/qwen3-8b-random-f16.gguf \
		--kind poisson --rate "$2" --requests "$n" --warmup 4 --random 256,64 \
		--api completions --ignore-eos --seed "${SEED:-1}" --timeout 120s -o "${DIR:-extra}/$1-rate$2.json" 2>&1 | tail -3
}
# clocks_check CMD: the slower decode under light Poisson load. The
# printed command with --parallel 8, 4 and 1, each one Poisson run at
# CLOCK_RATE (2) req/s for 60 s, with the GPU's SM clock, power and
# utilisation sampled every 200 ms beside it (clocks-N.csv).
clocks_check() {
	mkdir -p clocks
	local p c q
	for p in ${CLOCK_SLOTS:-8 4 1}; do
		c=${1/--parallel 8/--parallel $p}
		echo "parallel-$p: $c" >>clocks/check.txt
		stamp "clocks parallel-$p: launch and bench"
		serve "$c" "clocks/parallel-$p-server.log" || { stamp "parallel-$p did not start"; kill "$pid"; continue; }
		nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu,temperature.gpu --format=csv -lms 200 >"clocks/clocks-$p.csv" &
		q=$!
		DIR=clocks bench_rate "parallel-$p" "${CLOCK_RATE:-2}" 60
		kill "$q"
		kill "$pid"; wait "$pid"
	done
	stamp "clocks measured"
}
# extra_check CMD: the two settings the page names as untested. More
# slots (--parallel 12 and 16 in place of 8), each one Poisson probe at
# EXTRA_RATES, above the printed command's capacity, beside the printed
# command's own probe; and the host prompt cache without idle-slot saves
# (--cache-ram 8192 --no-cache-idle-slots in place of --cache-ram 0), two
# runs of the c8 load beside the printed command's runs in fallback/.
extra_check() {
	mkdir -p extra
	local which c
	for which in parallel-8 parallel-12 parallel-16 idle-slots; do
		c=${1/--parallel 8/--${which/-/ }}
		[[ $which == idle-slots ]] && c=${1/--cache-ram 0/--cache-ram 8192 --no-cache-idle-slots}
		echo "$which: $c" >>extra/check.txt
		stamp "extra $which: launch and bench"
		serve "$c" "extra/$which-server.log" || { stamp "$which did not start"; kill "$pid"; continue; }
		grep -E 'load_model: initializing|llama_context: n_ctx|llama_kv_cache: +size' "extra/$which-server.log" | sed -E 's/^\S+ //' | tee -a extra/check.txt
		if [[ $which == idle-slots ]]; then
			DIR=extra bench_c8 "$which"
		else
			for r in ${EXTRA_RATES:-9}; do bench_rate "$which" "$r"; done
		fi
		kill "$pid"; wait "$pid"
	done
	stamp "extra measured"
}
# room SECONDS: whether the call has that much time left (CHECK_END, set
# by gpu-call.sh from the device's limit, less the packing).
room() { (($(date +%s) + $1 <= ${CHECK_END:-9999999999})); }
# ab_check CMD: the host cache at 8 slots, all on one card. AB_ROUNDS
# rounds; in each, CMD (--cache-ram 0), the default --cache-ram 8192 and
# --cache-ram 8192 --no-cache-idle-slots are each launched fresh, sent one
# run of the c8 load and stopped, the order rotated a place a round so
# that each setting takes each place in a round in turn.
ab_check() {
	mkdir -p ab
	nvidia-smi --query-gpu=uuid,name,clocks.max.sm --format=csv,noheader >>ab/check.txt
	local names=(cache-ram-0 cache-ram-8192 no-idle-slots) r i which c
	for r in $(seq 1 "${AB_ROUNDS:-4}"); do
		for i in 0 1 2; do
			which=${names[$(((i + r - 1) % 3))]}
			[[ -s ab/$which-r$r-c8-1.json ]] && continue
			room 80 || { stamp "ab: no time left for $which round $r"; return 0; }
			c=$1
			case $which in
			cache-ram-8192) c=${1/--cache-ram 0/--cache-ram 8192} ;;
			no-idle-slots) c=${1/--cache-ram 0/--cache-ram 8192 --no-cache-idle-slots} ;;
			esac
			echo "$which round $r: $c" >>ab/check.txt
			stamp "ab $which round $r: launch and bench"
			serve "$c" "ab/$which-r$r-server.log" || { stamp "$which did not start"; kill "$pid"; continue; }
			DIR=ab BENCH_RUNS=1 bench_c8 "$which-r$r"
			kill "$pid"; wait "$pid"
		done
	done
	stamp "ab measured"
}
# probe_check CMD: capacity probes of PROBE_S (120) seconds, four times the
# search's, each on a fresh launch, alternating the printed command and
# the baseline (the study's baseline launch: no --parallel, no
# --cache-ram) over PROBES (side:rate pairs, each as often as listed).
probe_check() {
	mkdir -p probes
	nvidia-smi --query-gpu=uuid,name --format=csv,noheader >>probes/check.txt
	local base=${1/ --parallel 8 --cache-ram 0/} p side rate c n=0 s=${PROBE_S:-120}
	for p in ${PROBES:-final:7.875 baseline:4.125 final:7.375 baseline:3.625 final:7.875 baseline:4.125 final:7.375 baseline:3.625}; do
		side=${p%%:*} rate=${p#*:} n=$((n + 1))
		[[ -s probes/$side-$n-rate$rate.json ]] && continue
		room $((s + 40)) || { stamp "probes: no time left for $p"; return 0; }
		c=$1
		[[ $side == baseline ]] && c=$base
		echo "$side-$n: $c (rate $rate, $s s)" >>probes/check.txt
		stamp "probe $side $rate ($n): launch and bench"
		serve "$c" "probes/$side-$n-server.log" || { stamp "$side did not start"; kill "$pid"; continue; }
		DIR=probes SEED=$n bench_rate "$side-$n" "$rate" "$s"
		kill "$pid"; wait "$pid"
	done
	stamp "probes measured"
}
# Only once the study is complete: a cut-off run's final may still change.
# A warm machine's second call keeps what the first measured.
if [[ ${FALLBACK:-1} == 1 && $rc == 0 && ! -s fallback/printed-c8-${BENCH_RUNS:-3}.json ]]; then
	fallback_check "$cmd"
fi
[[ ${EXTRA:-1} == 1 && $rc == 0 && ! -s extra/idle-slots-c8-${BENCH_RUNS:-3}.json ]] && extra_check "$cmd"
[[ ${CLOCKS:-1} == 1 && $rc == 0 && ! -s clocks/check.txt ]] && clocks_check "$cmd"
[[ ${AB:-0} == 1 && $rc == 0 ]] && ab_check "$cmd"
[[ ${PROBE:-0} == 1 && $rc == 0 ]] && probe_check "$cmd"
stamp "call 2 done"
