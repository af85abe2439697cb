/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader's commands (setup, teardown, the load's) and services:
 * a command is a string for /bin/sh -c or a list for exec; a service is a
 * command with its environment, working directory, readiness check and way to
 * stop.
 *
 * include: shared service definitions. A scenario (or an included file) may
 * list files, relative to itself, whose services: (and include:, nothing
 * else) join its own, before them and in the list's order. Each file is read
 * with the same limits as a scenario, its errors name it with its own line
 * and column, and a file that includes itself, directly or not, is refused.
 * Services and includes call each other (an included file has both): they
 * are one part.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario/scenario_internal.h"

int sc_command(struct loader *L, const yaml_node_t *n, struct scenario_command *c)
{
	char got[64];

	c->line = (int)n->start_mark.line + 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (sc_strings(L, n, 0, 1, &c->argv, NULL) < 0)
			return -1;
		if (!c->argv[0][0]) {
			wperf_doc_path_index(&L->y.path, 0);
			return wperf_yaml_fail(
			    &L->y, wperf_yaml_node(&L->y, n->data.sequence.items.start[0]),
			    "expected a program, found an empty string");
		}
		return 0;
	}
	if (n->type != YAML_SCALAR_NODE || wperf_yaml_is_null(n))
		return wperf_yaml_fail(
		    &L->y, n, "expected a command (a string or a list of strings), found %s",
		    wperf_yaml_describe(n, got, sizeof(got)));
	c->argv = sc_alloc(L, n, 4 * sizeof(*c->argv));
	if (!c->argv || !(c->argv[0] = sc_strndup(L, n, "/bin/sh", 7)) ||
	    !(c->argv[1] = sc_strndup(L, n, "-c", 2)) || sc_string(L, n, 0, &c->argv[2]) < 0)
		return -1;
	c->argv[3] = NULL;
	c->shell = 1;
	if (!c->argv[2][strspn(c->argv[2], " \t\r\n")])
		return wperf_yaml_fail(&L->y, n, "expected a command, found an empty string");
	return 0;
}

int sc_commands(struct loader *L, const yaml_node_t *root, const char *key,
		struct scenario_command **out, size_t *count)
{
	const yaml_node_t *n = wperf_yaml_lookup(&L->y, root, key);
	const yaml_node_item_t *items;
	size_t saved, k;

	if (!n)
		return 0;
	saved = wperf_doc_path_key(&L->y.path, key);
	if (wperf_yaml_list(&L->y, n, &items, &k) < 0)
		return -1;
	if (k && !(*out = sc_alloc(L, n, k * sizeof(**out))))
		return -1;
	for (size_t i = 0; i < k; i++) {
		size_t at = wperf_doc_path_index(&L->y.path, i);

		memset(&(*out)[i], 0, sizeof(**out));
		if (sc_command(L, wperf_yaml_node(&L->y, items[i]), &(*out)[i]) < 0)
			return -1;
		wperf_doc_path_pop(&L->y.path, at);
	}
	*count = k;
	wperf_doc_path_pop(&L->y.path, saved);
	return 0;
}

/* ---- services ---- */

/* A mapping of variable names to strings, as "NAME=VALUE" strings ending with NULL. */
static int sc_env(struct loader *L, const yaml_node_t *map, char ***env, size_t *count)
{
	const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	size_t k = map->data.mapping.pairs.top - p;

	if (wperf_yaml_keys(&L->y, map, NULL, 0, 0, NULL) < 0 ||
	    !(*env = sc_alloc(L, map, (k + 1) * sizeof(char *))))
		return -1;
	for (size_t i = 0; i < k; i++) {
		const char *key = sc_key(L, &p[i]);
		size_t saved = wperf_doc_path_key(&L->y.path, key), klen = strlen(key);
		char *value, *kv;

		if (!scenario_var_name_ok(key, klen))
			return wperf_yaml_fail(
			    &L->y, wperf_yaml_node(&L->y, p[i].key),
			    "expected a variable name of letters, digits and '_', not "
			    "starting with a digit");
		if (sc_string(L, wperf_yaml_node(&L->y, p[i].value), 0, &value) < 0)
			return -1;
		kv = sc_alloc(L, map, klen + strlen(value) + 2);
		if (!kv)
			return -1;
		sprintf(kv, "%s=%s", key, value);
		(*env)[i] = kv;
		wperf_doc_path_pop(&L->y.path, saved);
	}
	(*env)[k] = NULL;
	*count = k;
	return 0;
}

