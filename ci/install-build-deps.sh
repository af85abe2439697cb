#!/usr/bin/env bash
# ci/install-build-deps.sh [PACKAGE...]: installs the Debian packages that
# build wperf-bench and its Debian package (make install, make deb), and the
# packages named, if any (ci/install-deps.sh names the tests' and the
# workloads'). Idempotent: does nothing (and needs no network) when all are
# installed.
set -euo pipefail
pkgs=(
	make gcc clang llvm pkg-config bpftool    # build, BPF objects and skeletons
	libbpf-dev libelf-dev zlib1g-dev libzstd-dev libdw-dev   # recorder, trace, symbols
	libyaml-dev libpcre2-dev libcurl4-openssl-dev libgit2-dev   # scenarios, pull requests, git
	libjson-c-dev                                  # JSON reports
	libiberty-dev                                  # C++ and Rust names demangled (linked statically)
	libcmocka-dev                                  # the library's tests, run by the package build
	debhelper dpkg-dev lintian                     # make deb
	"$@"
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
	echo "deps: missing ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
