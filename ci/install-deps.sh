#!/usr/bin/env bash
# Installs the Debian packages wperf-bench needs to build, test and run.
# Idempotent: does nothing (and needs no network) when all are installed.
set -euo pipefail
pkgs=(
	make gcc clang llvm pkg-config bpftool    # build, BPF objects and skeletons
	libbpf-dev libelf-dev zlib1g-dev libzstd-dev libdw-dev   # recorder, trace, symbols
	libyaml-dev libcurl4-openssl-dev libgit2-dev   # scenarios, pull requests, git
	libjson-c-dev                                  # JSON reports
	libcmocka-dev valgrind jq python3 git          # tests (python3: the forge stand-in; git: test repositories)
	systemtap-sdt-dev                               # <sys/sdt.h> for wperf_annotate.h
	gnuplot-nox graphviz librsvg2-bin               # plots and graph pictures
	libclang-rt-14-dev                              # sanitizer runtimes for make asan
	zookeeper libzookeeper-mt-dev                   # scenarios/zookeeper.yaml: server, C client
	openjdk-17-jdk-headless                         # jcmd: the JVM writes its perf map on demand
	memcached libmemcached-dev                      # scenarios/memcached.yaml: server, C client
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages are installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run 'make deps' as root to install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
