#!/usr/bin/env bash
# Runs the real servers' scenarios and their fixes and writes their table into
# docs/case-studies.md (between its two marker lines), with the columns of
# docs/validation.md: every scenarios/NAME.yaml that is not synthetic and has
# a scenarios/NAME-fixed.yaml (memcached, nginx), as its file says (runs:,
# window), never by hand.
#
#   bench/case_studies.sh [--table-only] [OUT]
#
# OUT: the results folders (default build/case-studies); --table-only writes
# the table from the results already there, without running anything.
#
# Needs root and BPF (it records), jq, the servers and load generators (`make
# deps`), and a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${WPERF_BENCH:-build/wperf-bench}
table_only=0
[ "${1:-}" != --table-only ] || { table_only=1; shift; }
out=${1:-build/case-studies}
doc=docs/case-studies.md
begin='<!-- the table below is written by bench/case_studies.sh: run it, do not edit -->'
end='<!-- end of the table -->'

if ! grep -qxF "$begin" "$doc" || ! grep -qxF "$end" "$doc"; then
	echo "case_studies.sh: $doc has no marker lines for the table" >&2
	exit 2
fi
# shellcheck source=bench/result_table.sh
. bench/result_table.sh

[ "$table_only" = 1 ] || { rm -rf "$out" && mkdir -p "$out"; }
rows=()
for s in scenarios/*.yaml; do
	name=$(basename "$s" .yaml)
	case "$name" in synthetic-* | *-fixed) continue ;; esac
	[ -f "scenarios/$name-fixed.yaml" ] || continue
	if [ "$table_only" = 0 ]; then
		echo "case studies: $name" >&2
		run_with_fix "$out" "$s"
	fi
	rows+=("$name")
done

table=$(mktemp)
trap 'rm -f "$table" "$doc.new"' EXIT
{
	echo "Generated on $(date -u -r "$out" +%Y-%m-%d) from real runs on this machine:"
	echo "$(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')."
	echo
	TABLE_FIRST=scenario result_table "$out" "${rows[@]}"
} > "$table"
# the doc with the lines between the markers replaced, written whole, then renamed
awk -v begin="$begin" -v end="$end" -v table="$table" '
	$0 == begin { print; while ((getline line < table) > 0) print line; skip = 1; next }
	$0 == end { skip = 0 }
	!skip' "$doc" > "$doc.new"
chmod --reference="$doc" "$doc.new"
mv "$doc.new" "$doc"
echo "case studies: wrote the table of $doc" >&2
