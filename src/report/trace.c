/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * trace.c: final records as FlashInfer-Bench Trace lines, one per (pair,
 * condition), so that tooling built for that format can read what nodus
 * measured: the single-file JSONL export here, and the lines dataset.c
 * writes into a whole dataset.
 *
 * A line is {definition, workload {uuid, axes, inputs}, solution,
 * evaluation {status, environment, timestamp, log, correctness,
 * performance}}. Every key names the condition: definition TASK@CONDITION,
 * workload uuid WORKLOAD@CONDITION, solution CANDIDATE@CONDITION, because
 * FlashInfer-Bench picks its "best" trace per definition over every trace
 * it holds: a speedup measured beside co-tenants must never compete with
 * the isolated ones.
 *
 * Whose fault a record is decides where it goes (trace_fault() holds the
 * table; docs/report.md repeats it). A failure of the harness, not of the
 * candidate (NOT_ISOLATED, INVALID_REFERENCE, a backend nodus could not
 * open, a worker nodus could not set up), is no trace: FlashInfer-Bench
 * has no status for it, and RUNTIME_ERROR would blame the candidate. The
 * single-file export leaves it out and counts it; the dataset keeps it in
 * a side file. For the candidate's own outcomes, OK is PASSED;
 * INCORRECT_SHAPE, INCORRECT_NUMERICAL, RUNTIME_ERROR, COMPILE_ERROR and
 * TIMEOUT keep their names; every other status (a caught exploit, a crash,
 * inputs written ...) is RUNTIME_ERROR with nodus's own status and guard in
 * the log; the log always ends with the record's whole message (the
 * compiler's errors, the tolerance detail, the signal). The format's
 * validator's rules are kept: PASSED carries correctness and performance,
 * INCORRECT_NUMERICAL only correctness, everything else neither. What
 * nodus knows beyond the format (label, interval, condition, plan,
 * attempt) goes under correctness.extra.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"

/* The stage a worker names in front of its failure message ("backend: ...",
 * run/worker.c's fail_err()), when msg starts with it. */
static int stage_is(const char *msg, const char *stage)
{
	size_t n = strlen(stage);
	return msg && strncmp(msg, stage, n) == 0 && msg[n] == ':';
}

/* 1 when r failed for a reason that is not the candidate's. Per status:
 *   NOT_ISOLATED        always: the machine was not quiet, not the code;
 *   INVALID_REFERENCE   always: the reference failed its own checks;
 *   LOAD_ERROR          when the worker's stage is "backend": nodus could
 *                       not open its cpu/cuda backend (no GPU, no driver);
 *                       stage "load" (a syntax error, no entry) is the
 *                       candidate's;
 *   CRASH               guard "harness" (the orchestrator's own fault: no
 *                       timer, no memory for samples, no randomness) or
 *                       stage "job"/"sandbox" (a worker nodus could not
 *                       set up, before any solution was loaded); a signal,
 *                       an early exit, a protocol fault or a failed guard
 *                       are the candidate's: it runs in that process and
 *                       may have caused them;
 * every other status (COMPILE_ERROR, RUNTIME_ERROR, TIMEOUT, INCORRECT_*,
 * INPUT_MUTATED, REWARD_HACK, OUT_OF_MEMORY) is the candidate's. */
static int trace_fault_is_harness(const nodus_record *r)
{
	switch (r->status) {
	case NODUS_STATUS_NOT_ISOLATED:
	case NODUS_STATUS_INVALID_REFERENCE:
		return 1;
	case NODUS_STATUS_LOAD_ERROR:
		return stage_is(r->message, "backend");
	case NODUS_STATUS_CRASH:
		return strcmp(r->guard, "harness") == 0 || stage_is(r->message, "job") ||
		       stage_is(r->message, "sandbox");
	}
	return 0;
}

const char *nodus__trace_status(const nodus_record *r)
{
	if (trace_fault_is_harness(r))
		return NULL;
	switch (r->status) {
	case NODUS_STATUS_OK:
		return "PASSED";
	case NODUS_STATUS_INCORRECT_SHAPE:
	case NODUS_STATUS_INCORRECT_NUMERICAL:
	case NODUS_STATUS_RUNTIME_ERROR:
	case NODUS_STATUS_COMPILE_ERROR:
	case NODUS_STATUS_TIMEOUT:
		return nodus_status_name(r->status);
	}
	return "RUNTIME_ERROR";
}

