#!/usr/bin/env bash
# Extracts the llama.cpp source pinned by package-lock.json (the git
# bundle inside node-llama-cpp) into DEST, recording its commit in
# DEST/.servelab-commit. An existing DEST at the same commit is kept.
#
#   extract.sh BUNDLE DEST
set -euo pipefail
bundle=${1:?usage: extract.sh BUNDLE DEST}
dest=${2:?usage: extract.sh BUNDLE DEST}
want=$(git bundle list-heads "$bundle" | awk 'NR==1{print $1}')
if [[ -f $dest/.servelab-commit && $(cat "$dest/.servelab-commit") == "$want" ]]; then
	exit 0
fi
if [[ -e $dest ]]; then
	echo "extract.sh: $dest holds another llama.cpp (not $want); move it away first" >&2
	exit 1
fi
mkdir -p "$(dirname "$dest")"
tmp=$dest.tmp.$$
trap 'rm -rf "$tmp"' EXIT
git -c advice.detachedHead=false clone -q "$bundle" "$tmp"
git -C "$tmp" -c advice.detachedHead=false checkout -q "$want"
echo "$want" >"$tmp/.servelab-commit"
mv "$tmp" "$dest"
trap - EXIT
echo "llama.cpp $(git -C "$dest" describe --tags --always) ($want) extracted into $dest" >&2