int sc_process(struct loader *L, const yaml_node_t *map, struct scenario_command *command,
	       char ***env, size_t *nenv, char **cwd)
{
	const yaml_node_t *v;

	AT_KEY(L, "command", sc_command(L, wperf_yaml_lookup(&L->y, map, "command"), command) < 0);
	*env = L->empty;
	if ((v = wperf_yaml_lookup(&L->y, map, "env")))
		AT_KEY(L, "env", wperf_yaml_mapping(&L->y, v) < 0 || sc_env(L, v, env, nenv) < 0);
	return sc_get_string(L, map, "cwd", SC_NONEMPTY, cwd) < 0 ? -1 : 0;
}

/* "HOST:PORT", "[IPV6]:PORT". */
static int tcp_address(struct loader *L, const yaml_node_t *n, struct scenario_ready *r)
{
	char *s, *colon, got[64];
	size_t hlen;
	long port;

	if (sc_string(L, n, SC_NONEMPTY, &s) < 0)
		return -1;
	colon = strrchr(s, ':');
	hlen = colon ? (size_t)(colon - s) : 0;
	if (hlen > 1 && s[0] == '[' && s[hlen - 1] == ']') {
		s++; /* the brackets only keep the address's colons apart from the port's */
		hlen -= 2;
	} else if (hlen && memchr(s, ':', hlen)) {
		return wperf_yaml_fail(&L->y, n,
				       "expected HOST:PORT, found %s (an IPv6 address goes in [])",
				       wperf_yaml_describe(n, got, sizeof(got)));
	}
	if (!colon || hlen == 0 || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return wperf_yaml_fail(&L->y, n, "expected HOST:PORT, found %s",
				       wperf_yaml_describe(n, got, sizeof(got)));
	port = strlen(colon + 1) > 5 ? 0 : strtol(colon + 1, NULL, 10);
	if (port < 1 || port > 65535)
		return wperf_yaml_fail(&L->y, n, "expected a port from 1 to 65535, found \"%s\"",
				       colon + 1);
	r->host = sc_strndup(L, n, s, hlen);
	r->port = (int)port;
	return r->host ? 0 : -1;
}

/* http: an http:// or https:// URL with a host; status: what its GET answers. */
static int ready_http(struct loader *L, const yaml_node_t *map, struct scenario_ready *r)
{
	const yaml_node_t *n = wperf_yaml_lookup(&L->y, map, "http");
	long long status = 200;
	const char *rest;
	char got[64];

	if (sc_get_string(L, map, "http", SC_NONEMPTY, &r->url) < 0 ||
	    sc_get_integer(L, map, "status", 100, 599, &status) < 0)
		return -1;
	rest = !strncmp(r->url, "http://", 7)	 ? r->url + 7
	       : !strncmp(r->url, "https://", 8) ? r->url + 8
						 : NULL;
	r->status = (int)status;
	for (const char *p = r->url; rest && *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			rest = NULL; /* white space or a control character: no URL */
	if (rest && rest[0] && rest[0] != '/' && rest[0] != ':')
		return 0;
	wperf_doc_path_key(&L->y.path, "http");
	return wperf_yaml_fail(&L->y, n,
			       "expected an http:// or https:// URL with a host, found %s",
			       wperf_yaml_describe(n, got, sizeof(got)));
}

static int ready(struct loader *L, const yaml_node_t *map, struct scenario_ready *r)
{
	static const char *const keys[] = {"tcp",  "file",   "log",    "delay",
					   "http", "status", "timeout"};
	const char *kind = NULL;

	if (SC_KEYS(L, map, keys, 0) < 0)
		return -1;
	/* Exactly one kind; the second one in the file is the mistake. */
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const char *key = sc_key(L, p);

		if (!strcmp(key, "timeout") || !strcmp(key, "status"))
			continue;
		if (kind) {
			wperf_doc_path_key(&L->y.path, key);
			return wperf_yaml_fail(
			    &L->y, wperf_yaml_node(&L->y, p->key),
			    "only one of tcp, file, log, delay and http (%s is given already)",
			    kind);
		}
		kind = key;
	}
	if (!kind)
		return wperf_yaml_fail(&L->y, map, "expected one of tcp, file, log, delay or http");
	if (strcmp(kind, "http") && wperf_yaml_lookup(&L->y, map, "status"))
		AT_KEY(L, "status",
		       wperf_yaml_fail(&L->y, wperf_yaml_lookup(&L->y, map, "status"),
				       "only with http (the status its GET must answer)") < 0);
	r->timeout = 30;
	if (sc_get_duration(L, map, "timeout", &sc_seconds_pos, &r->timeout) < 0)
		return -1;
	if (!strcmp(kind, "tcp")) {
		r->kind = SCENARIO_READY_TCP;
		AT_KEY(L, "tcp", tcp_address(L, wperf_yaml_lookup(&L->y, map, "tcp"), r) < 0);
		return 0;
	}
	if (!strcmp(kind, "file")) {
		r->kind = SCENARIO_READY_FILE;
		return sc_get_string(L, map, "file", SC_NONEMPTY, &r->file);
	}
	if (!strcmp(kind, "log")) {
		r->kind = SCENARIO_READY_LOG;
		return sc_get_regex(L, map, "log", 0, &r->log);
	}
	if (!strcmp(kind, "http")) {
		r->kind = SCENARIO_READY_HTTP;
		return ready_http(L, map, r);
	}
	r->kind = SCENARIO_READY_DELAY;
	return sc_get_duration(L, map, "delay", &sc_seconds, &r->delay);
}

static int stop_signal(struct loader *L, const yaml_node_t *n, int *sig)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {{"TERM", SIGTERM}, {"INT", SIGINT},   {"KILL", SIGKILL}, {"HUP", SIGHUP},
		     {"QUIT", SIGQUIT}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2}};
	const char *v = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
	long long num;
	char got[64];

	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    v[0] >= '0' && v[0] <= '9') {
		if (wperf_yaml_integer(&L->y, n, 1, 64, &num) < 0)
			return -1;
		*sig = (int)num;
		return 0;
	}
	if (n->type == YAML_SCALAR_NODE && !wperf_yaml_is_null(n)) {
		const char *name = strncmp(v, "SIG", 3) ? v : v + 3;

		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
			if (!strcmp(name, names[i].name)) {
				*sig = names[i].sig;
				return 0;
			}
		}
	}
	return wperf_yaml_fail(
	    &L->y, n,
	    "expected a signal (TERM, INT, KILL, HUP, QUIT, USR1, USR2 or a number), "
	    "found %s",
	    wperf_yaml_describe(n, got, sizeof(got)));
}

