#!/usr/bin/env bash
# The gate's error rates, measured: how often identical code fails, and how
# often a planted change is caught, with the verdict and the edge named.
#
#   bench/gate_trials.sh aa [TRIALS]        check-perf --base HEAD over every ci
#                                            scenario, TRIALS times (default 1)
#   bench/gate_trials.sh corpus DIR [RUNS] [SCENARIO...]
#                                            the simulator's corpus: one check-perf
#                                            --base HEAD with RUNS runs a side
#                                            (default 20) of each SCENARIO (default:
#                                            every ci one), its results kept in DIR
#                                            for build/bench/gate_sim DIR/*/
#   bench/gate_trials.sh plant KIND [TRIALS]
#        KIND slower: fig1's B works 10% longer per request (--b-ms 5 -> 5.5):
#                     a regression;
#        KIND faster: fig1's B works 20% less per request (--b-ms 5 -> 4):
#                     improved (or pass), never a failure;
#        KIND wait:   fig1's B also waits for a new thread D per request
#                     (--extra-wait-ms 8 made the default): a new bottleneck.
#        The plant is committed on top of HEAD in a throwaway clone and judged
#        with `wperf-bench ab --base HEAD~1 scenarios/synthetic-fig1.yaml`,
#        TRIALS times (default 10).
#   bench/gate_trials.sh bisect KIND [TRIALS]
#        A branch of 8 commits on top of HEAD, the plant KIND (as above) in
#        one of them, its place moving from trial to trial (1, 4, 7, 2, 5, 8,
#        3, 6, ...), the others touching a file nothing reads; then
#        `wperf-bench bisect --good HEAD~8 scenarios/synthetic-fig1.yaml`,
#        TRIALS times (default 10): the commit it names, and whether it is
#        the plant's. BISECT_DURATION=S makes the scenario's runs S seconds
#        long (its copy in the good commit, which both sides run: quicker
#        trials); BISECT_ARGS adds options.
#
# Each trial's verdict, runs per side and seconds go to stdout, one line each,
# then a tally. BUSY=1 keeps a nice -n 19 CPU hog on CPU 0 the whole time (a
# busy neighbour). Runs as root (it records); the clone lives in $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bench=${WPERF_BENCH:-$repo/build/wperf-bench}
mode=${1:?usage: gate_trials.sh aa [TRIALS] | corpus DIR [RUNS] [SCENARIO...] | plant|bisect slower|faster|wait [TRIALS]}
work=$(mktemp -d "${TMPDIR:-/tmp}/wperf-trials-XXXXXX")
hog=
cleanup() {
	[ -n "$hog" ] && kill "$hog" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
if [ "${BUSY:-0}" = 1 ]; then
	taskset -c 0 nice -n 19 sh -c 'while :; do :; done' &
	hog=$!
fi

# Makes fig1 in the work tree the plant KIND: see the head of this file.
plant() {
	case $1 in
	slower) sed -i 's/double duration = 5, a_ms = 2, b_ms = 5,/double duration = 5, a_ms = 2, b_ms = 5.5,/' synthetic/fig1.c ;;
	faster) sed -i 's/double duration = 5, a_ms = 2, b_ms = 5,/double duration = 5, a_ms = 2, b_ms = 4,/' synthetic/fig1.c ;;
	wait) sed -i 's/^\tapp.write_bytes = 4096;$/\tapp.write_bytes = 4096;\n\tapp.extra_ms = 8;/' synthetic/fig1.c ;;
	*) echo "gate_trials.sh: no plant '$1'" >&2; exit 2 ;;
	esac
}

git clone -q "$repo" "$work/repo"
cd "$work/repo"
git -c user.name=trials -c user.email=trials@localhost commit -q --allow-empty -m base
case $mode in
aa)
	trials=${2:-1}
	for i in $(seq "$trials"); do
		start=$(date +%s)
		rc=0
		"$bench" check-perf -q --base HEAD --results "$work/aa-$i" scenarios >"$work/aa-$i.log" 2>&1 || rc=$?
		verdict=$(jq -r .verdict "$work/aa-$i/summary.json" 2>/dev/null || echo error)
		echo "aa trial $i: $verdict (exit $rc) in $(($(date +%s) - start)) s"
		jq -r '.scenarios[] | "  \(.name): \(.verdict), \(.pairs) runs per side, \(.seconds|floor) s\(if .reason then ": " + .reason else "" end)"' \
			"$work/aa-$i/summary.json" 2>/dev/null || tail -5 "$work/aa-$i.log"
	done
	;;
