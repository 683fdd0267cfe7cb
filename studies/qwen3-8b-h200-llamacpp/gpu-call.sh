#!/usr/bin/env bash
# One device call: builds llama.cpp and the models when this machine has
# not yet (gpu-build.sh, about 6 min), then runs the study for at most
# RUN_LIMIT seconds and checks the final command (gpu-study.sh). A second
# call on the same warm machine skips the build and resumes the study.
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
export W=${W:-/root/servelab-work}
m=$W/study/models
if [[ ! -s $W/bin-path || ! -s $m/qwen3-8b-random-q4_k_m.gguf ]]; then
	"$G/gpu-build.sh" || exit 1
fi
"$G/gpu-study.sh"
