/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * stats-probe.c: exposes the functions of src/measure/stats.h to the
 * oracle tests (tests/oracle/test_stats.py), which compare them with
 * numpy, scipy and scikit-learn.
 *
 * Reads one JSON request from stdin, or an array of requests (one process
 * for thousands of cases), and writes the result (or the array of results)
 * as JSON on stdout. A request names the function in "fn" and passes its
 * arguments by the names used in stats.h:
 *
 *   {"fn":"t_quantile","p":0.975,"df":9}          -> {"value":2.262...}
 *   {"fn":"t_interval","x":[...],"conf":0.95}     -> {"rc":0,"estimate":..,"lo":..,"hi":..}
 *   {"fn":"speedup_bootstrap","rounds":[[...],[...]],"conf":0.95,
 *    "resamples":2000,"seed":1}                   -> {"rc":0,"estimate":..,"lo":..,"hi":..}
 *   {"fn":"agreement_bootstrap","a":[..],"b":[..],"cluster":[..],"k":4,
 *    "n_clusters":3,"conf":0.95,"resamples":2000,"seed":1}
 *                                                 -> {"rc":0,"agreement":{..},"kappa":{..}}
 *   quantile {x,q}, median {x}, mean {x}, stddev {x}, cohen_kappa {a,b,k},
 *   agreement {a,b}, look_confidence {conf,max_looks}, look_count and
 *   is_look {min_rounds,max_rounds,look_every[,rounds_done]} -> {"value":..};
 *   normal_quantile {p} -> {"value":..}; widen_for_processes
 *   {estimate,lo,hi,sd,conf} -> {"rc":0,"estimate":..,"lo":..,"hi":..};
 *   label {lo,hi,delta} -> {"label":"TIED"}; rng {seed,count[,below]} ->
 *   {"values":["123",...]} (values as decimal strings: 64-bit values do not
 *   fit a JSON number exactly; seeds and below may be strings too).
 *
 * NaN is written as null, infinities as the strings "inf" and "-inf".
 * Reals carry 17 significant digits, so doubles round-trip. A request the
 * probe cannot serve yields {"error":"..."}; unreadable input exits 2.
 * ------------------------------------------------------------------------ */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "measure/stats.h"
#include "measure/stats_looks.h"
#include "nodus/nodus.h"

