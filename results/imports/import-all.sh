#!/bin/sh
# Imports every source block listed in results/imports/<study>/imports.tsv
# into results/, in order (each step's records decide it before the next
# step's trials are known). Run from the repository root: make import-seeds.
set -eu
servelab=${SERVELAB:-bin/servelab}
tab=$(printf '\t')
for dir in results/imports/*/; do
	study=$(basename "$dir")
	grep -v '^#' "$dir/imports.tsv" > "${TMPDIR:-/tmp}/servelab-imports.$$"
	while IFS="$tab" read -r file sel format; do
		"$servelab" import "studies/$study.cue" --trial "$sel" --format "$format" "$dir$file" || exit 1
	done < "${TMPDIR:-/tmp}/servelab-imports.$$"
	rm -f "${TMPDIR:-/tmp}/servelab-imports.$$"
done
