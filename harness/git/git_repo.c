/* SPDX-License-Identifier: MIT */
#include "harness/git/git_repo.h"

#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/output.h"

struct git_repo {
	git_repository *repo;
	char workdir[PATH_MAX];
};

/* err from libgit2's last error: "CONTEXT: MESSAGE". */
static int fail(struct wperf_error *err, int e, const char *context)
{
	const git_error *g = git_error_last();

	return wperf_error_set(err, e, "%s: %s", context, g && g->message ? g->message : "failed");
}

int git_repo_open(const char *path, struct git_repo **out, struct wperf_error *err)
{
	struct git_repo *r = calloc(1, sizeof(*r));
	int e;

	*out = NULL;
	if (!r)
		return wperf_error_set(err, -ENOMEM, "out of memory");
	git_libgit2_init(); /* counted: git_repo_free shuts it down */
	e = git_repository_open_ext(&r->repo, path, 0, NULL);
	if (e == GIT_ENOTFOUND) {
		e = wperf_error_set(err, -ENOENT, "%s: not in a git repository", path);
	} else if (e < 0) {
		e = fail(err, -EIO, path);
	} else if (!git_repository_workdir(r->repo)) {
		e = wperf_error_set(err, -EINVAL, "%s: a bare repository has no work tree",
				    git_repository_path(r->repo));
	} else if (!realpath(git_repository_workdir(r->repo), r->workdir) ||
		   strlen(r->workdir) + 2 > sizeof(r->workdir)) {
		e = wperf_error_set(err, -errno ? -errno : -ENAMETOOLONG, "%s: %s",
				    git_repository_workdir(r->repo), strerror(errno));
	} else {
		strcat(r->workdir, "/");
		*out = r;
		return 0;
	}
	git_repo_free(r);
	return e;
}

void git_repo_free(struct git_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r);
	git_libgit2_shutdown();
}

const char *git_repo_workdir(const struct git_repo *r)
{
	return r->workdir;
}

/* ---- revisions ---- */

/* rev as a commit into oid; 0, or GIT_ENOTFOUND and the like (no err). */
static int peel_commit(git_repository *repo, const char *rev, git_oid *oid)
{
	git_object *o = NULL, *c = NULL;
	int e = git_revparse_single(&o, repo, rev);

	if (!e)
		e = git_object_peel(&c, o, GIT_OBJECT_COMMIT);
	if (!e)
		git_oid_cpy(oid, git_object_id(c));
	git_object_free(c);
	git_object_free(o);
	return e;
}

/* A branch as a CI clone has it: origin/NAME first, then NAME itself. */
static int peel_branch(git_repository *repo, const char *name, git_oid *oid)
{
	char remote[300];

	snprintf(remote, sizeof(remote), "origin/%s", name);
	if (!strchr(name, '/') && peel_commit(repo, remote, oid) == 0)
		return 0;
	return peel_commit(repo, name, oid);
}

/* The default target branch's name into out; empty when none is found. */
static void default_target(git_repository *repo, char *out, size_t size)
{
	static const char *const ci_vars[] = {"GITHUB_BASE_REF",
					      "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"};
	static const char *const names[] = {"main", "master"};
	git_reference *head = NULL;
	git_oid oid;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(ci_vars) / sizeof(*ci_vars); i++) {
		const char *v = getenv(ci_vars[i]);

		if (v && *v) {
			snprintf(out, size, "%s", v);
			return;
		}
	}
	if (git_reference_lookup(&head, repo, "refs/remotes/origin/HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		const char *t = git_reference_symbolic_target(head), *p = "refs/remotes/origin/";

		if (!strncmp(t, p, strlen(p)))
			snprintf(out, size, "%s", t + strlen(p));
	}
	git_reference_free(head);
	for (size_t i = 0; !out[0] && i < sizeof(names) / sizeof(*names); i++)
		if (peel_branch(repo, names[i], &oid) == 0)
			snprintf(out, size, "%s", names[i]);
}

/* The merge base of HEAD with target (NULL: the default) into base, the
 * target's name into name. */
static int merge_base(struct git_repo *r, const char *target, git_oid *base, char *name,
		      size_t size, struct wperf_error *err)
{
	git_oid head, tip;

	if (target)
		snprintf(name, size, "%s", target);
	else
		default_target(r->repo, name, size);
	if (!name[0])
		return wperf_error_set(err, -ENOENT,
				       "%s: no target branch (no $GITHUB_BASE_REF, "
				       "origin/HEAD, main or master); name one",
				       r->workdir);
	if (git_reference_name_to_id(&head, r->repo, "HEAD") < 0)
		return fail(err, -ENOENT, "HEAD");
	if (peel_branch(r->repo, name, &tip) < 0)
		return wperf_error_set(err, -ENOENT, "%s: no branch %s (nor origin/%s)", r->workdir,
				       name, name);
	if (git_merge_base(base, r->repo, &head, &tip) < 0)
		return wperf_error_set(err, -ENOENT, "%s: HEAD and %s have no commit in common",
				       r->workdir, name);
	return 0;
}

