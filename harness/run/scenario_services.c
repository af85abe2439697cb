/* SPDX-License-Identifier: MIT */
/*
 * The scenario loader's commands (setup, teardown, the load's) and services:
 * a command is a string for /bin/sh -c or a list for exec; a service is a
 * command with its environment, working directory, readiness check and way to
 * stop.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/scenario_internal.h"

int sc_command(struct loader *L, const yaml_node_t *n, struct scenario_command *c)
{
	char got[64];

	c->line = (int)n->start_mark.line + 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (sc_strings(L, n, 0, 1, &c->argv, NULL) < 0)
			return -1;
		if (!c->argv[0][0]) {
			sc_path_index(L, 0);
			return sc_fail(L, sc_node(L, n->data.sequence.items.start[0]),
				       "expected a program, got an empty string");
		}
		return 0;
	}
	if (n->type != YAML_SCALAR_NODE || sc_is_null(n))
		return sc_fail(L, n, "expected a command (a string or a list of strings), got %s",
			       sc_describe(n, got, sizeof(got)));
	c->argv = sc_alloc(L, n, 4 * sizeof(*c->argv));
	if (!c->argv || !(c->argv[0] = sc_strndup(L, n, "/bin/sh", 7)) ||
	    !(c->argv[1] = sc_strndup(L, n, "-c", 2)) || sc_string(L, n, 0, &c->argv[2]) < 0)
		return -1;
	c->argv[3] = NULL;
	c->shell = 1;
	if (!c->argv[2][strspn(c->argv[2], " \t\r\n")])
		return sc_fail(L, n, "expected a command, got an empty string");
	return 0;
}

int sc_commands(struct loader *L, const yaml_node_t *root, const char *key,
		struct scenario_command **out, size_t *count)
{
	const yaml_node_t *n = sc_lookup(L, root, key);
	const yaml_node_item_t *items;
	size_t saved, k;

	if (!n)
		return 0;
	saved = sc_path_key(L, key);
	if (sc_sequence(L, n) < 0)
		return -1;
	items = n->data.sequence.items.start;
	k = n->data.sequence.items.top - items;
	if (k && !(*out = sc_alloc(L, n, k * sizeof(**out))))
		return -1;
	for (size_t i = 0; i < k; i++) {
		size_t at = sc_path_index(L, i);

		memset(&(*out)[i], 0, sizeof(**out));
		if (sc_command(L, sc_node(L, items[i]), &(*out)[i]) < 0)
			return -1;
		sc_path_pop(L, at);
	}
	*count = k;
	sc_path_pop(L, saved);
	return 0;
}

/* ---- services ---- */

static int env(struct loader *L, const yaml_node_t *map, struct scenario_service *svc)
{
	const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	size_t k = map->data.mapping.pairs.top - p;

	if (sc_check_keys(L, map, NULL) < 0 ||
	    !(svc->env = sc_alloc(L, map, (k + 1) * sizeof(char *))))
		return -1;
	for (size_t i = 0; i < k; i++) {
		const char *key = sc_key(L, &p[i]);
		size_t saved = sc_path_key(L, key), klen = strlen(key);
		char *value, *kv;

		if (!sc_is_var_name(key, klen))
			return sc_fail(L, sc_node(L, p[i].key),
				       "expected a variable name of letters, digits and '_', not "
				       "starting with a digit");
		if (sc_string(L, sc_node(L, p[i].value), 0, &value) < 0)
			return -1;
		kv = sc_alloc(L, map, klen + strlen(value) + 2);
		if (!kv)
			return -1;
		sprintf(kv, "%s=%s", key, value);
		svc->env[i] = kv;
		sc_path_pop(L, saved);
	}
	svc->env[k] = NULL;
	svc->nenv = k;
	return 0;
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
		return sc_fail(L, n, "expected HOST:PORT, got %s (an IPv6 address goes in [])",
			       sc_describe(n, got, sizeof(got)));
	}
	if (!colon || hlen == 0 || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return sc_fail(L, n, "expected HOST:PORT, got %s",
			       sc_describe(n, got, sizeof(got)));
	port = strlen(colon + 1) > 5 ? 0 : strtol(colon + 1, NULL, 10);
	if (port < 1 || port > 65535)
		return sc_fail(L, n, "expected a port from 1 to 65535, got \"%s\"", colon + 1);
	r->host = sc_strndup(L, n, s, hlen);
	r->port = (int)port;
	return r->host ? 0 : -1;
}

