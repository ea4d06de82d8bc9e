/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * cmd-show.c: `nodus show DB PAIR` prints every attempt of one pair, in
 * full: status, label, guard, interval, timing medians, correctness
 * figures, cost, target, times, the whole message (a compiler's errors,
 * the tolerance detail, the signal) and the record's detail JSON, which
 * the report and the progress lines only summarise.
 *
 * PAIR is a pair id of the plan, or a part of one that names a single
 * pair. The store is opened read-only (it may be read while `nodus run`
 * writes it, and nothing is created beside it).
 * ------------------------------------------------------------------------ */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "store/store.h"

static const char usage[] =
	"usage: nodus show DB PAIR [--plan DIGEST] [--condition NAME]\n\n"
	"Prints every attempt of one pair of a plan, oldest first, in full: status,\n"
	"label, guard, speedup interval, medians, correctness figures, cost, target,\n"
	"times, the whole message and the record's detail.\n\n"
	"  PAIR              a pair id, or a part of one that names a single pair\n"
	"  --plan DIGEST     the plan (default: the latest plan in DB)\n"
	"  --condition NAME  only the attempts under this condition\n\n"
	"exit status: 0 ok, 2 bad usage, missing store, unknown plan, pair or\n"
	"condition, 3 store error\n";

struct show_args {
	const char *db;           /* the store */
	const char *pair;         /* the pair asked for, as given */
	const char *plan;         /* plan digest, or NULL for the latest */
	const char *condition;    /* only this condition, or NULL */
};

#define MAX_DECIDING 64

struct show_walk {
	const char *pair_id;      /* the pair shown */
	const char *condition;    /* only this condition, or NULL */
	int shown;                /* attempts printed */
	int n_cond;               /* entries in cond, deciding */
	char cond[MAX_DECIDING][64]; /* a condition of the pair ... */
	int deciding[MAX_DECIDING];  /* ... and the attempt that decides it (0: none yet) */
};

/* The slot of condition name in w (added when new), or -1 when full. */
static int cond_slot(struct show_walk *w, const char *name)
{
	for (int k = 0; k < w->n_cond; k++)
		if (strcmp(w->cond[k], name) == 0)
			return k;
	if (w->n_cond == MAX_DECIDING)
		return -1;
	snprintf(w->cond[w->n_cond], sizeof(w->cond[0]), "%s", name);
	w->deciding[w->n_cond] = 0;
	return w->n_cond++;
}

/* First pass: per condition, the attempt that decides it, as the report
 * takes it: the final record that is not NOT_ISOLATED, else the latest
 * final one. */
static int find_deciding(const nodus_record *r, void *ctx)
{
	struct show_walk *w = ctx;
	int k;
	if (!r->final || strcmp(r->pair_id, w->pair_id) != 0 || (k = cond_slot(w, r->condition)) < 0)
		return 0;
	int decides = r->status != NODUS_STATUS_NOT_ISOLATED;
	if (decides || w->deciding[k] >= 0)
		w->deciding[k] = decides ? -r->attempt : r->attempt; /* < 0: settled */
	return 0;
}

static int parse_args(int argc, char **argv, struct show_args *a, int *exit_code)
{
	static const struct option longopts[] = {
		{"plan", required_argument, NULL, 'p'},
		{"condition", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	opterr = 0;
	optind = 0; /* glibc: start afresh (demo runs several commands in one process) */
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage, stdout);
			*exit_code = NODUS_EXIT_OK;
			return -1;
		} else if (ch == 'p') {
			a->plan = optarg;
		} else if (ch == 'c') {
			a->condition = optarg;
		} else {
			*exit_code = nodus_cli_option_error("show", ch, argc, argv);
			return -1;
		}
	}
	if (argc - optind != 2) {
		*exit_code = nodus_cli_usage_error("show", "expected DB and PAIR");
		return -1;
	}
	a->db = argv[optind];
	a->pair = argv[optind + 1];
	return 0;
}

/* The pair id of plan that is pair, or the one id containing it; NULL with
 * a message printed when none or several match. Borrowed from plan. */
