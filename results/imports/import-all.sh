#!/bin/sh
# Imports every source block listed in results/imports/<study>/imports.tsv
# into results/, in order (each step's records decide it before the next
# step's trials are known). Run from the repository root: make import-seeds.
# Arguments go to every import: --replace reads each block again and
# moves the record it gave before to results/.replaced/ (make import-seeds
# IMPORT_FLAGS=--replace). A row with a fourth column is a block the seeds
# print again (a report's translation): its figures are checked to be
# those of the block named there, and it is not imported a second time.
set -eu
servelab=${SERVELAB:-bin/servelab}
tab=$(printf '\t')
tmp="${TMPDIR:-/tmp}/servelab-imports.$$"
trap 'rm -f "$tmp" "$tmp.a" "$tmp.b"' EXIT
figures() { awk '$NF ~ /^[0-9.]+$/ { print $NF }' "$1"; }
for dir in results/imports/*/; do
	study=$(basename "$dir")
	grep -v '^#' "$dir/imports.tsv" > "$tmp"
	while IFS="$tab" read -r file sel format same; do
		if [ -n "$same" ]; then
			figures "$dir$file" > "$tmp.a"
			figures "$dir$same" > "$tmp.b"
			if ! cmp -s "$tmp.a" "$tmp.b"; then
				echo "$dir$file: its figures are not those of $dir$same, which imports.tsv says is the same run; fix the table" >&2
				exit 1
			fi
			echo "$dir$file: the same run as $dir$same, not imported again"
			continue
		fi
		"$servelab" import "studies/$study.cue" --trial "$sel" --format "$format" "$@" "$dir$file" </dev/null
	done < "$tmp"
done