static int ready(struct loader *L, const yaml_node_t *map, struct scenario_ready *r)
{
	static const char *const keys[] = {"tcp", "file", "log", "delay", "timeout", NULL};
	const char *kind = NULL;

	if (sc_mapping(L, map) < 0 || sc_check_keys(L, map, keys) < 0)
		return -1;
	/* Exactly one kind; the second one in the file is the mistake. */
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const char *key = sc_key(L, p);

		if (!strcmp(key, "timeout"))
			continue;
		if (kind) {
			sc_path_key(L, key);
			return sc_fail(L, sc_node(L, p->key),
				       "only one of tcp, file, log and delay (%s is given already)",
				       kind);
		}
		kind = key;
	}
	if (!kind)
		return sc_fail(L, map, "expected one of tcp, file, log or delay");
	r->timeout = 30;
	if (sc_get_number(L, map, "timeout", &sc_seconds_pos, &r->timeout) < 0)
		return -1;
	if (!strcmp(kind, "tcp")) {
		r->kind = SCENARIO_READY_TCP;
		AT_KEY(L, "tcp", tcp_address(L, sc_lookup(L, map, "tcp"), r) < 0);
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
	r->kind = SCENARIO_READY_DELAY;
	return sc_get_number(L, map, "delay", &sc_seconds, &r->delay);
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
		if (sc_integer(L, n, 1, 64, &num) < 0)
			return -1;
		*sig = (int)num;
		return 0;
	}
	if (n->type == YAML_SCALAR_NODE && !sc_is_null(n)) {
		const char *name = strncmp(v, "SIG", 3) ? v : v + 3;

		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
			if (!strcmp(name, names[i].name)) {
				*sig = names[i].sig;
				return 0;
			}
		}
	}
	return sc_fail(L, n,
		       "expected a signal (TERM, INT, KILL, HUP, QUIT, USR1, USR2 or a number), "
		       "got %s",
		       sc_describe(n, got, sizeof(got)));
}

static int service(struct loader *L, const yaml_node_t *key, const yaml_node_t *map,
		   struct scenario_service *svc)
{
	static const char *const keys[] = {"command",	  "env",	  "cwd", "ready",
					   "stop_signal", "stop_timeout", NULL};
	static const char *const required[] = {"command", NULL};
	const char *name = (const char *)key->data.scalar.value;
	const yaml_node_t *v;

	if (!name[0] || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				     "0123456789_-") != strlen(name))
		return sc_fail(L, key, "expected a service name of letters, digits, '_' and '-'");
	if (!strcmp(name, "load"))
		return sc_fail(L, key, "\"load\" names the load; call the service otherwise");
	if (!(svc->name = sc_strndup(L, key, name, strlen(name))) || sc_mapping(L, map) < 0 ||
	    sc_check_keys(L, map, keys) < 0 || sc_require(L, map, required) < 0)
		return -1;
	AT_KEY(L, "command", sc_command(L, sc_lookup(L, map, "command"), &svc->command) < 0);
	svc->env = L->empty;
	if ((v = sc_lookup(L, map, "env")))
		AT_KEY(L, "env", sc_mapping(L, v) < 0 || env(L, v, svc) < 0);
	if (sc_get_string(L, map, "cwd", SC_NONEMPTY, &svc->cwd) < 0)
		return -1;
	if ((v = sc_lookup(L, map, "ready")))
		AT_KEY(L, "ready", ready(L, v, &svc->ready) < 0);
	svc->stop_signal = SIGTERM;
	if ((v = sc_lookup(L, map, "stop_signal")))
		AT_KEY(L, "stop_signal", stop_signal(L, v, &svc->stop_signal) < 0);
	svc->stop_timeout = 10;
	return sc_get_number(L, map, "stop_timeout", &sc_seconds, &svc->stop_timeout);
}

int sc_services(struct loader *L, const yaml_node_t *root)
{
	const yaml_node_t *map = sc_lookup(L, root, "services");
	const yaml_node_pair_t *p;
	struct scenario *s = L->s;
	size_t saved, k;

	if (!map)
		return 0;
	saved = sc_path_key(L, "services");
	if (sc_mapping(L, map) < 0 || sc_check_keys(L, map, NULL) < 0)
		return -1;
	p = map->data.mapping.pairs.start;
	k = map->data.mapping.pairs.top - p;
	if (k && !(s->services = sc_alloc(L, map, k * sizeof(*s->services))))
		return -1;
	if (k)
		memset(s->services, 0, k * sizeof(*s->services));
	for (size_t i = 0; i < k; i++) {
		size_t at = sc_path_key(L, sc_key(L, &p[i]));

		if (service(L, sc_node(L, p[i].key), sc_node(L, p[i].value), &s->services[i]) < 0)
			return -1;
		s->nservices = i + 1; /* scenario_service sees only the finished ones */
		sc_path_pop(L, at);
	}
	sc_path_pop(L, saved);
	return 0;
}
