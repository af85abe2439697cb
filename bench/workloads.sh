#!/usr/bin/env bash
# bench/workloads.sh: the recording overhead of wperf-bench on the real
# workloads of scenarios/zookeeper.yaml and scenarios/memcached.yaml (what
# `make bench` runs after bench/run.sh; WPERF_BUILD names the build directory).
#
# Each server is started once (ZooKeeper from the Debian package, memcached)
# on loopback with a scratch data directory, and its load generator then runs
# BENCH_ROUNDS rounds of three conditions, interleaved (base floor record,
# base floor record, ...) so that a drift of the machine hits them all alike:
#   base    the load alone
#   floor   the load under build/bench/floor: empty BPF programs on the
#           recorder's hooks, the cost no recorder on them can beat
#   record  wperf-bench record -q -- LOAD: the whole machine recorded, stacks
#           and all, as `wperf-bench run` records a scenario
# Per condition: the median throughput over the rounds, its spread
# (min..max), and the loss against base (1 - median / base median); for
# record, also the events per second and the lost events of the traces. The
# targets (SPEC.md): under 1% loss on ZooKeeper, under 2% on memcached. They
# are reported, not asserted.
#
# Environment: WPERF_BUILD (default build), BENCH_ROUNDS (default 5),
# BENCH_LOAD_SECONDS (measured seconds of each load run, default 10),
# BENCH_WORKLOADS (default "zookeeper memcached"). Needs root, a quiet machine,
# and the packages of ci/install-deps.sh. Exit status: 0 when every run worked,
# 1 otherwise.
set -u

B=${WPERF_BUILD:-build}
ROUNDS=${BENCH_ROUNDS:-5}
SECS=${BENCH_LOAD_SECONDS:-10}
WORKLOADS=${BENCH_WORKLOADS:-zookeeper memcached}
WPERF=$B/wperf-bench
FLOOR=$B/bench/floor
ZK_PORT=21811
MC_PORT=11312

die() {
	echo "bench: error: $*" >&2
	exit 1
}

case $ROUNDS in '' | *[!0-9]* | 0) die "BENCH_ROUNDS must be a positive integer, not '$ROUNDS'" ;; esac
case $SECS in '' | *[!0-9]* | 0) die "BENCH_LOAD_SECONDS must be a positive integer, not '$SECS'" ;; esac
for f in "$WPERF" "$FLOOR"; do
	[ -x "$f" ] || die "$f is missing: build it first (make all $FLOOR)"
done
[ "$(id -u)" -eq 0 ] || die "recording needs root"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wperf-workloads.XXXXXX") || die "cannot create a temporary directory"
server=
stop_server() {
	[ -n "$server" ] || return 0
	kill -TERM -- "-$server" 2>/dev/null
	for _ in $(seq 50); do kill -0 -- "-$server" 2>/dev/null || break; sleep 0.2; done
	kill -KILL -- "-$server" 2>/dev/null
	wait "$server" 2>/dev/null
	server=
}
trap 'stop_server; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Starts "$@" in a process group of its own, its output in $tmp/server.log,
# and waits up to 60 s for a TCP port on 127.0.0.1.
start_server() {
	local port=$1
	shift
	setsid "$@" >"$tmp/server.log" 2>&1 &
	server=$!
	for _ in $(seq 300); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
		kill -0 "$server" 2>/dev/null || break
		sleep 0.2
	done
	tail -5 "$tmp/server.log" >&2
	die "the server on port $port did not start (see above)"
}

zookeeper_start() {
	mkdir -p "$tmp/zk/data"
	printf '%s\n' tickTime=2000 "dataDir=$tmp/zk/data" clientPort=$ZK_PORT \
		clientPortAddress=127.0.0.1 maxClientCnxns=0 admin.enableServer=false >"$tmp/zk/zoo.cfg"
	start_server $ZK_PORT java -Xms512m -Xmx512m -XX:+PreserveFramePointer \
		-Dzookeeper.log.dir="$tmp/zk" -Dzookeeper.root.logger=INFO,CONSOLE \
		-Dlog4j.configuration=file:/etc/zookeeper/conf/log4j.properties \
		-cp /etc/zookeeper/conf:/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar \
		org.apache.zookeeper.server.ZooKeeperServerMain "$tmp/zk/zoo.cfg"
}
# The scenario's load, 0.1% writes (the paper's case), 2 s of warm-up.
zookeeper_load=("$B/loads/zookeeper/zkload" --server "127.0.0.1:$ZK_PORT" --sessions 8
	--window 32 --value-bytes 1024 --write-fraction 0.001 --keys 1000 --warmup 2
	--duration $((SECS + 2)))

