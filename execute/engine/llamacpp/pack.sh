#!/usr/bin/env bash
# Packs an extracted llama.cpp tree into a small tar.xz for hosts without
# internet (a GPU host): the sources build.sh needs and the Qwen2/Qwen3
# vocabulary, without git history, docs, media, tests, the web UI's
# sources or the other test vocabularies (207 MB → about 9 MB).
#
#   pack.sh SRC OUT.tar.xz
set -euo pipefail
src=${1:?usage: pack.sh SRC OUT.tar.xz}
out=${2:?usage: pack.sh SRC OUT.tar.xz}
[[ -f $src/.servelab-commit ]] || { echo "pack.sh: $src has no .servelab-commit (use extract.sh)" >&2; exit 1; }
tmp=$out.tmp.$$
trap 'rm -f "$tmp" "$tmp.tar"' EXIT
tar -C "$src" -cf "$tmp.tar" --exclude=./.git --exclude=./docs --exclude=./media --exclude=./tests \
	--exclude=./tools/server/tests --exclude=./tools/ui/src --exclude=./tools/ui/tests \
	--exclude=./gguf-py --exclude=./benches --exclude='./models/*.gguf*' --exclude=./examples/model-conversion .
tar -C "$src" -rf "$tmp.tar" ./models/ggml-vocab-qwen2.gguf
xz -T0 -c "$tmp.tar" >"$tmp"
mv "$tmp" "$out"
echo "packed $(cat "$src/.servelab-commit") into $out ($(du -h "$out" | cut -f1))" >&2