static int service(struct loader *L, const yaml_node_t *key, const yaml_node_t *map,
		   struct scenario_service *svc)
{
	static const char *const keys[] = {"command", "env",	     "cwd",
					   "ready",   "stop_signal", "stop_timeout"};
	const char *name = (const char *)key->data.scalar.value;
	const yaml_node_t *v;

	if (!name[0] || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				     "0123456789_-") != strlen(name))
		return wperf_yaml_fail(&L->y, key,
				       "expected a service name of letters, digits, '_' and '-'");
	if (!strcmp(name, "load"))
		return wperf_yaml_fail(&L->y, key,
				       "\"load\" names the load; call the service otherwise");
	if (!(svc->name = sc_strndup(L, key, name, strlen(name))) || SC_KEYS(L, map, keys, 1) < 0)
		return -1;
	if (sc_process(L, map, &svc->command, &svc->env, &svc->nenv, &svc->cwd) < 0)
		return -1;
	if ((v = wperf_yaml_lookup(&L->y, map, "ready")))
		AT_KEY(L, "ready", ready(L, v, &svc->ready) < 0);
	svc->stop_signal = SIGTERM;
	if ((v = wperf_yaml_lookup(&L->y, map, "stop_signal")))
		AT_KEY(L, "stop_signal", stop_signal(L, v, &svc->stop_signal) < 0);
	svc->stop_timeout = 10;
	return sc_get_duration(L, map, "stop_timeout", &sc_seconds, &svc->stop_timeout);
}

/* ---- include: ---- */

/* The services (and includes) of the file at path, read into a document of its
 * own while L->y holds it; the including file's document is put back after. */
static int include_file(struct loader *L, const char *path, const char *real)
{
	static const char *const keys[] = {"include", "services"};
	struct wperf_yaml outer = L->y;
	const char *outer_file = L->file;
	const yaml_node_t *root;
	char got[64];
	int ret;

	memset(&L->y, 0, sizeof(L->y));
	L->y.file = path;
	L->y.err = L->err;
	L->file = path;
	L->including[L->depth++] = real;
	ret = sc_read_document(L);
	if (!ret) {
		root = wperf_yaml_root(&L->y);
		if (root->type != YAML_MAPPING_NODE)
			ret = wperf_yaml_fail(&L->y, root,
					      "expected a mapping of services: (and include:), "
					      "found %s",
					      wperf_yaml_describe(root, got, sizeof(got)));
		else
			ret = SC_KEYS(L, root, keys, 0) < 0 || sc_services(L, root) < 0 ? -1 : 0;
	}
	L->depth--;
	wperf_yaml_release(&L->y);
	L->y = outer;
	L->file = outer_file;
	return ret;
}

