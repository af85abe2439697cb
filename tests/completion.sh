#!/usr/bin/env bash
# tests/completion.sh: the bash and zsh completion and the man pages that `make
# completion` and `make man` write from the commands' tables (run by make
# test). The completion is sourced and asked, as bash would ask it after a
# TAB; every man page must render with no warning from groff.
set -u
build=${WPERF_BUILD:-build}
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# complete WORD...: COMPREPLY for the command line WORD... (the last one being completed)
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_wperf_bench
}

# shellcheck source=/dev/null
source "$build/completion/wperf-bench" || fail "the bash completion does not source"

complete_words wperf-bench re
[ "${COMPREPLY[*]}" = "record report" ] || fail "wperf-bench re<TAB>: '${COMPREPLY[*]}', not 'record report'"

complete_words wperf-bench report --f
[ "${COMPREPLY[*]}" = "--format" ] || fail "wperf-bench report --f<TAB>: '${COMPREPLY[*]}', not '--format'"

complete_words wperf-bench check-perf --ta
[ "${COMPREPLY[*]}" = "--tag --target" ] ||
	fail "wperf-bench check-perf --ta<TAB>: '${COMPREPLY[*]}', not '--tag --target'"

# a TRACE operand offers trace files (and folders), not scenarios
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
touch "$dir/a.trace" "$dir/b.yaml"
complete_words wperf-bench report "$dir/"
[ "${COMPREPLY[*]}" = "$dir/a.trace" ] || fail "report TRACE: '${COMPREPLY[*]}', not '$dir/a.trace'"
complete_words wperf-bench run "$dir/"
[ "${COMPREPLY[*]}" = "$dir/b.yaml" ] || fail "run SCENARIO: '${COMPREPLY[*]}', not '$dir/b.yaml'"
# an option's FILE argument offers any file
complete_words wperf-bench report -o "$dir/"
[ "${#COMPREPLY[@]}" -eq 2 ] || fail "report -o FILE: '${COMPREPLY[*]}', not both files"
# a number offers nothing
complete_words wperf-bench report --jobs ""
[ "${#COMPREPLY[@]}" -eq 0 ] || fail "report --jobs N: '${COMPREPLY[*]}', not nothing"

# the zsh completion parses, defines its function when zsh loads it, and keeps
# the help's apostrophes (a quote inside its single quotes, escaped)
zsh_file="$build/completion/_wperf-bench"
zsh -n "$zsh_file" || fail "the zsh completion does not parse"
zsh -f -c "autoload -U compinit && compinit -u -d '$dir/zcompdump' && source '$zsh_file' &&
	whence -w _wperf-bench" | grep -q ': function$' || fail "zsh: no function _wperf-bench"
grep -qF "machine'\\''s waiting events" "$zsh_file" || fail "zsh: the help's apostrophes are lost"

# every command has its page, and groff has nothing to say about any
pages=$(ls "$build"/man/*.1 | wc -l)
commands=$("$build/wperf-bench" help --list | wc -l)
[ "$pages" -eq $((commands + 1)) ] || fail "$pages man pages for $commands commands and wperf-bench(1)"
for page in "$build"/man/*.1; do
	warnings=$(groff -man -ww -z "$page" 2>&1)
	[ -z "$warnings" ] || fail "$page: $warnings"
done
grep -q '^\.SH EXAMPLES' "$build/man/wperf-bench-diff.1" || fail "wperf-bench-diff(1) has no EXAMPLES"

[ "$fails" -eq 0 ] && echo "completion.sh: bash and zsh completion and $pages man pages are right"
[ "$fails" -eq 0 ]