corpus)
	dir=${2:?corpus DIR [RUNS] [SCENARIO...]}
	runs=${3:-20}
	shift $(($# < 3 ? $# : 3))
	[ -e "$dir" ] && { echo "gate_trials.sh: $dir exists; the corpus wants a new folder" >&2; exit 2; }
	mkdir -p "$(dirname "$dir")"
	dir=$(realpath -m "$dir")
	start=$(date +%s)
	rc=0
	"$bench" check-perf -q --base HEAD --runs "$runs" --max-runs "$runs" --budget 4h \
		--results "$dir" "${@:-scenarios}" >"$work/corpus.log" 2>&1 || rc=$?
	echo "corpus: $runs runs a side in $(($(date +%s) - start)) s (check-perf exit $rc) in $dir"
	jq -r '.scenarios[] | "  \(.name): \(.verdict), \(.pairs) runs per side"' "$dir/summary.json" ||
		tail -5 "$work/corpus.log"
	;;
plant)
	kind=${2:?plant slower|faster|wait}
	trials=${3:-10}
	plant "$kind"
	git diff --quiet && { echo "gate_trials.sh: the plant changed nothing" >&2; exit 2; }
	git -c user.name=trials -c user.email=trials@localhost commit -qam "plant: $kind"
	for i in $(seq "$trials"); do
		start=$(date +%s)
		rc=0
		"$bench" ab -q --base HEAD~1 --results "$work/ab-$i" scenarios/synthetic-fig1.yaml \
			>"$work/ab-$i.md" 2>"$work/ab-$i.log" || rc=$?
		verdict=$(jq -r '.verdict.kind // "error"' "$work/ab-$i/head/summary.json" 2>/dev/null || echo error)
		# The first failure (a vertex, an edge or the throughput) and the
		# first call site the verdict names.
		first=$(grep -m1 -F '**fail**' "$work/ab-$i.md" | cut -c1-220 || true)
		site=$(grep -m1 -E '^  - [0-9]+%: blocked in' "$work/ab-$i.md" | cut -c1-300 || true)
		runs=$(jq -r '.runs | length' "$work/ab-$i/head/summary.json" 2>/dev/null || echo "?")
		echo "plant $kind trial $i: $verdict (exit $rc), $runs runs per side, $(($(date +%s) - start)) s"
		echo "    $first"
		[ -n "$site" ] && echo "    $site"
	done
	;;
bisect)
	kind=${2:?bisect slower|faster|wait}
	trials=${3:-10}
	if [ -n "${BISECT_DURATION:-}" ]; then
		sed -i "s/^  duration: .*/  duration: $BISECT_DURATION/" scenarios/synthetic-fig1.yaml
		git -c user.name=trials -c user.email=trials@localhost commit -qam "runs of $BISECT_DURATION s"
	fi
	good=$(git rev-parse HEAD)
	found=0
	for i in $(seq "$trials"); do
		at=$(((i - 1) * 3 % 8 + 1))
		git checkout -q -B "trial-$i" "$good"
		for c in $(seq 8); do
			if [ "$c" = "$at" ]; then
				plant "$kind"
				git -c user.name=trials -c user.email=trials@localhost commit -qam "plant: $kind"
				planted=$(git rev-parse HEAD)
			else
				echo "$c" >>trial-notes
				git add trial-notes
				git -c user.name=trials -c user.email=trials@localhost commit -qm "notes $c"
			fi
		done
		start=$(date +%s)
		rc=0
		# shellcheck disable=SC2086 # BISECT_ARGS is options, split on purpose
		"$bench" bisect -q --good "$good" --results "$work/bisect-$i" ${BISECT_ARGS:-} \
			scenarios/synthetic-fig1.yaml >"$work/bisect-$i.out" 2>"$work/bisect-$i.log" || rc=$?
		named=$(sed -n 's/^the first bad commit: \([0-9a-f]*\).*/\1/p' "$work/bisect-$i.out")
		judged=$(sed -n 's/.*; \([0-9]*\) judged in.*/\1/p' "$work/bisect-$i.out")
		if [ "$named" = "$planted" ]; then
			found=$((found + 1))
			answer="the plant"
		else
			answer="${named:-nothing} (the plant: ${planted:0:12})"
		fi
		echo "bisect $kind trial $i: plant at commit $at of 8: named $answer (exit $rc), ${judged:-0} judged in $(($(date +%s) - start)) s"
		[ "$rc" -le 1 ] || echo "    $(tail -1 "$work/bisect-$i.log")"
	done
	echo "bisect $kind: the plant named in $found of $trials trials"
	;;
*)
	echo "gate_trials.sh: mode aa, corpus, plant or bisect" >&2
	exit 2
	;;
esac