static const char *find_pair(json_t *plan, const char *pair)
{
	json_t *pairs = json_object_get(plan, "pairs"), *p;
	const char *hit = NULL;
	int partial = 0;
	size_t i;
	json_array_foreach(pairs, i, p) {
		const char *id = json_string_value(json_object_get(p, "id"));
		if (id && strcmp(id, pair) == 0)
			return id;
		if (id && strstr(id, pair)) {
			hit = id;
			partial++;
		}
	}
	if (partial == 1)
		return hit;
	if (partial == 0) {
		nodus_cli_usage_error("show", "plan %.12s has no pair '%s' (%zu pairs; 'nodus "
					      "report DB' lists them)",
				      json_string_value(json_object_get(plan, "digest")), pair,
				      json_array_size(pairs));
		return NULL;
	}
	fprintf(stderr, "nodus show: '%s' is part of %d pair ids; name one:\n", pair, partial);
	json_array_foreach(pairs, i, p) {
		const char *id = json_string_value(json_object_get(p, "id"));
		if (id && strstr(id, pair))
			fprintf(stderr, "  %s\n", id);
	}
	return NULL;
}

static void print_time(const char *what, double unix_s)
{
	char when[40] = "unknown";
	if (isfinite(unix_s) && unix_s > 0) {
		time_t t = (time_t)unix_s;
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	printf("  %s: %s\n", what, when);
}

/* "%.6g", or "unknown" for NaN. */
static const char *g(double v, char *buf, size_t size)
{
	if (!isfinite(v))
		return "unknown";
	snprintf(buf, size, "%.6g", v);
	return buf;
}

/* Prints text with every line indented by four spaces. */
static void print_indented(const char *text)
{
	printf("    ");
	for (const char *p = text; *p; p++) {
		putchar(*p);
		if (*p == '\n' && p[1])
			printf("    ");
	}
	if (!*text || text[strlen(text) - 1] != '\n')
		putchar('\n');
}

static void print_detail(const char *detail_json)
{
	json_t *d = detail_json ? json_loads(detail_json, 0, NULL) : NULL;
	char *text = d ? json_dumps(d, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10)) : NULL;
	if (text) {
		printf("  detail:\n");
		print_indented(text);
	} else if (detail_json) {
		printf("  detail (not JSON):\n");
		print_indented(detail_json);
	}
	free(text);
	json_decref(d);
}

/* Where a record came from: the run that wrote it (detail.run) and, for
 * one a merge kept as a new attempt (detail.merged, docs/store.md), the
 * shard and its attempt there, and that it is another measurement beside
 * the deciding one. */
static const char *str_or_unknown(json_t *v)
{
	return json_is_string(v) ? json_string_value(v) : "unknown";
}

static void print_origin(const char *detail_json, int attempt, int decides)
{
	json_t *d = detail_json ? json_loads(detail_json, 0, NULL) : NULL;
	json_t *run = json_object_get(d, "run"), *m = json_object_get(d, "merged");
	if (run)
		printf("  run: %s on %s\n", str_or_unknown(json_object_get(run, "id")),
		       str_or_unknown(json_object_get(run, "host")));
	if (m)
		printf("  merged from %s (attempt %" JSON_INTEGER_FORMAT "%s there): another "
		       "measurement of this pair-condition; %s\n",
		       str_or_unknown(json_object_get(m, "from")),
		       json_integer_value(json_object_get(m, "attempt")),
		       json_is_true(json_object_get(m, "final")) ? ", final" : "",
		       decides == attempt ? "it decides" : "it does not decide");
	json_decref(d);
}

