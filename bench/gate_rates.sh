#!/usr/bin/env bash
# bench/gate_rates.sh: the gate's error rates and power, simulated (what `make
# bench` prints after the recorder's figures; WPERF_BUILD names the build
# directory). build/bench/gate_sim judges run sets drawn from the committed
# runs of identical code, tests/data/results/fig1-base and fig1-head (fig1 run
# twice, 5 runs each, pooled: drawn with replacement for 8 and 11 runs a
# side), with the real verdict and looks: the false-failure rate of a check of
# that one scenario, then its power against throughput changes of -2..-40% and
# a vertex new in 30..100% of the head's runs.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WPERF_BUILD:-build}
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
ln -s "$PWD/tests/data/results/fig1-base" "$corpus/base"
ln -s "$PWD/tests/data/results/fig1-head" "$corpus/head"
"$build/bench/gate_sim" --trials "${TRIALS:-2000}" --curve "$corpus"
