#!/usr/bin/env bash
# tests/pages.sh: harness/cli/pages/pages.awk, which turns each command's page
# into its struct cli_help (run by make test). A good page becomes the C it
# means, text escaped and macros spliced in; a bad one stops the build with
# FILE:LINE and what is wrong.
set -u
awk_script=harness/cli/pages/pages.awk
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# page NAME: stdin into $dir/NAME.txt
page() { cat > "$dir/$1.txt"; }

# rejects NAME MESSAGE: pages.awk fails on NAME.txt, saying MESSAGE
rejects() {
	local err
	if err=$(awk -f "$awk_script" "$dir/$1.txt" 2>&1 >/dev/null); then
		fail "$1.txt was taken; wanted: $2"
	elif [ "$err" != "$2" ]; then
		fail "$1.txt: '$err', not '$2'"
	fi
}

page do-it <<'P'
summary: say "hi"
synopsis: [OPTIONS] FILE...
operands: 1..
options end at the first operand: yes
include: core/x.h

DESCRIPTION
A \ and "quotes", {{NAME_ENV}} and {{#TRIES}} times.

Second paragraph.

EXAMPLES
  do-it a b
P
c=$(awk -f "$awk_script" "$dir/do-it.txt") || fail "a good page was refused"
for want in '#include "core/x.h"' 'const struct cli_help cli_do_it_help = {' \
	'    .summary = "say \"hi\"",' '    .options = cli_do_it_options,' \
	'	"A \\ and \"quotes\", " NAME_ENV " and " CLI_STR(TRIES) " times.\n"' \
	'	"\n"' '	"Second paragraph.\n",' '	"  do-it a b\n",' \
	'    .stop_at_operand = 1,' '    .min_operands = 1,' '    .max_operands = CLI_ANY_OPERANDS,'; do
	grep -qxF -- "$want" <<<"$c" || fail "the good page has no line: $want"
done
grep -q 'notes\|exit_status' <<<"$c" && fail "sections the page does not have were written"

page two <<'P'
summary: s
synopsis: A B
operands: 2..2

DESCRIPTION
d
P
c=$(awk -f "$awk_script" "$dir/two.txt")
grep -qxF '    .max_operands = 2,' <<<"$c" || fail "operands: 2..2 is not max 2"

printf 'summary: s\nsynopsis: X\noperands: 1\nuses: y\n\nDESCRIPTION\nd\n' | page unknown
rejects unknown "$dir/unknown.txt:4: unknown header 'uses' (summary, synopsis, operands, include, options end at the first operand)"

printf 'summary: s\nsynopsis: X\noperands: one\n\nDESCRIPTION\nd\n' | page operands
rejects operands "$dir/operands.txt:3: operands: N, MIN..MAX or MIN.. (no limit), not 'one'"

printf 'summary: s\nsynopsis: X\noperands: 1\n\nNOTES\nn\n' | page nodesc
rejects nodesc "$dir/nodesc.txt:6: a page needs a DESCRIPTION"

printf 'summary: s\nsynopsis: X\noperands: 1\n\nDESCRIPTION\nd\nEXIT STATUS\n0\nNOTES\nn\n' | page order
rejects order "$dir/order.txt:9: NOTES comes too late: the sections go DESCRIPTION, NOTES, EXAMPLES, EXIT STATUS, each once"

printf 'summary: s\nsynopsis: X\noperands: 1\n\nwords\n' | page early
rejects early "$dir/early.txt:5: text before DESCRIPTION"

printf 'summary: s\nsynopsis: X\noperands: 1\n\nDESCRIPTION\n{{lower}}\n' | page braces
rejects braces "$dir/braces.txt:6: '{{' starts no {{MACRO}} or {{#MACRO}}"

printf 'summary: s\nsynopsis: X\noperands: 1\n\nDESCRIPTION\n\nNOTES\nn\n' | page empty
rejects empty "$dir/empty.txt:7: DESCRIPTION is empty"

printf 'synopsis: X\noperands: 1\n\nDESCRIPTION\nd\n' | page nosummary
rejects nosummary "$dir/nosummary.txt:5: a page needs summary:, synopsis: and operands:"

if [ "$fails" -ne 0 ]; then
	echo "pages: $fails failed"
	exit 1
fi
echo "pages: all passed"