int git_repo_resolve(struct git_repo *r, const char *rev, const char *target,
		     char oid[GIT_REPO_OID_HEX], struct wperf_error *err)
{
	char name[256];
	git_oid id;
	int e;

	if (!rev || !*rev) {
		if ((e = merge_base(r, target, &id, name, sizeof(name), err)))
			return e;
	} else if (peel_commit(r->repo, rev, &id) < 0 && peel_branch(r->repo, rev, &id) < 0) {
		/* As git rev-parse takes it first: "HEAD" is this clone's HEAD,
		 * never origin/HEAD. A branch only origin has comes second. */
		return wperf_error_set(err, -ENOENT, "%s: no commit '%s' in this repository",
				       r->workdir, rev);
	}
	git_oid_tostr(oid, GIT_REPO_OID_HEX, &id);
	return 0;
}

/* ---- where the results come from ---- */

/*
 * origin's URL without the user and password it may carry (a token). Read
 * from the configuration, not with git_remote_lookup: libgit2 1.5 leaks a
 * regex match each time that looks up a remote's settings.
 */
static void repository_name(struct git_repo *r, char *out, size_t size)
{
	git_config *config = NULL;
	const char *url = NULL;

	if (git_repository_config_snapshot(&config, r->repo) < 0 ||
	    git_config_get_string(&url, config, "remote.origin.url") < 0) {
		snprintf(out, size, "%.*s", (int)strlen(r->workdir) - 1, r->workdir);
	} else {
		const char *scheme = strstr(url, "://"), *at;

		if (scheme && (at = strchr(scheme + 3, '@')) &&
		    at < scheme + 3 + strcspn(scheme + 3, "/"))
			snprintf(out, size, "%.*s%s", (int)(scheme + 3 - url), url, at + 1);
		else
			snprintf(out, size, "%s", url);
	}
	git_config_free(config);
}

/* Do tracked files differ from HEAD (in the index or the work tree)? */
static int is_dirty(git_repository *repo)
{
	git_status_options opts;
	git_status_list *list = NULL;
	int dirty;

	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES; /* untracked files are not the commit's */
	if (git_status_list_new(&list, repo, &opts) < 0)
		return 1; /* cannot tell: say so rather than claim a clean tree */
	dirty = git_status_list_entrycount(list) > 0;
	git_status_list_free(list);
	return dirty;
}

int git_repo_info(struct git_repo *r, const char *target, struct git_info *out,
		  struct wperf_error *err)
{
	git_reference *head = NULL;
	struct wperf_error ignored = {0};
	git_oid id;

	memset(out, 0, sizeof(*out));
	if (git_reference_name_to_id(&id, r->repo, "HEAD") < 0)
		return fail(err, -ENOENT, "HEAD (a repository without a commit?)");
	git_oid_tostr(out->commit, sizeof(out->commit), &id);
	repository_name(r, out->repository, sizeof(out->repository));
	if (git_repository_head(&head, r->repo) == 0 && git_reference_is_branch(head)) {
		snprintf(out->branch, sizeof(out->branch), "%s", git_reference_shorthand(head));
	} else {
		/* CI checks out a detached commit and names the branch in its environment. */
		const char *ci = getenv("GITHUB_HEAD_REF");

		if (!ci || !*ci)
			ci = getenv("CI_COMMIT_REF_NAME");
		snprintf(out->branch, sizeof(out->branch), "%s", ci ? ci : "");
	}
	git_reference_free(head);
	out->dirty = is_dirty(r->repo);
	if (merge_base(r, target, &id, out->target, sizeof(out->target), &ignored) == 0)
		git_oid_tostr(out->merge_base, sizeof(out->merge_base), &id);
	else
		out->target[0] = '\0';
	return 0;
}

void git_repo_info_of(const char *path, struct git_info *out)
{
	struct git_repo *repo;
	struct wperf_error ignored = {0};

	if (git_repo_open(path, &repo, &ignored) == 0 &&
	    git_repo_info(repo, NULL, out, &ignored) < 0)
		memset(out, 0, sizeof(*out));
	git_repo_free(repo);
}

/* ---- files at a commit ---- */