memcached_start() {
	start_server $MC_PORT memcached -u root -l 127.0.0.1 -p $MC_PORT -t 4 -m 256
}
memcached_load=("$B/loads/memcached/mcload" --server "127.0.0.1:$MC_PORT" --threads 2
	--connections 4 --pipeline 16 --get-fraction 0.9 --keys 10000 --warmup 2
	--duration $((SECS + 2)))

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }

status=0
for w in $WORKLOADS; do
	case $w in zookeeper | memcached) ;; *) die "unknown workload '$w' (zookeeper, memcached)" ;; esac
	load_var="${w}_load[@]"
	load=("${!load_var}")
	[ -x "${load[0]}" ] || die "${load[0]} is missing: build it first (make all)"
	echo "bench: $w: ${load[*]}"
	"${w}_start"
	# One unmeasured run, so that the JIT (ZooKeeper) and the caches are warm.
	"${load[@]}" >/dev/null 2>&1 || die "$w: the warm-up run failed"
	for r in $(seq "$ROUNDS"); do
		for c in base floor record; do
			out=$tmp/$w.$c.$r.out trace=$tmp/$w.$r.trace
			case $c in
			base) "${load[@]}" >"$out" 2>"$out.err" ;;
			floor) "$FLOOR" -- "${load[@]}" >"$out" 2>"$out.err" ;;
			record) "$WPERF" record -q -o "$trace" -- "${load[@]}" >"$out" 2>"$out.err" ;;
			esac || {
				echo "bench: $w: round $r, $c failed:" >&2
				tail -3 "$out.err" >&2
				status=1
				continue
			}
			sed -n 's/^throughput: \([0-9.]*\) .*/\1/p' "$out" >"$tmp/$w.$c.$r.tp"
			if [ "$c" = record ]; then
				"$WPERF" info "$trace" >"$tmp/$w.$r.info" 2>/dev/null
				rm -f "$trace"
			fi
		done
	done
	stop_server
	base=$(cat "$tmp/$w".base.*.tp 2>/dev/null | median)
	[ -n "$base" ] || {
		echo "bench: $w: no base run gave a throughput" >&2
		status=1
		continue
	}
	for c in base floor record; do
		tps=$(cat "$tmp/$w.$c".*.tp 2>/dev/null)
		[ -n "$tps" ] || continue
		med=$(echo "$tps" | median)
		lo=$(echo "$tps" | sort -g | head -1)
		hi=$(echo "$tps" | sort -g | tail -1)
		awk -v w="$w" -v c="$c" -v m="$med" -v lo="$lo" -v hi="$hi" -v b="$base" -v n="$(echo "$tps" | wc -l)" \
			'BEGIN { printf "bench: %-9s %-6s %10.0f ops/s  (%.0f..%.0f, %d runs)  loss %+.2f%%\n", w, c, m, lo, hi, n, (1 - m / b) * 100 }'
	done
	# The traces' rate and losses, from `wperf-bench info`.
	cat "$tmp/$w".*.info 2>/dev/null | awk -v w="$w" '
		/^  total / { ev += $2 } /^window:/ { win += $2 } /^lost events:/ { lost += $3 }
		END { if (win > 0) printf "bench: %-9s record: %.0f events/s recorded, %d lost\n", w, ev / win, lost }'
done
case " $WORKLOADS " in *" zookeeper "*) echo "bench: targets: ZooKeeper under 1% loss, memcached under 2% (wPerf: 3.4% and 2.4%)" ;; esac
exit $status
