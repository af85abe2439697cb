#!/usr/bin/env bash
# Installs the Debian packages wperf-bench needs to build, test and run every
# scenario: those of ci/install-build-deps.sh, and the ones below.
# Idempotent: does nothing (and needs no network) when all are installed.
set -euo pipefail
extras=(
	valgrind jq python3 git                         # tests (python3: the forge stand-in; git: test repositories)
	g++ rustc                                       # tests: C++ and Rust programs whose names must come out demangled
	zsh                                             # tests: the zsh completion loads
	systemtap-sdt-dev                               # <sys/sdt.h> for wperf_annotate.h (the synthetic programs)
	gnuplot-nox graphviz librsvg2-bin               # plots and graph pictures
	libclang-rt-14-dev                              # sanitizer runtimes for make asan
	zookeeper libzookeeper-mt-dev                   # scenarios/zookeeper.yaml: server, C client
	openjdk-17-jdk-headless                         # jcmd: the JVM writes its perf map on demand
	memcached libmemcached-dev                      # scenarios/memcached.yaml: server, C client
	nginx-light wrk                                 # scenarios/nginx.yaml: server, load
	mariadb-server sysbench                         # scenarios/mariadb.yaml: server, load
	libsqlite3-dev                                  # scenarios/sqlite-wal.yaml: sqload's library
	caddy                                           # scenarios/caddy.yaml: server (the load is wrk)
)
exec bash "$(dirname "$0")/install-build-deps.sh" "${extras[@]}"