/* item, a path relative to the including file, resolved into path and real. */
static int resolve(struct loader *L, const yaml_node_t *item, char *path, char *real)
{
	const char *slash = strrchr(L->file, '/');
	int dir = slash ? (int)(slash - L->file + 1) : 0;
	char *rel, *r;

	if (sc_string(L, item, SC_NONEMPTY, &rel) < 0)
		return -1;
	if ((size_t)snprintf(path, PATH_MAX, "%.*s%s", rel[0] == '/' ? 0 : dir, L->file, rel) >=
	    PATH_MAX)
		return wperf_yaml_fail(&L->y, item, "path too long");
	r = realpath(path, NULL);
	if (!r)
		return wperf_yaml_fail(&L->y, item, "%s: %s", path, strerror(errno));
	snprintf(real, PATH_MAX, "%s", r);
	free(r);
	for (size_t i = 0; i < L->depth; i++)
		if (!strcmp(L->including[i], real))
			return wperf_yaml_fail(&L->y, item, "%s includes itself", path);
	if (L->depth == SC_MAX_INCLUDES)
		return wperf_yaml_fail(&L->y, item, "includes nested deeper than %d",
				       SC_MAX_INCLUDES);
	return 0;
}

static int includes(struct loader *L, const yaml_node_t *root)
{
	const yaml_node_t *list = wperf_yaml_lookup(&L->y, root, "include");
	const yaml_node_item_t *items;
	size_t saved, k;

	if (!list)
		return 0;
	if (!L->depth) { /* the scenario itself, the first of the chain */
		char *top = realpath(L->file, NULL);

		if (!top || !(L->including[0] = sc_strndup(L, list, top, strlen(top)))) {
			free(top);
			return top ? -1
				   : wperf_error_set(L->err, -errno, "%s: %s", L->file,
						     strerror(errno));
		}
		free(top);
		L->depth = 1;
	}
	saved = wperf_doc_path_key(&L->y.path, "include");
	if (wperf_yaml_list(&L->y, list, &items, &k) < 0)
		return -1;
	for (size_t i = 0; i < k; i++) {
		size_t at = wperf_doc_path_index(&L->y.path, i);
		char path[PATH_MAX], real[PATH_MAX];

		if (resolve(L, wperf_yaml_node(&L->y, items[i]), path, real) < 0 ||
		    include_file(L, path, real) < 0)
			return -1;
		wperf_doc_path_pop(&L->y.path, at);
	}
	wperf_doc_path_pop(&L->y.path, saved);
	return 0;
}

/* ---- services: ---- */

int sc_services(struct loader *L, const yaml_node_t *root)
{
	const yaml_node_t *map = wperf_yaml_lookup(&L->y, root, "services");
	const yaml_node_pair_t *p;
	struct scenario *s = L->s;
	struct scenario_service *all;
	size_t saved, k, n;

	if (includes(L, root) < 0)
		return -1;
	n = s->nservices; /* the included ones */
	if (!map)
		return 0;
	saved = wperf_doc_path_key(&L->y.path, "services");
	if (wperf_yaml_keys(&L->y, map, NULL, 0, 0, NULL) < 0)
		return -1;
	p = map->data.mapping.pairs.start;
	k = map->data.mapping.pairs.top - p;
	/* After the included ones: the array grows (targets point in only later). */
	if (k && !(all = sc_alloc(L, map, (n + k) * sizeof(*all))))
		return -1;
	if (k) {
		if (n)
			memcpy(all, s->services, n * sizeof(*all));
		memset(all + n, 0, k * sizeof(*all));
		s->services = all;
	}
	for (size_t i = 0; i < k; i++) {
		const yaml_node_t *key = wperf_yaml_node(&L->y, p[i].key);
		size_t at = wperf_doc_path_key(&L->y.path, sc_key(L, &p[i]));

		if (scenario_service(s, sc_key(L, &p[i])))
			return wperf_yaml_fail(&L->y, key,
					       "a service of this name is defined already, by an "
					       "include (whose services come first)");
		if (service(L, key, wperf_yaml_node(&L->y, p[i].value), &s->services[n + i]) < 0)
			return -1;
		s->nservices = n + i + 1; /* scenario_service sees only the finished ones */
		wperf_doc_path_pop(&L->y.path, at);
	}
	wperf_doc_path_pop(&L->y.path, saved);
	return 0;
}

const struct scenario_service *scenario_service(const struct scenario *s, const char *name)
{
	for (size_t i = 0; i < s->nservices; i++)
		if (!strcmp(s->services[i].name, name))
			return &s->services[i];
	return NULL;
}
