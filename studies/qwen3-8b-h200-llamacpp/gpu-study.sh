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
		tar -czf "$OUT/records.tar.gz" -T new-dirs.txt analyze.txt analyze.json plan.txt final-server.log final-check.txt 2>/dev/null)
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
timeout -s INT -k 30 "${RUN_LIMIT:-500}" "$G/servelab" run "$S.cue" --results results --json-events >>"$OUT/events.jsonl"
stamp "study run ended (rc $?)"
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
run_log=$(ls results/$key*/engine.log | head -1)
settings "$run_log" >settings-run.txt
settings final-server.log >settings-final.txt
cat settings-final.txt | tee -a final-check.txt
if [[ -s settings-final.txt ]] && diff settings-run.txt settings-final.txt >>final-check.txt; then
	echo "SAME SERVER: the printed command starts llama-server with the settings of the run's final configuration" | tee -a final-check.txt
else
	echo "DIFFERENT: the printed command's server differs from the run's (diff above)" | tee -a final-check.txt
fi
stamp "call 2 done"
