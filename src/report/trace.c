/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * trace.c: final records as FlashInfer-Bench Trace JSONL, one line per
 * (pair, condition), so that tooling built for that format can read what
 * nodus measured.
 *
 * A line is {definition, workload {uuid, axes, inputs}, solution,
 * evaluation {status, environment, timestamp, log, correctness,
 * performance}}. FlashInfer-Bench's statuses are fewer than nodus's: OK is
 * PASSED; INCORRECT_SHAPE, INCORRECT_NUMERICAL, RUNTIME_ERROR,
 * COMPILE_ERROR and TIMEOUT keep their names; every other status (a caught
 * exploit, a crash, a failed isolation check ...) is RUNTIME_ERROR with
 * nodus's own status and guard in the log; the log always ends with the
 * record's whole message (the compiler's errors, the tolerance detail, the
 * signal). Its validator's rules are kept:
 * PASSED carries correctness and performance, INCORRECT_NUMERICAL only
 * correctness, everything else neither. What nodus knows beyond the format
 * (label, interval, condition, plan, attempt) goes under correctness.extra.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"

static const char *fib_status(int status)
{
	switch (status) {
	case NODUS_STATUS_OK:
		return "PASSED";
	case NODUS_STATUS_INCORRECT_SHAPE:
	case NODUS_STATUS_INCORRECT_NUMERICAL:
	case NODUS_STATUS_RUNTIME_ERROR:
	case NODUS_STATUS_COMPILE_ERROR:
	case NODUS_STATUS_TIMEOUT:
		return nodus_status_name(status);
	}
	return "RUNTIME_ERROR";
}

static json_t *find_pair(json_t *plan, const char *id)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(plan, "pairs"), i, p)
	{
		if (strcmp(json_string_value(json_object_get(p, "id")), id) == 0)
			return p;
	}
	return NULL;
}

static const char *hardware_of(const nodus_report_data *d, const char *target_hash)
{
	for (int i = 0; i < d->n_targets; i++) {
		if (strcmp(d->target_hash[i], target_hash) != 0)
			continue;
		static char name[128];
		json_t *fp = json_loads(d->target_json[i], 0, NULL);
		const char *n = json_string_value(json_object_get(fp, "name"));
		if (!n)
			n = json_string_value(json_object_get(fp, "cpu_model"));
		snprintf(name, sizeof(name), "%s", n ? n : "unknown");
		json_decref(fp);
		return name;
	}
	return "unknown";
}

static json_t *trace_line(const nodus_report_data *d, json_t *plan, const nodus_record *r)
{
	json_t *pair = find_pair(plan, r->pair_id);
	if (!pair)
		return NULL;
	json_t *inputs = json_object();
	json_t *names = json_object_get(pair, "inputs");
	size_t i;
	json_t *n;
	json_array_foreach(names, i, n)
	{
		json_object_set_new(inputs, json_string_value(n), json_pack("{s:s}", "type", "random"));
	}
	json_t *axes = json_object_get(pair, "axes");
	json_t *workload = json_pack("{s:O,s:O*,s:o}", "uuid", json_object_get(pair, "workload"),
				     "axes", axes ? axes : NULL, "inputs", inputs);
	if (!axes)
		json_object_set_new(workload, "axes", json_object());

	char when[32];
	time_t t = (time_t)r->finished_at;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* the status, the guard and the record's whole message */
	nodus_buf log = NODUS_BUF_INIT;
	nodus_buf_addf(&log, "nodus %s%s%s", nodus_status_name(r->status),
		       r->guard[0] ? ", guard " : "", r->guard);
	if (r->message && r->message[0])
		nodus_buf_addf(&log, ": %s", r->message);
	json_t *log_text = json_string(log.data);
	if (!log_text) { /* a compiler's output need not be UTF-8 */
		for (size_t k = 0; k < log.len; k++)
			if ((unsigned char)log.data[k] > 0x7f)
				log.data[k] = '?';
		log_text = json_string(log.data);
	}
	nodus_buf_release(&log);

	json_t *extra = json_pack("{s:s,s:s,s:i,s:s}", "nodus_condition", r->condition,
				  "nodus_plan", d->plan_digest, "nodus_attempt", r->attempt,
				  "nodus_status", nodus_status_name(r->status));
	if (r->status == NODUS_STATUS_OK) {
		json_object_set_new(extra, "nodus_label", json_string(nodus_label_name(r->label)));
		json_object_set_new(extra, "nodus_speedup_interval",
				    json_pack("[f,f]", r->ci_lo, r->ci_hi));
	}
	json_t *eval = json_pack("{s:s,s:{s:s,s:{}},s:s,s:o*}", "status", fib_status(r->status),
				 "environment", "hardware", hardware_of(d, r->target_hash), "libs",
				 "timestamp", when, "log", log_text);
	int passed = r->status == NODUS_STATUS_OK;
	if (passed || r->status == NODUS_STATUS_INCORRECT_NUMERICAL) {
		json_t *corr = json_object();
		json_object_set_new(corr, "max_relative_error",
				    isfinite(r->max_rel_err) ? json_real(r->max_rel_err) : json_real(0));
		json_object_set_new(corr, "max_absolute_error",
				    isfinite(r->max_abs_err) ? json_real(r->max_abs_err) : json_real(0));
		json_object_set_new(corr, "extra", extra);
		extra = NULL;
		json_object_set_new(eval, "correctness", corr);
	}
	if (passed && isfinite(r->cand_ns_median) && isfinite(r->ref_ns_median))
		json_object_set_new(eval, "performance",
				    json_pack("{s:f,s:f,s:f}", "latency_ms", r->cand_ns_median * 1e-6,
					      "reference_latency_ms", r->ref_ns_median * 1e-6,
					      "speedup_factor", r->speedup));
	if (extra) /* no correctness block to carry it: the log says the status */
		json_decref(extra);
	return json_pack("{s:O,s:o,s:O,s:o}", "definition", json_object_get(pair, "task"),
			 "workload", workload, "solution", json_object_get(pair, "candidate"),
			 "evaluation", eval);
}

int nodus_report_trace(const nodus_report_data *d, nodus_buf *out, nodus_error *err)
{
	json_t *plan = json_loads(d->plan_json, 0, NULL);
	if (!plan)
		return NODUS_ERR(err, NODUS_EPARSE, "the stored plan is not JSON");
	int rc = 0;
	for (int k = 0; k < d->n_records && !rc; k++) {
		const nodus_record *r = &d->records[k];
		if (!r->final)
			continue;
		json_t *line = trace_line(d, plan, r);
		if (!line)
			continue;
		char *text = json_dumps(line, JSON_COMPACT);
		json_decref(line);
		if (!text || nodus_buf_adds(out, text) || nodus_buf_adds(out, "\n"))
			rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory writing the trace");
		free(text);
	}
	json_decref(plan);
	return rc;
}
