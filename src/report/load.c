/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * load.c: the thin layer between the store and the report: copies a plan,
 * all its records (every attempt, without samples or free text) and the
 * fingerprints of the targets they name into a nodus_report_data, which
 * nodus_report_compute() then works on without touching SQLite.
 * ------------------------------------------------------------------------ */
#include "report/report.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nodus_report_data_init(nodus_report_data *d)
{
	memset(d, 0, sizeof(*d));
}

void nodus_report_data_release(nodus_report_data *d)
{
	free(d->plan_json);
	for (int i = 0; i < d->n_records; i++) {
		free(d->records[i].detail_json);
		free(d->records[i].message);
	}
	free(d->records);
	for (int i = 0; i < d->n_targets; i++) {
		free(d->target_hash[i]);
		free(d->target_json[i]);
	}
	free(d->target_hash);
	free(d->target_json);
	nodus_report_data_init(d);
}

/* Of a record's detail, the report needs only the tie margin that labelled
 * it, and the export which run wrote it (its "run": id and host) and where
 * a merged record came from (its "merged" object, which `nodus db merge`
 * adds): {"tie_margin": d, "run": {...}, "merged": {...}} with what the
 * record has of those, heap, or NULL when it has none. */
static char *report_detail(const char *detail_json)
{
	json_t *detail = detail_json ? json_loads(detail_json, 0, NULL) : NULL;
	json_t *tie = json_object_get(detail, "tie_margin");
	json_t *merged = json_object_get(detail, "merged");
	json_t *run = json_object_get(detail, "run");
	json_t *keep = json_object();
	char *out = NULL;
	if (json_is_number(tie))
		json_object_set(keep, "tie_margin", tie);
	if (json_is_object(merged))
		json_object_set(keep, "merged", merged);
	if (json_is_object(run))
		json_object_set(keep, "run", run);
	if (json_object_size(keep))
		out = json_dumps(keep, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(keep);
	json_decref(detail);
	return out;
}

/* foreach callback: keeps a copy of the record without borrowed parts. */
static int keep_record(const nodus_record *r, void *ctx)
{
	nodus_report_data *d = ctx;
	if (d->n_records == d->alloc_records) {
		int n = d->alloc_records ? d->alloc_records * 2 : 64;
		nodus_record *p = realloc(d->records, (size_t)n * sizeof(*p));
		if (!p)
			return NODUS_ENOMEM;
		d->records = p;
		d->alloc_records = n;
	}
	nodus_record *x = &d->records[d->n_records++];
	*x = *r;
	x->message = r->message ? strdup(r->message) : NULL;
	x->detail_json = report_detail(r->detail_json);
	if (r->message && !x->message) {
		free(x->detail_json);
		d->n_records--;
		return NODUS_ENOMEM;
	}
	x->samples = NULL;
	x->n_samples = 0;
	return 0;
}

static int have_target(const nodus_report_data *d, const char *hash)
{
	for (int i = 0; i < d->n_targets; i++)
		if (strcmp(d->target_hash[i], hash) == 0)
			return 1;
	return 0;
}

static int add_target(nodus_report_data *d, const char *hash, char *json)
{
	if (d->n_targets == d->alloc_targets) {
		int n = d->alloc_targets ? d->alloc_targets * 2 : 8;
		char **h = realloc(d->target_hash, (size_t)n * sizeof(*h));
		if (h)
			d->target_hash = h;
		char **j = realloc(d->target_json, (size_t)n * sizeof(*j));
		if (j)
			d->target_json = j;
		if (!h || !j)
			return NODUS_ENOMEM;
		d->alloc_targets = n;
	}
	d->target_hash[d->n_targets] = strdup(hash);
	if (!d->target_hash[d->n_targets])
		return NODUS_ENOMEM;
	d->target_json[d->n_targets++] = json;
	return 0;
}

/* Fingerprints of every target the records name, where the store has one. */
static int load_targets(nodus_store *s, nodus_report_data *d, nodus_error *err)
{
	for (int i = 0; i < d->n_records; i++) {
		const char *h = d->records[i].target_hash;
		char *json = NULL;
		if (have_target(d, h))
			continue;
		nodus_error lookup = {0};
		int rc = nodus_store_get_target(s, h, &json, &lookup);
		if (rc == NODUS_ENOTFOUND)
			continue;
		if (rc) {
			*err = lookup;
			return rc;
		}
		if (add_target(d, h, json)) {
			free(json);
			return NODUS_ERR(err, NODUS_ENOMEM, "out of memory");
		}
	}
	return 0;
}

/* The digest of a plan document, from its "digest" member. */
static int plan_digest(const char *plan_json, char out[NODUS_SHA256_HEX], nodus_error *err)
{
	json_t *plan = json_loads(plan_json, 0, NULL);
	const char *digest = json_string_value(json_object_get(plan, "digest"));
	int rc = 0;
	if (!digest || strlen(digest) != NODUS_SHA256_HEX - 1)
		rc = NODUS_ERR_AT(err, NODUS_EPARSE, "", 0, 0, "$.digest",
				  "the store's latest plan has no valid digest member; name the "
				  "plan with --plan");
	else
		memcpy(out, digest, NODUS_SHA256_HEX);
	json_decref(plan);
	return rc;
}

int nodus_report_load(nodus_store *s, const char *digest, nodus_report_data *d,
		      nodus_error *err)
{
	nodus_report_data_init(d);
	int rc = nodus_store_get_plan(s, digest, &d->plan_json, err);
	if (rc)
		goto out;
	if (digest)
		snprintf(d->plan_digest, sizeof(d->plan_digest), "%s", digest);
	else
		rc = plan_digest(d->plan_json, d->plan_digest, err);
	if (rc)
		goto out;
	rc = nodus_store_foreach_record(s, d->plan_digest, 0, 0, keep_record, d, err);
	if (rc == NODUS_ENOMEM)
		NODUS_ERR(err, NODUS_ENOMEM, "out of memory reading records");
	if (rc == 0)
		rc = load_targets(s, d, err);
out:
	if (rc)
		nodus_report_data_release(d);
	return rc;
}
