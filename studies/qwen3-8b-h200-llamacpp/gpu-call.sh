#!/usr/bin/env bash
# One device call: builds llama.cpp and the models when this machine has
# not yet (gpu-build.sh, about 6 min), then runs the study for at most
# RUN_LIMIT seconds and checks the final command (gpu-study.sh). A second
# call on the same warm machine skips the build and resumes the study.
# QUANTS= skips the quantised models (about 100 s) when every missing
# trial uses the f16 model; CALL_LIMIT (the device's limit for one
# command, in seconds) makes RUN_LIMIT what the build leaves of it, less
# RESERVE seconds (60) for the analysis, the final-command check and the
# packing.
# BENCH=1 first runs the client's benchmarks on the idle host
# (gpu-bench.sh); STUDY=0 stops after the build.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
export W=${W:-/root/servelab-work}
export QUANTS=${QUANTS-q8_0:Q8_0}
t0=$(date +%s)
# The checks after the study stop starting runs this close to the limit.
[[ -n ${CALL_LIMIT:-} ]] && export CHECK_END=$((t0 + CALL_LIMIT - ${PACK_S:-20}))
m=$W/study/models
# servelab travels xz-compressed (the carry limit is 64 MiB).
if [[ -f $G/servelab.xz && ! -x $G/servelab ]]; then
	xz -dc "$G/servelab.xz" >"$G/servelab" && chmod +x "$G/servelab"
fi
if [[ ${BENCH:-0} == 1 ]]; then
	"$G/gpu-bench.sh"
fi
last=f16
for q in $QUANTS; do last=${q%%:*}; done
if [[ ! -s $W/bin-path || ! -s $m/qwen3-8b-random-$last.gguf ]]; then
	"$G/gpu-build.sh" || exit 1
fi
[[ ${STUDY:-1} == 0 ]] && exit 0
if [[ -z ${RUN_LIMIT:-} && -n ${CALL_LIMIT:-} ]]; then
	export RUN_LIMIT=$((CALL_LIMIT - ($(date +%s) - t0) - ${RESERVE:-60}))
	echo "== RUN_LIMIT $RUN_LIMIT s of CALL_LIMIT $CALL_LIMIT s"
fi
"$G/gpu-study.sh"
