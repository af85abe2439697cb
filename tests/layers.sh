#!/usr/bin/env bash
# tests/layers.sh: that every C file includes only what its folder may
# (docs/architecture.md), so that a file's path says what it may touch. Run by
# make test; prints each include that breaks a rule and exits 1.
#
# A folder may include itself and the folders listed after it. core/ never
# includes harness/; bpf/wperf_event.h is the record format both sides share,
# include/wperf/ the public interface that core/api implements (its error
# type is everyone's); bpf/ includes only itself.
set -u
cd "$(dirname "$0")/.."
declare -A may=(
	[core/util]=""
	[core/trace]="core/util"
	[core/analysis]="core/trace core/util"
	[core/report]="core/analysis core/trace core/util"
	[core/gate]="core/report core/analysis core/trace core/util"
	[core/scenario]="core/gate core/report core/analysis core/trace core/util"
	[core/api]="core/scenario core/gate core/report core/analysis core/trace core/util"
	[harness/base]="core/util"
	[harness/git]="harness/base core/util"
	[harness/record]="harness/base core/trace core/util"
	[harness/run]="harness/record harness/git harness/base core/scenario core/gate core/report core/analysis core/trace core/util"
	[harness/gate]="harness/run harness/git harness/base core/scenario core/gate core/report core/analysis core/trace core/util"
	[harness/forge]="harness/run harness/git harness/base core/scenario core/gate core/report core/analysis core/trace core/util"
	[harness/cli]="harness/forge harness/gate harness/run harness/record harness/git harness/base core/scenario core/gate core/report core/analysis core/trace core/util"
)
bad=0
for dir in "${!may[@]}"; do
	[ -d "$dir" ] || { echo "layers: $dir is in the rules but not in the tree"; bad=1; continue; }
	for file in "$dir"/*.[ch]; do
		while IFS= read -r inc; do
			target=${inc%/*}
			case "$inc" in
			bpf/wperf_event.h | bpf/recorder.skel.h) continue ;;
			include/wperf/*) continue ;; # the public interface, under everything
			*/*/*) ;;
			*) echo "$file: #include \"$inc\": not a path from the top (core/GROUP/NAME.h)"; bad=1; continue ;;
			esac
			[ "$target" = "$dir" ] && continue
			case " ${may[$dir]} " in
			*" $target "*) ;;
			*) echo "$file: #include \"$inc\": $dir may not include $target"; bad=1 ;;
			esac
		done < <(sed -n 's/^#include "\(.*\)"/\1/p' "$file")
	done
done
# bpf/: the kernel side includes its own parts by paths from the top, and the
# kernel's types (vmlinux.h, generated into the build), nothing of user space.
for file in bpf/*.[ch]; do
	while IFS= read -r inc; do
		case "$inc" in
		vmlinux.h | bpf/*) ;;
		*) echo "$file: #include \"$inc\": bpf/ includes only bpf/ (by its path) and vmlinux.h"; bad=1 ;;
		esac
	done < <(sed -n 's/^#include "\(.*\)"/\1/p' "$file")
done
for dir in core/* harness/*; do
	[ -d "$dir" ] && [ -z "${may[$dir]+set}" ] && { echo "layers: $dir has no rule"; bad=1; }
done
[ "$bad" -eq 0 ] && echo "layers: every include follows docs/architecture.md"
exit "$bad"
