#!/usr/bin/env bash
# tests/sizes.sh: the house's size rule on the product's C (core/, harness/,
# bpf/): no function over 80 lines, counted from the line of its signature to
# its closing brace. A file has no limit: it is as long as its one concept
# needs (files are cut by concept, and tests/calls.sh keeps each module a
# one-way stack). Run by make test; prints each function over and exits 1.
set -u
cd "$(dirname "$0")/.."
awk '
FNR == 1 { sig = 0 }
/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ && !/^#/ { sig = FNR; name = $0 }
/^}$/ && sig {
	if (FNR - sig + 1 > 80) {
		printf "%s:%d: %d lines: %s\n", FILENAME, sig, FNR - sig + 1, substr(name, 1, 70)
		bad = 1
	}
	sig = 0
}
END {
	if (!bad)
		print "sizes: no product function over 80 lines"
	exit bad
}
' core/*/*.[ch] harness/*/*.[ch] bpf/*.[ch]
