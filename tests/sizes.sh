#!/usr/bin/env bash
# tests/sizes.sh: the house's size rules on the product's C (core/, harness/,
# bpf/): no file over 600 lines, no function over 80, counted from the line of
# its signature to its closing brace. Run by make test; prints each file or
# function over and exits 1.
set -u
cd "$(dirname "$0")/.."
awk '
FNR == 1 { sig = 0 }
FNR == 601 { printf "%s: over 600 lines\n", FILENAME; bad = 1 }
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
		print "sizes: no product file over 600 lines, no function over 80"
	exit bad
}
' core/*/*.[ch] harness/*/*.[ch] bpf/*.[ch]
