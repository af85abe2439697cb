#!/usr/bin/env bash
# The nightly job, for GitHub (ci/github/wperf-bench-nightly.yml) and GitLab
# (the job wperf-bench-nightly of ci/gitlab/wperf-bench.yml) alike, from a
# checkout of the default branch with its whole history, as root on a machine
# that can record (docs/ci.md, "Nightly: change points and issues"):
#
#  1. builds, and runs `make check-perf CHECK_PERF_TAG=$WPERF_NIGHTLY_TAG`
#     against the stored baselines into $WPERF_NIGHTLY_RESULTS (the job keeps
#     it as its artifact);
#  2. makes each scenario that ran tonight's baseline (`baseline update`) and
#     commits them to the branch $WPERF_NIGHTLY_BRANCH as one commit whose
#     first parent is the branch's last night and whose second is the commit
#     measured (the first night: the default branch's commit alone), pushed
#     to $WPERF_NIGHTLY_REMOTE with the job's credentials;
#  3. on that branch, since it left the default branch, `history --changes`
#     of each of those scenarios, and `post --changes` of their
#     changes.json: one issue per change point, opened or updated.
#
# Variables (all optional):
#   WPERF_NIGHTLY_BRANCH   the history's branch (default wperf-bench/nightly)
#   WPERF_NIGHTLY_REMOTE   where it is pushed (default origin)
#   WPERF_NIGHTLY_TAG      the scenarios' tag (default nightly)
#   WPERF_NIGHTLY_RESULTS  the results folder (default build/check-perf)
#   WPERF_NIGHTLY_POST     options for post (say, "--forge gitlab")
# and post's own: the token ($GITHUB_TOKEN; $GITLAB_TOKEN), the repository.
#
# Exit status: 0 every step done and every scenario judged pass, improved or
# inconclusive against its stored baseline; otherwise the worst of
# check-perf's (1 a new bottleneck or regression against the stored
# baselines, 2 a scenario could not run) and 2 for a step that failed (the
# build, a baseline, the push, a history, an issue). The steps after a failed
# one run when they still can: a night that cannot push still posts nothing
# new, one whose check-perf failed still records what ran.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

branch=${WPERF_NIGHTLY_BRANCH:-wperf-bench/nightly}
remote=${WPERF_NIGHTLY_REMOTE:-origin}
tag=${WPERF_NIGHTLY_TAG:-nightly}
results=${WPERF_NIGHTLY_RESULTS:-build/check-perf}
bench=build/wperf-bench
marker="wperf-bench nightly: "
status=0

# The worst status so far.
worse() { [ "$1" -gt "$status" ] && status=$1; }
say() { echo "ci/nightly.sh: $*" >&2; }

# The baselines' folder: .wperf-bench.yaml's baselines:, else baselines.
baselines_dir() {
	local dir
	dir=$(sed -n 's/^baselines:[[:space:]]*\([^#[:space:]]*\).*/\1/p' .wperf-bench.yaml 2>/dev/null)
	echo "${dir:-baselines}"
}

# Tonight's baselines of the scenarios that ran (name TAB folder, from
# summary.json), staged; prints the names.
stage_baselines() {
	local dir name sub
	dir=$(baselines_dir)
	jq -r '.scenarios[] | select(.verdict != "error") | "\(.name)\t\(.dir)"' \
		"$results/summary.json" | while IFS=$'\t' read -r name sub; do
		if "$bench" baseline update -b "$dir/$name.yaml" "$results/$sub" >&2 &&
			git add -- "$dir/$name.yaml"; then
			echo "$name"
		else
			say "no baseline of $name tonight"
		fi
	done
}

# The commit of tonight: the measured commit's tree with tonight's
# baselines, after the branch's last night; its id.
commit_night() {
	local head=$1 last tree
	export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-wperf-bench nightly}
	export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-wperf-bench@localhost}
	export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}
	export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}
	tree=$(git write-tree) || return 1
	if git fetch -q --no-tags "$remote" "+refs/heads/$branch:refs/remotes/$remote/$branch" 2>/dev/null; then
		last=$(git rev-parse "refs/remotes/$remote/$branch") || return 1
		git commit-tree "$tree" -p "$last" -p "$head" \
			-m "$marker$(date -u +%F) at ${head:0:12}"
	else
		say "no branch $branch on $remote: the first night starts it from ${head:0:12}"
		git commit-tree "$tree" -p "$head" -m "$marker$(date -u +%F) at ${head:0:12}"
	fi
}

make -j"$(nproc)" || exit 2
check=0
make check-perf CHECK_PERF_TAG="$tag" CHECK_PERF_DIR="$results" || check=$?
worse "$check"
[ -f "$results/summary.json" ] || { say "check-perf left no $results/summary.json"; exit 2; }

head=$(git rev-parse HEAD) || exit 2
mapfile -t names < <(stage_baselines)
[ "${#names[@]}" -gt 0 ] || { say "no scenario ran tonight: nothing to record"; exit 2; }
night=$(commit_night "$head") || exit 2
git push -q "$remote" "$night:refs/heads/$branch" || { say "cannot push $branch"; worse 2; }
git -c advice.detachedHead=false checkout -q --detach "$night" || exit 2

# The history starts where the branch left the default branch: before its
# first night (the baselines before were made elsewhere, or by hand).
first=$(git rev-list --first-parent --grep="^$marker" "$night" | tail -n 1)
changes=()
for name in "${names[@]}"; do
	out=$results/history/$name
	if "$bench" history --changes --since "$first^" -o "$out" "$name" >/dev/null; then
		changes+=("$out/changes.json")
	else
		worse 2
	fi
done
# shellcheck disable=SC2086 # WPERF_NIGHTLY_POST is a list of options
[ "${#changes[@]}" -eq 0 ] || "$bench" post ${WPERF_NIGHTLY_POST:-} --changes "${changes[@]}" || worse 2
exit "$status"
