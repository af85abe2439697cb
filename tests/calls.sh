#!/usr/bin/env bash
# tests/calls.sh: that no two files of core/ and harness/ call each other both
# ways: a module is a one-way stack (its state at the bottom, the handlers
# above it, the dispatcher on top), so that a reader can follow a call down
# and never has to come back up. Read from the built objects (nm: the symbols
# each one defines and the ones it uses), so it sees calls through headers and
# macros as the linker does. Run by make test after the build; prints each
# pair that calls both ways and exits 1. (Two parts that recurse into each
# other by nature, as a scenario's services and the files they are included
# from, are one file.)
set -u
cd "$(dirname "$0")/.." || exit 2
build=${WPERF_BUILD:-build}
objs=$(cd "$build" 2>/dev/null && find core harness -name '*.o' | sort)
[ -n "$objs" ] || { echo "calls: no objects under $build/core and $build/harness: build first" >&2; exit 2; }
# "FILE DEF SYMBOL" and "FILE USE SYMBOL" lines, then the pairs of files that
# use each other's symbols, each pair once, in name order.
pairs=$(cd "$build" && for o in $objs; do
	[ -f "$OLDPWD/${o%.o}.c" ] || continue # a stale object: its source is gone
	nm "$o" | awk -v f="$o" 'NF == 3 && $2 ~ /^[TDBR]$/ { print f, "DEF", $3 } NF == 2 && $1 == "U" { print f, "USE", $2 }'
done | awk '
	$2 == "DEF" { owner[$3] = $1; next }
	{ use[NR] = $1 " " $3 }
	END {
		for (i in use) {
			split(use[i], u, " ")
			o = owner[u[2]]
			if (o != "" && o != u[1]) calls[u[1] " " o] = 1
		}
		for (c in calls) {
			split(c, p, " ")
			if ((p[2] " " p[1]) in calls && p[1] < p[2]) print p[1], p[2]
		}
	}' | sort)
[ -z "$pairs" ] || {
	while read -r a b; do echo "calls: $a and $b call each other both ways"; done <<<"$pairs"
	exit 1
}
echo "calls: no two files of core/ and harness/ call each other both ways"
