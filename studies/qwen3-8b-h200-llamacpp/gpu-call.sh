#!/usr/bin/env bash
# One device call: builds llama.cpp and the models when this machine has
# not yet (gpu-build.sh, about 6 min), then runs the study for at most
# RUN_LIMIT seconds and checks the final command (gpu-study.sh). A second
# call on the same warm machine skips the build and resumes the study.
# BENCH=1 first runs the client's benchmarks on the idle host
# (gpu-bench.sh); STUDY=0 stops after the build.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
export W=${W:-/root/servelab-work}
m=$W/study/models
if [[ ${BENCH:-0} == 1 ]]; then
	"$G/gpu-bench.sh"
fi
last=$m/qwen3-8b-random-q4_k_m.gguf
[[ -z ${QUANTS-x} ]] && last=$m/qwen3-8b-random-f16.gguf
if [[ ! -s $W/bin-path || ! -s $last ]]; then
	"$G/gpu-build.sh" || exit 1
fi
[[ ${STUDY:-1} == 0 ]] || "$G/gpu-study.sh"