json_t *nodus__trace_key(const char *name, const char *condition)
{
	nodus_buf b = NODUS_BUF_INIT;
	json_t *key = NULL;
	if (nodus_buf_addf(&b, "%s@%s", name, condition) == 0)
		key = json_string(b.data);
	nodus_buf_release(&b);
	return key;
}

const json_t *nodus__trace_find_pair(const json_t *plan, const char *id)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(plan, "pairs"), i, p)
	{
		const char *pid = json_string_value(json_object_get(p, "id"));
		if (pid && strcmp(pid, id) == 0)
			return p;
	}
	return NULL;
}

static void hardware_of(const nodus_report_data *d, const char *target_hash, char *out,
			size_t size)
{
	snprintf(out, size, "unknown");
	for (int i = 0; i < d->n_targets; i++) {
		if (strcmp(d->target_hash[i], target_hash) != 0)
			continue;
		json_t *fp = json_loads(d->target_json[i], 0, NULL);
		const char *n = json_string_value(json_object_get(fp, "name"));
		if (!n)
			n = json_string_value(json_object_get(fp, "cpu_model"));
		if (n)
			snprintf(out, size, "%s", n);
		json_decref(fp);
		return;
	}
}

/* The record's finish time as ISO 8601 UTC into out (32 bytes). */
static void finished_iso(const nodus_record *r, char out[32])
{
	time_t t = (time_t)r->finished_at;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* text as a JSON string; a compiler's output need not be UTF-8, so bytes
 * above 0x7f become '?' when it is not. text is changed in that case. */
static json_t *lossy_string(nodus_buf *text)
{
	json_t *s = json_string(text->data);
	if (s)
		return s;
	for (size_t k = 0; k < text->len; k++)
		if ((unsigned char)text->data[k] > 0x7f)
			text->data[k] = '?';
	return json_string(text->data);
}

int nodus__trace_blob_path(const json_t *pair, const char *condition, char *out, size_t size)
{
	const char *task = json_string_value(json_object_get(pair, "task"));
	const char *wl = json_string_value(json_object_get(pair, "workload"));
	int n = snprintf(out, size, "blob/workloads/nodus/%s@%s/%s@%s_%s@%s.safetensors",
			 task ? task : "", condition, task ? task : "", condition, wl ? wl : "",
			 condition);
	return n < 0 || (size_t)n >= size ? NODUS_EINVAL : 0;
}

json_t *nodus__trace_workload(const json_t *pair, const char *condition)
{
	json_t *inputs = json_object();
	json_t *files = json_object_get(pair, "file_inputs");
	char blob[1024] = "";
	size_t i, k;
	json_t *n, *f;
	if (json_array_size(files))
		nodus__trace_blob_path(pair, condition, blob, sizeof(blob));
	json_array_foreach(json_object_get(pair, "inputs"), i, n)
	{
		int file = 0;
		json_array_foreach(files, k, f)
			file |= json_equal(f, n);
		/* a file input is what it was: a safetensors input, at the path
		 * the dataset export writes its tensor to (dataset.c), keyed by
		 * the input's name; every other input is nodus's own draw */
		if (file && blob[0])
			json_object_set_new(inputs, json_string_value(n),
					    json_pack("{s:s,s:s,s:s}", "type", "safetensors", "path",
						      blob, "tensor_key", json_string_value(n)));
		else
			json_object_set_new(inputs, json_string_value(n),
					    json_pack("{s:s}", "type", "random"));
	}
	json_t *axes = json_object_get(pair, "axes");
	json_t *uuid =
		nodus__trace_key(json_string_value(json_object_get(pair, "workload")), condition);
	return json_pack("{s:o,s:o,s:o}", "uuid", uuid, "axes",
			 axes ? json_incref(axes) : json_object(),
			 "inputs", inputs);
}

static json_t *evaluation(const nodus_report_data *d, const nodus_record *r, const char *status)
{
	char when[32], hardware[128];
	finished_iso(r, when);
	hardware_of(d, r->target_hash, hardware, sizeof(hardware));
	/* the status, the guard and the record's whole message */
	nodus_buf log = NODUS_BUF_INIT;
	nodus_buf_addf(&log, "nodus %s%s%s", nodus_status_name(r->status),
		       r->guard[0] ? ", guard " : "", r->guard);
	if (r->message && r->message[0])
		nodus_buf_addf(&log, ": %s", r->message);
	json_t *log_text = lossy_string(&log);
	nodus_buf_release(&log);

	json_t *eval = json_pack("{s:s,s:{s:s,s:{}},s:s,s:o*}", "status", status, "environment",
				 "hardware", hardware, "libs", "timestamp", when, "log", log_text);
	int passed = r->status == NODUS_STATUS_OK;
	if (passed || r->status == NODUS_STATUS_INCORRECT_NUMERICAL) {
		json_t *extra = json_pack("{s:s,s:s,s:i,s:s}", "nodus_condition", r->condition,
					  "nodus_plan", d->plan_digest, "nodus_attempt", r->attempt,
					  "nodus_status", nodus_status_name(r->status));
		if (passed && r->verdict != NODUS_VERDICT_NONE) {
			/* a preset's binary verdict: no label, no interval */
			json_object_set_new(extra, "nodus_verdict",
					    json_string(nodus_verdict_name(r->verdict)));
		} else if (passed) {
			json_object_set_new(extra, "nodus_label", json_string(nodus_label_name(r->label)));
			json_object_set_new(extra, "nodus_speedup_interval",
					    json_pack("[f,f]", r->ci_lo, r->ci_hi));
		}
		json_object_set_new(
			eval, "correctness",
			json_pack("{s:f,s:f,s:o*}", "max_relative_error",
				  isfinite(r->max_rel_err) ? r->max_rel_err : 0.0,
				  "max_absolute_error",
				  isfinite(r->max_abs_err) ? r->max_abs_err : 0.0, "extra", extra));
	}
	if (passed && isfinite(r->cand_ns_median) && isfinite(r->ref_ns_median) &&
	    isfinite(r->speedup))
		json_object_set_new(eval, "performance",
				    json_pack("{s:f,s:f,s:f}", "latency_ms", r->cand_ns_median * 1e-6,
					      "reference_latency_ms", r->ref_ns_median * 1e-6,
					      "speedup_factor", r->speedup));
	return eval;
}

json_t *nodus__trace_line(const nodus_report_data *d, const json_t *pair, const nodus_record *r)
{
	const char *status = nodus__trace_status(r);
	if (!status)
		return NULL;
	const char *task = json_string_value(json_object_get(pair, "task"));
	const char *cand = json_string_value(json_object_get(pair, "candidate"));
	if (!task || !cand)
		return NULL;
	return json_pack("{s:o,s:o,s:o,s:o}", "definition", nodus__trace_key(task, r->condition),
			 "workload", nodus__trace_workload(pair, r->condition), "solution",
			 nodus__trace_key(cand, r->condition), "evaluation",
			 evaluation(d, r, status));
}

json_t *nodus__trace_harness_line(const nodus_report_data *d, const json_t *pair,
				  const nodus_record *r)
{
	char when[32];
	finished_iso(r, when);
	nodus_buf msg = NODUS_BUF_INIT;
	nodus_buf_adds(&msg, r->message ? r->message : "");
	json_t *text = lossy_string(&msg);
	nodus_buf_release(&msg);
	return json_pack("{s:s,s:O*,s:O*,s:O*,s:O*,s:s,s:i,s:s,s:s,s:o,s:s,s:s}", "pair",
			 r->pair_id, "task", json_object_get(pair, "task"), "workload",
			 json_object_get(pair, "workload"), "candidate",
			 json_object_get(pair, "candidate"), "reference",
			 json_object_get(pair, "reference"), "condition", r->condition, "attempt",
			 r->attempt, "status", nodus_status_name(r->status), "guard", r->guard,
			 "message", text, "timestamp", when, "plan", d->plan_digest);
}

int nodus_report_trace(const nodus_report_data *d, nodus_buf *out, int *left_out,
		       nodus_error *err)
{
	json_t *plan = json_loads(d->plan_json, 0, NULL);
	if (!plan)
		return NODUS_ERR(err, NODUS_EPARSE, "the stored plan is not JSON");
	int rc = 0, harness = 0;
	for (int k = 0; k < d->n_records && !rc; k++) {
		const nodus_record *r = &d->records[k];
		const json_t *pair = nodus__trace_find_pair(plan, r->pair_id);
		if (!r->final || !pair)
			continue;
		if (!nodus__trace_status(r)) {
			harness++;
			continue;
		}
		json_t *line = nodus__trace_line(d, pair, r);
		char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
		json_decref(line);
		if (!text || nodus_buf_adds(out, text) || nodus_buf_adds(out, "\n"))
			rc = NODUS_ERR(err, NODUS_ENOMEM, "out of memory writing the trace");
		free(text);
	}
	json_decref(plan);
	if (left_out)
		*left_out = harness;
	return rc;
}
