#!/usr/bin/env bash
# Device call 1 of 2 for studies/qwen3-8b-h200-llamacpp.cue on a GPU host
# without internet. Everything it needs travels in one folder ($G): the
# trimmed llama.cpp source (make llamacpp-pack), build.sh, servelab,
# servelab-gguf and servelab's study. It builds llama-server and
# llama-quantize with CUDA, writes the random-weight Qwen3-8B (f16) and
# quantises it to q8_0 and q4_K_M (QUANTS, name:type pairs, says which;
# QUANTS= none). Call 2 (gpu-study.sh) must follow
# while the machine is still up: its work folder $W is not kept.
# A fresh build's llama-server and llama-quantize come back in
# $OUT/llama-bin.tar.xz.* (15 MiB parts); carried back in $G, they spare
# a machine that started cold the build (about 5 minutes).
set -uo pipefail
G=$(cd "$(dirname "$0")" && pwd)
W=${W:-/root/servelab-work}
OUT=${OUT:-$W/out}
mkdir -p "$W/src" "$W/study/models" "$OUT"
exec > >(tee -a "$OUT/build.log") 2>&1
t0=$(date +%s)
stamp() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - t0)) s) $*"; }
stamp "host: $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nvidia-smi | grep -o 'CUDA Version: [0-9.]*'
nvcc --version | tail -2
df -h "$W" | tail -1
tar -C "$W/src" -xJf "$G/llama.cpp-src.tar.xz"
stamp "llama.cpp source $(cat "$W/src/.servelab-commit") extracted"
prebuilt=0
if compgen -G "$G/llama-bin.tar.xz.*" >/dev/null; then
	mkdir -p "$W/prebuilt"
	cat "$G"/llama-bin.tar.xz.* | xz -d | tar -C "$W/prebuilt" -xf - && echo "$W/prebuilt" >"$W/bin-path" && prebuilt=1
	stamp "carried build unpacked (prebuilt=$prebuilt)"
	(exit 0) &
else
	(JOBS=$(nproc) "$G/build.sh" "$W/src" "${BACKEND:-cuda}" "$W/cache" >"$W/bin-path") &
fi
build=$!
"$G/servelab-gguf" -vocab "$W/src/models/ggml-vocab-qwen2.gguf" -shape "${SHAPE:-8b}" -seed 1 -o "$W/study/models/qwen3-8b-random-f16.gguf"
stamp "f16 model written"
wait $build || { stamp "BUILD FAILED"; exit 1; }
stamp "llama-server built"
bin=$(cat "$W/bin-path")
"$bin/llama-server" --version
ldd "$bin/llama-server" | grep -vE '^\s*(linux-vdso|/lib)' | head -20
if [[ $prebuilt == 0 && ${PACK_BIN:-1} == 1 ]]; then
	tar -C "$bin" -cf - llama-server llama-quantize | xz -T0 -3 | split -b 15M - "$OUT/llama-bin.tar.xz."
	ls -l "$bin/llama-server" "$bin/llama-quantize" "$OUT"/llama-bin.tar.xz.*
	stamp "build packed for a cold machine"
fi
for q in ${QUANTS-q8_0:Q8_0}; do
	"$bin/llama-quantize" "$W/study/models/qwen3-8b-random-f16.gguf" "$W/study/models/qwen3-8b-random-${q%%:*}.gguf" "${q##*:}" "$(nproc)" >"$W/quantize-${q%%:*}.log" 2>&1 ||
		{ tail -20 "$W/quantize-${q%%:*}.log"; stamp "QUANTIZE ${q##*:} FAILED"; exit 1; }
	grep -E 'model size|quant size' "$W/quantize-${q%%:*}.log"
	stamp "quantised to ${q##*:}"
done
ls -l "$W/study/models"
stamp "call 1 done"