/* The id of path's blob in commit c; GIT_ENOTFOUND when it has none. */
static int blob_at(git_commit *c, const char *path, git_oid *blob)
{
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	int e = git_commit_tree(&tree, c);

	if (!e)
		e = git_tree_entry_bypath(&entry, tree, path);
	if (!e && git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
		e = GIT_ENOTFOUND;
	if (!e)
		git_oid_cpy(blob, git_tree_entry_id(entry));
	git_tree_entry_free(entry);
	git_tree_free(tree);
	return e;
}

int git_repo_read_file(struct git_repo *r, const char *oid, const char *path, struct wperf_buf *out,
		       struct wperf_error *err)
{
	git_commit *c = NULL;
	git_blob *blob = NULL;
	git_oid id, blob_id;
	int e = git_oid_fromstr(&id, oid);

	if (!e)
		e = git_commit_lookup(&c, r->repo, &id);
	if (e < 0) {
		e = fail(err, -ENOENT, oid);
		goto out;
	}
	if (blob_at(c, path, &blob_id) < 0) {
		e = wperf_error_set(err, -ENOENT, "%s: no file %s at commit %.12s", r->workdir,
				    path, oid);
		goto out;
	}
	if (git_blob_lookup(&blob, r->repo, &blob_id) < 0) {
		e = fail(err, -EIO, path);
		goto out;
	}
	if (wperf_buf_append(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) < 0)
		e = wperf_error_set(err, -ENOMEM, "out of memory");
out:
	git_blob_free(blob);
	git_commit_free(c);
	return e;
}

/* The change commit id made, into *out. */
static int describe_change(struct git_repo *r, const git_oid *id, struct git_change *out,
			   struct wperf_error *err)
{
	git_commit *c = NULL;
	const char *summary;

	if (git_commit_lookup(&c, r->repo, id) < 0)
		return fail(err, -EIO, "a commit");
	summary = git_commit_summary(c);
	memset(out, 0, sizeof(*out));
	git_oid_tostr(out->oid, sizeof(out->oid), id);
	out->time = (int64_t)git_commit_time(c);
	snprintf(out->subject, sizeof(out->subject), "%s", summary ? summary : "");
	git_commit_free(c);
	return 0;
}

/* Did commit c change path against its first parent (added or modified)? */
static int changes_path(git_commit *c, const char *path)
{
	git_commit *parent = NULL;
	git_oid mine, theirs;
	int changed;

	if (blob_at(c, path, &mine) < 0)
		return 0; /* deleted, or never there: nothing to show */
	if (git_commit_parentcount(c) == 0 || git_commit_parent(&parent, c, 0) < 0)
		return 1;
	changed = blob_at(parent, path, &theirs) < 0 || !git_oid_equal(&mine, &theirs);
	git_commit_free(parent);
	return changed;
}

/*
 * The first-parent line from tip back to (not including) hide, or to the root
 * when hide is NULL: the commits that changed path (every commit when path is
 * NULL), oldest first, into *out (free it), *n of them.
 */
static int walk_line(struct git_repo *r, const git_oid *tip, const git_oid *hide, const char *path,
		     struct git_change **out, size_t *n, struct wperf_error *err)
{
	git_revwalk *walk = NULL;
	struct wperf_buf found = {0};
	git_oid id;
	int e = git_revwalk_new(&walk, r->repo) < 0 || git_revwalk_push(walk, tip) < 0 ||
			(hide && git_revwalk_hide(walk, hide) < 0)
		    ? fail(err, -EIO, "the commits")
		    : 0;

	*out = NULL;
	*n = 0;
	if (!e)
		git_revwalk_simplify_first_parent(walk);
	while (!e && git_revwalk_next(&id, walk) == 0) {
		git_commit *c = NULL;
		struct git_change ch = {0};

		if (git_commit_lookup(&c, r->repo, &id) < 0) {
			e = fail(err, -EIO, "a commit");
			break;
		}
		if (!path || changes_path(c, path)) {
			e = describe_change(r, &id, &ch, err);
			if (!e && wperf_buf_append(&found, &ch, sizeof(ch)) < 0)
				e = wperf_error_set(err, -ENOMEM, "out of memory");
		}
		git_commit_free(c);
	}
	if (!e) { /* the walk goes newest first; a line reads oldest first */
		struct git_change *all = (struct git_change *)found.data;

		*n = found.len / sizeof(*all);
		for (size_t i = 0; i < *n / 2; i++) {
			struct git_change t = all[i];

			all[i] = all[*n - 1 - i];
			all[*n - 1 - i] = t;
		}
		*out = all;
		found.data = NULL;
	}
	wperf_buf_release(&found);
	git_revwalk_free(walk);
	return e;
}

int git_repo_changes(struct git_repo *r, const char *path, const char *since,
		     struct git_change **out, size_t *n, struct wperf_error *err)
{
	git_oid head, hide;

	*out = NULL;
	*n = 0;
	if (git_reference_name_to_id(&head, r->repo, "HEAD") < 0)
		return fail(err, -ENOENT, "HEAD");
	if (since && peel_branch(r->repo, since, &hide) < 0)
		return wperf_error_set(err, -ENOENT, "%s: no commit '%s' in this repository",
				       r->workdir, since);
	return walk_line(r, &head, since ? &hide : NULL, path, out, n, err);
}

int git_repo_range(struct git_repo *r, const char *good, const char *bad, struct git_change **out,
		   size_t *n, struct wperf_error *err)
{
	git_oid from, to;

	*out = NULL;
	*n = 0;
	if (git_oid_fromstr(&from, good) < 0 || git_oid_fromstr(&to, bad) < 0)
		return wperf_error_set(err, -EINVAL, "%s: not commit ids: %s, %s", r->workdir, good,
				       bad);
	if (!git_graph_descendant_of(r->repo, &to, &from))
		return wperf_error_set(err, -EINVAL, "%s: %.12s is not an ancestor of %.12s",
				       r->workdir, good, bad);
	return walk_line(r, &to, &from, NULL, out, n, err);
}

int git_repo_blame_line(struct git_repo *r, const char *oid, const char *path, size_t line,
			struct git_change *out, struct wperf_error *err)
{
	git_blame_options o;
	git_blame *blame = NULL, *tree = NULL;
	const git_blame_hunk *hunk = NULL;
	struct wperf_buf text = {0};
	char full[PATH_MAX * 2];
	int e = 0;

	git_blame_options_init(&o, GIT_BLAME_OPTIONS_VERSION);
	if (oid && git_oid_fromstr(&o.newest_commit, oid) < 0)
		return wperf_error_set(err, -EINVAL, "%s: not a commit id", oid);
	if (git_blame_file(&blame, r->repo, path, &o) < 0)
		return oid ? fail(err, -ENOENT, path)
			   : wperf_error_set(err, -ENOENT, "%s: not committed yet", path);
	if (!oid) { /* the work tree's text, blamed on HEAD's */
		snprintf(full, sizeof(full), "%s%s", r->workdir, path);
		e = output_read_all(full, &text, err);
		if (!e && git_blame_buffer(&tree, blame, (const char *)text.data, text.len) < 0)
			e = fail(err, -EIO, full);
	}
	if (!e)
		hunk = git_blame_get_hunk_byline(tree ? tree : blame, line);
	if (!e && (!hunk || git_oid_is_zero(&hunk->final_commit_id)))
		e = wperf_error_set(err, -ENOENT, "%s:%zu: %s", path, line,
				    hunk ? "not committed yet" : "no such line");
	if (!e)
		e = describe_change(r, &hunk->final_commit_id, out, err);
	git_blame_free(tree);
	git_blame_free(blame);
	wperf_buf_release(&text);
	return e;
}

int git_repo_export(struct git_repo *r, const char *oid, const char *dir, struct wperf_error *err)
{
	git_checkout_options opts;
	git_commit *c = NULL;
	git_oid id;
	int e = git_oid_fromstr(&id, oid);

	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);

	if (!e)
		e = git_commit_lookup(&c, r->repo, &id);
	if (e < 0)
		return fail(err, -ENOENT, oid);
	/* Into dir only: the repository's index, HEAD and work tree stay as they are. */
	opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
	opts.target_directory = dir;
	e = git_checkout_tree(r->repo, (const git_object *)c, &opts);
	git_commit_free(c);
	if (e < 0) {
		char what[PATH_MAX + 64];

		snprintf(what, sizeof(what), "writing commit %.12s into %s", oid, dir);
		return fail(err, -EIO, what);
	}
	return 0;
}

int git_repo_relative(const struct git_repo *r, const char *path, char *out, size_t size,
		      struct wperf_error *err)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t wd = strlen(r->workdir); /* with its '/' */

	/* The folder must exist; the file need not (a baseline not made yet). */
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + 1) : 1, slash ? path : ".");
	if (!realpath(dir, real))
		return wperf_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	if (strlen(real) + 2 > sizeof(real))
		return wperf_error_set(err, -ENAMETOOLONG, "%s: path too long", path);
	strcat(real, "/");
	if (strncmp(real, r->workdir, wd))
		return wperf_error_set(err, -EINVAL, "%s is outside the repository at %s", path,
				       r->workdir);
	if ((size_t)snprintf(out, size, "%s%s", real + wd, base) >= size)
		return wperf_error_set(err, -ENAMETOOLONG, "%s: path too long", path);
	return 0;
}