static int show_record(const nodus_record *r, void *ctx)
{
	struct show_walk *w = ctx;
	char b1[32], b2[32], b3[32];
	if (strcmp(r->pair_id, w->pair_id) != 0 ||
	    (w->condition && strcmp(r->condition, w->condition) != 0))
		return 0;
	w->shown++;
	int k = cond_slot(w, r->condition), decides = k < 0 ? 0 : abs(w->deciding[k]);
	const char *final = !r->final ? "" : decides == r->attempt ? " (final)"
					  : " (final, then tried again: it does not decide)";
	printf("\nattempt %d under %s%s: %s", r->attempt, r->condition, final,
	       nodus_status_name(r->status));
	if (r->status == NODUS_STATUS_OK)
		printf(" %s", r->verdict != NODUS_VERDICT_NONE ? nodus_verdict_name(r->verdict)
							     : nodus_label_name(r->label));
	printf("\n");
	print_origin(r->detail_json, r->attempt, decides);
	printf("  guard: %s\n", r->guard[0] ? r->guard : "-");
	printf("  speedup: %s [%s, %s]\n", g(r->speedup, b1, sizeof(b1)), g(r->ci_lo, b2, sizeof(b2)),
	       g(r->ci_hi, b3, sizeof(b3)));
	printf("  rounds: %d, looks: %d, samples: %d\n", r->rounds, r->looks, r->n_samples);
	printf("  median ns per call: candidate %s, reference %s\n",
	       g(r->cand_ns_median, b1, sizeof(b1)), g(r->ref_ns_median, b2, sizeof(b2)));
	printf("  max abs error %s, max rel error %s, matched ratio %s\n",
	       g(r->max_abs_err, b1, sizeof(b1)), g(r->max_rel_err, b2, sizeof(b2)),
	       g(r->matched_ratio, b3, sizeof(b3)));
	printf("  device %s s (charged share %s), ", g(r->device_s, b1, sizeof(b1)),
	       g(r->charge_share, b2, sizeof(b2)));
	printf("compile %s s (%d cached), ", g(r->compile_s, b1, sizeof(b1)), r->compile_cache_hits);
	printf("validation %s s, wall %s s\n", g(r->validation_s, b1, sizeof(b1)),
	       g(r->wall_s, b2, sizeof(b2)));
	printf("  target: %s\n", r->target_hash[0] ? r->target_hash : "unknown");
	print_time("started", r->started_at);
	print_time("finished", r->finished_at);
	if (r->message && r->message[0]) {
		printf("  message:\n");
		print_indented(r->message);
	} else {
		printf("  message: -\n");
	}
	print_detail(r->detail_json);
	return 0;
}

static int print_pair(json_t *plan, const char *id)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(plan, "pairs"), i, p) {
		if (strcmp(json_string_value(json_object_get(p, "id")), id) != 0)
			continue;
		const char *expect = json_string_value(json_object_get(p, "expect"));
		printf("pair %s of plan %.12s\n", id, json_string_value(json_object_get(plan, "digest")));
		printf("  task %s, workload %s, candidate %s, reference %s, expect %s\n",
		       json_string_value(json_object_get(p, "task")),
		       json_string_value(json_object_get(p, "workload")),
		       json_string_value(json_object_get(p, "candidate")),
		       json_string_value(json_object_get(p, "reference")), expect ? expect : "-");
	}
	return 0;
}

/* 1 if plan has a condition named name. */
static int has_condition(json_t *plan, const char *name)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(plan, "conditions"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
			return 1;
	return 0;
}

int nodus_cmd_show(int argc, char **argv, const nodus_cli_ctx *ctx)
{
	struct show_args a = {0};
	nodus_error err = {0};
	nodus_store *s = NULL;
	char *plan_text = NULL;
	json_t *plan = NULL;
	int exit_code = NODUS_EXIT_OK;
	(void)ctx;
	if (parse_args(argc, argv, &a, &exit_code))
		return exit_code;
	int rc = nodus_store_open_readonly(a.db, &s, &err);
	if (rc == 0)
		rc = nodus_store_get_plan(s, a.plan, &plan_text, &err);
	if (rc) {
		nodus_cli_print_error(&err);
		exit_code = nodus_cli_exit_for(rc);
		goto out;
	}
	plan = json_loads(plan_text, 0, NULL);
	const char *digest = json_string_value(json_object_get(plan, "digest"));
	if (!digest) {
		fprintf(stderr, "nodus show: %s: the stored plan is not a plan document\n", a.db);
		exit_code = NODUS_EXIT_INTERNAL;
		goto out;
	}
	const char *id = find_pair(plan, a.pair);
	if (!id) {
		exit_code = NODUS_EXIT_USAGE;
		goto out;
	}
	if (a.condition && !has_condition(plan, a.condition)) {
		exit_code = nodus_cli_usage_error("show", "plan %.12s has no condition '%s'", digest,
						  a.condition);
		goto out;
	}
	print_pair(plan, id);
	struct show_walk w;
	memset(&w, 0, sizeof(w));
	w.pair_id = id;
	w.condition = a.condition;
	rc = nodus_store_foreach_record(s, digest, 0, 0, find_deciding, &w, &err);
	if (rc == 0)
		rc = nodus_store_foreach_record(s, digest, 0, 1, show_record, &w, &err);
	if (rc) {
		nodus_cli_print_error(&err);
		exit_code = nodus_cli_exit_for(rc);
		goto out;
	}
	if (w.shown == 0)
		printf("\nno attempt yet%s%s\n", a.condition ? " under " : "",
		       a.condition ? a.condition : "");
out:
	json_decref(plan);
	free(plan_text);
	nodus_store_close(s);
	return exit_code;
}