static json_t *real(double v)
{
	if (isnan(v))
		return json_null();
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

static json_t *value(double v)
{
	return json_pack("{s:o}", "value", real(v));
}

static json_t *error(const char *msg)
{
	return json_pack("{s:s}", "error", msg);
}

static double num(const json_t *req, const char *key)
{
	const json_t *v = json_object_get(req, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* An integer argument; 0 when missing or not a number in int range, which
 * the library then rejects where 0 is invalid. */
static int inum(const json_t *req, const char *key)
{
	double v = num(req, key);

	return v >= -2147483648.0 && v <= 2147483647.0 ? (int)v : 0;
}

/* Seeds and bounds: a JSON integer or a decimal string (for values above
 * 2^63); 0 when missing. */
static uint64_t u64(const json_t *req, const char *key)
{
	const json_t *v = json_object_get(req, key);

	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	return json_is_string(v) ? strtoull(json_string_value(v), NULL, 10) : 0;
}

/* Reads an array of numbers into a heap array (at least one element
 * allocated); returns its length, or -1 when key is missing or not numeric. */
static int doubles(const json_t *req, const char *key, double **out)
{
	const json_t *arr = json_object_get(req, key), *v;
	size_t i;

	*out = NULL;
	if (!json_is_array(arr))
		return -1;
	*out = calloc(json_array_size(arr) + 1, sizeof **out);
	if (!*out)
		return -1;
	json_array_foreach(arr, i, v) {
		if (!json_is_number(v))
			return -1;
		(*out)[i] = json_number_value(v);
	}
	return (int)json_array_size(arr);
}

static int ints(const json_t *req, const char *key, int **out)
{
	const json_t *arr = json_object_get(req, key), *v;
	size_t i;

	*out = NULL;
	if (!json_is_array(arr))
		return -1;
	*out = calloc(json_array_size(arr) + 1, sizeof **out);
	if (!*out)
		return -1;
	json_array_foreach(arr, i, v) {
		if (!json_is_integer(v))
			return -1;
		(*out)[i] = (int)json_integer_value(v);
	}
	return (int)json_array_size(arr);
}

static json_t *interval(int rc, const nodus_interval *ci)
{
	if (rc != 0)
		return json_pack("{s:i}", "rc", rc);
	return json_pack("{s:i,s:o,s:o,s:o}", "rc", rc, "estimate", real(ci->estimate), "lo",
			 real(ci->lo), "hi", real(ci->hi));
}

static json_t *do_descriptive(const json_t *req, const char *fn)
{
	double *x;
	int n = doubles(req, "x", &x);
	json_t *res;

	if (n < 0)
		res = error("x: expected an array of numbers");
	else if (!strcmp(fn, "quantile"))
		res = value(nodus_stats_quantile(x, n, num(req, "q")));
	else if (!strcmp(fn, "median"))
		res = value(nodus_stats_median(x, n));
	else if (!strcmp(fn, "mean"))
		res = value(nodus_stats_mean(x, n));
	else if (!strcmp(fn, "stddev"))
		res = value(nodus_stats_stddev(x, n));
	else {
		nodus_interval ci;
		res = interval(nodus_stats_t_interval(x, n, num(req, "conf"), &ci), &ci);
	}
	free(x);
	return res;
}

static json_t *do_speedup_bootstrap(const json_t *req)
{
	const json_t *rounds = json_object_get(req, "rounds"), *round;
	size_t r, n_rounds = json_array_size(rounds);
	double **logr = calloc(n_rounds + 1, sizeof *logr);
	int *n = calloc(n_rounds + 1, sizeof *n);
	json_t *res = NULL, *tmp;
	nodus_interval ci;

	if (!json_is_array(rounds) || !logr || !n) {
		res = error("rounds: expected an array of arrays of numbers");
		goto out;
	}
	json_array_foreach(rounds, r, round) {
		tmp = json_pack("{s:O}", "x", round);
		n[r] = doubles(tmp, "x", &logr[r]);
		json_decref(tmp);
		if (n[r] < 0) {
			res = error("rounds: expected an array of arrays of numbers");
			goto out;
		}
	}
	res = interval(nodus_stats_speedup_bootstrap((const double *const *)logr, n,
						     (int)n_rounds, num(req, "conf"),
						     inum(req, "resamples"),
						     u64(req, "seed"), &ci),
		       &ci);
out:
	for (r = 0; logr && r < n_rounds; r++)
		free(logr[r]);
	free(logr);
	free(n);
	return res;
}

static json_t *do_labels(const json_t *req, const char *fn)
{
	int *a, *b, *cluster = NULL, na = ints(req, "a", &a), nb = ints(req, "b", &b);
	json_t *res;

	if (na < 0 || nb != na) {
		res = error("a, b: expected integer arrays of equal length");
	} else if (!strcmp(fn, "agreement")) {
		res = value(nodus_stats_agreement(a, b, na));
	} else if (!strcmp(fn, "cohen_kappa")) {
		res = value(nodus_stats_cohen_kappa(a, b, na, inum(req, "k")));
	} else if (ints(req, "cluster", &cluster) != na) {
		res = error("cluster: expected an integer array as long as a");
	} else {
		nodus_interval ag, ka;
		int rc = nodus_stats_agreement_bootstrap(
			a, b, cluster, na, inum(req, "k"), inum(req, "n_clusters"),
			num(req, "conf"), inum(req, "resamples"), u64(req, "seed"),
			&ag, &ka);
		res = json_pack("{s:i}", "rc", rc);
		if (rc == 0) {
			json_object_set_new(res, "agreement", interval(0, &ag));
			json_object_set_new(res, "kappa", interval(0, &ka));
		}
	}
	free(a);
	free(b);
	free(cluster);
	return res;
}

static json_t *do_rng(const json_t *req)
{
	nodus_rng r;
	int count = inum(req, "count");
	int bounded = json_object_get(req, "below") != NULL;
	uint64_t below = u64(req, "below");
	json_t *vals = json_array();
	char buf[32];

	nodus_rng_seed(&r, u64(req, "seed"));
	for (int i = 0; i < count; i++) {
		uint64_t v = bounded ? nodus_rng_below(&r, below) : nodus_rng_next(&r);
		snprintf(buf, sizeof buf, "%" PRIu64, v);
		json_array_append_new(vals, json_string(buf));
	}
	return json_pack("{s:o}", "values", vals);
}

static json_t *serve(const json_t *req)
{
	const char *fn = json_string_value(json_object_get(req, "fn"));

	if (!fn)
		return error("fn: expected a string");
	if (!strcmp(fn, "quantile") || !strcmp(fn, "median") || !strcmp(fn, "mean") ||
	    !strcmp(fn, "stddev") || !strcmp(fn, "t_interval"))
		return do_descriptive(req, fn);
	if (!strcmp(fn, "t_quantile"))
		return value(nodus_stats_t_quantile(num(req, "p"), num(req, "df")));
	if (!strcmp(fn, "speedup_bootstrap"))
		return do_speedup_bootstrap(req);
	if (!strcmp(fn, "agreement") || !strcmp(fn, "cohen_kappa") ||
	    !strcmp(fn, "agreement_bootstrap"))
		return do_labels(req, fn);
	if (!strcmp(fn, "look_confidence"))
		return value(nodus_stats_look_confidence(num(req, "conf"),
							 inum(req, "max_looks")));
	if (!strcmp(fn, "look_count"))
		return value(nodus_stats_look_count(inum(req, "min_rounds"),
						    inum(req, "max_rounds"),
						    inum(req, "look_every")));
	if (!strcmp(fn, "is_look"))
		return value(nodus_stats_is_look(inum(req, "rounds_done"),
						 inum(req, "min_rounds"),
						 inum(req, "max_rounds"),
						 inum(req, "look_every")));
	if (!strcmp(fn, "normal_quantile"))
		return value(nodus_stats_normal_quantile(num(req, "p")));
	if (!strcmp(fn, "widen_for_processes")) {
		nodus_interval in = {num(req, "estimate"), num(req, "lo"), num(req, "hi")}, out;
		int rc = nodus_stats_widen_for_processes(&in, num(req, "sd"), num(req, "conf"), &out);
		if (rc)
			return json_pack("{s:i}", "rc", rc);
		return json_pack("{s:i,s:o,s:o,s:o}", "rc", 0, "estimate", real(out.estimate), "lo",
				 real(out.lo), "hi", real(out.hi));
	}
	if (!strcmp(fn, "label")) {
		nodus_interval ci = {1.0, num(req, "lo"), num(req, "hi")};
		return json_pack("{s:s}", "label",
				 nodus_label_name(nodus_stats_label(&ci, num(req, "delta"))));
	}
	if (!strcmp(fn, "rng"))
		return do_rng(req);
	return error("fn: unknown function");
}

int main(void)
{
	json_error_t jerr;
	json_t *req = json_loadf(stdin, 0, &jerr), *res, *item;
	size_t i;
	char *text;

	if (!req) {
		fprintf(stderr, "stats-probe: <stdin>:%d:%d: %s\n", jerr.line, jerr.column,
			jerr.text);
		return 2;
	}
	if (json_is_array(req)) {
		res = json_array();
		json_array_foreach(req, i, item)
			json_array_append_new(res, serve(item));
	} else {
		res = serve(req);
	}
	text = json_dumps(res, JSON_REAL_PRECISION(17) | JSON_COMPACT);
	if (!text || puts(text) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "stats-probe: cannot write the result\n");
		return 2;
	}
	free(text);
	json_decref(res);
	json_decref(req);
	return 0;
}
