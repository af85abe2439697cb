#!/bin/sh
# A load that measures itself: N sleeps of 20 ms, each timed with the clock.
# Prints its throughput (sleeps/s) and its slowest sleep (the p99 of so few),
# as text, and its fastest and slowest as a line of JSON: what the scenario's
# metrics read. A sleep never returns before its time, so every latency is at
# least 20 ms.
n=${1:-10}
start=$(date +%s%N)
min=
max=0
i=0
while [ "$i" -lt "$n" ]; do
	t0=$(date +%s%N)
	sleep 0.02
	t1=$(date +%s%N)
	us=$(( (t1 - t0) / 1000 ))
	[ "$us" -gt "$max" ] && max=$us
	if [ -z "$min" ] || [ "$us" -lt "$min" ]; then min=$us; fi
	i=$((i + 1))
done
end=$(date +%s%N)
echo "ops=$(( n * 1000000000 / (end - start) ))"
echo "p99_us=$max"
echo "{\"latency\": {\"min_us\": $min, \"max_us\": $max}}"
