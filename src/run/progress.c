/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * progress.c: what `nodus run` says while it runs, for people or for
 * programs (--progress=text|json|none).
 *
 * text: "condition C: N pair(s) to run", one "[k/N] pair condition label
 * (elapsed, ETA)" line per record with a failure's message in full, and
 * "condition C: k of N pair(s) decided in S s".
 * json: the same events as one JSON object per line, flushed at once, so
 * that an RL loop or a farm's scheduler reads them from a pipe:
 *   {"event": "condition_start", "condition", "pairs"}
 *   {"event": "record", "k", "n", "pair", "condition", "attempt", "final",
 *    "status", "label" (null unless OK; null under a judge_preset, whose
 *    outcome is "verdict", else null), "guard", "message", "speedup",
 *    "ci_lo", "ci_hi" (null unless OK), "elapsed_s", "eta_s" (null when
 *    unknown)}
 *   {"event": "condition_end", "condition", "decided", "pairs", "elapsed_s"}
 *   {"event": "replay_start", "condition", "orchestrators"} (its shards'
 *   own lines follow, from their processes)
 * The closing summary is cmd-run.c's ("run_complete").
 * ------------------------------------------------------------------------ */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/run-internal.h"

static double elapsed_s(const struct run_ctx *x)
{
	return (double)(nodus_now_ns() - x->cond_started_ns) * 1e-9;
}

static void emit(const struct run_ctx *x, json_t *event)
{
	if (!event) /* never a silent gap in the stream */
		event = json_pack("{s:s,s:s}", "event", "error", "message",
				  "nodus could not write this event as JSON");
	if (event && json_dumpf(event, x->o->progress, JSON_COMPACT) == 0)
		fputc('\n', x->o->progress);
	fflush(x->o->progress);
	json_decref(event);
}

/* JSON has no NaN or infinity (jansson refuses them): null instead */
/* A message as JSON can carry it: valid UTF-8 (a byte that is not, such
 * as a candidate's own source in a compiler's error, becomes '?': jansson
 * would refuse the whole line), at most JSON_MESSAGE_MAX bytes so that a
 * line stays one atomic write on a pipe that replay shards share; `nodus
 * show DB PAIR` prints the whole message. */
#define JSON_MESSAGE_MAX 2048
static json_t *message_json(const char *msg)
{
	char out[JSON_MESSAGE_MAX + 8];
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)msg;
	while (*p && n < JSON_MESSAGE_MAX) {
		int len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3
					: (*p & 0xf8) == 0xf0 ? 4 : 0;
		int ok = len > 0 && n + (size_t)len <= JSON_MESSAGE_MAX;
		for (int k = 1; ok && k < len; k++)
			ok = (p[k] & 0xc0) == 0x80;
		if (ok && len > 1) { /* jansson's own word on overlongs and surrogates */
			json_t *one = json_stringn((const char *)p, (size_t)len);
			ok = one != NULL;
			json_decref(one);
		}
		if (!ok) {
			out[n++] = '?';
			p++;
			continue;
		}
		memcpy(out + n, p, (size_t)len);
		n += (size_t)len;
		p += len;
	}
	json_t *s = json_stringn(out, n);
	return s ? s : json_string("(the message is not valid UTF-8)");
}

static json_t *number_or_null(int known, double v)
{
	return known && isfinite(v) ? json_real(v) : json_null();
}

void progress_condition_start(const struct run_ctx *x, const nodus_condition *cond, int pairs)
{
	if (!x->o->progress)
		return;
	if (x->o->progress_json)
		emit(x, json_pack("{s:s,s:s,s:i}", "event", "condition_start", "condition",
				  cond->name, "pairs", pairs));
	else
		fprintf(x->o->progress, "condition %s: %d pair(s) to run\n", cond->name, pairs);
}

void progress_record(const struct run_ctx *x, const struct attempt *a, int final)
{
	if (!x->o->progress)
		return;
	int ok = a->status == NODUS_STATUS_OK;
	/* a preset's condition ends with a verdict, never a label */
	const char *outcome = !ok ? nodus_status_name(a->status)
			      : a->verdict != NODUS_VERDICT_NONE ? nodus_verdict_name(a->verdict)
								   : nodus_label_name(a->label);
	double el = elapsed_s(x); /* finite: a difference of two clock readings */
	int k = x->cond_decided, n = x->cond_pairs;
	int eta_known = k > 0 && k < n;
	double eta = eta_known ? el / k * (n - k) : 0;
	if (x->o->progress_json) {
		emit(x, json_pack("{s:s,s:i,s:i,s:s,s:s,s:i,s:b,s:s,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:f,s:o}",
				  "event", "record", "k", k, "n", n, "pair", a->pair->id,
				  "condition", x->cond->name, "attempt", a->attempt, "final", final,
				  "status", nodus_status_name(a->status), "label",
				  ok && a->verdict == NODUS_VERDICT_NONE
					  ? json_string(nodus_label_name(a->label))
					  : json_null(),
				  "verdict",
				  ok && a->verdict != NODUS_VERDICT_NONE
					  ? json_string(nodus_verdict_name(a->verdict))
					  : json_null(),
				  "guard", a->guard, "message", message_json(a->message), "speedup",
				  number_or_null(ok, a->ci.estimate), "ci_lo",
				  number_or_null(ok, a->ci.lo), "ci_hi", number_or_null(ok, a->ci.hi),
				  "elapsed_s", el, "eta_s", number_or_null(eta_known, eta)));
		return;
	}
	/* [k/N] pair condition label (elapsed, ETA): the message in full
	 * (nodus show DB PAIR prints every attempt) */
	char eta_text[48] = "";
	if (eta_known)
		snprintf(eta_text, sizeof(eta_text), ", ETA %.0f s", eta);
	fprintf(x->o->progress, "  [%d/%d] %-56s %-10s %-19s %s%s%s%s (%.0f s%s)\n", k, n,
		a->pair->id, x->cond->name,
		outcome, ok ? "" : a->guard,
		ok ? "" : ": ", ok ? "" : a->message, final ? "" : " (will retry)", el, eta_text);
}

void progress_replay(const struct run_ctx *x, const nodus_condition *cond, int orchestrators)
{
	if (!x->o->progress)
		return;
	if (x->o->progress_json)
		emit(x, json_pack("{s:s,s:s,s:i}", "event", "replay_start", "condition", cond->name,
				  "orchestrators", orchestrators));
	else
		fprintf(x->o->progress, "condition %s: %d orchestrators side by side\n", cond->name,
			orchestrators);
}

void progress_condition_end(const struct run_ctx *x, const nodus_condition *cond)
{
	if (!x->o->progress || x->cond_pairs <= 0)
		return;
	if (x->o->progress_json)
		emit(x, json_pack("{s:s,s:s,s:i,s:i,s:f}", "event", "condition_end", "condition",
				  cond->name, "decided", x->cond_decided, "pairs", x->cond_pairs,
				  "elapsed_s", elapsed_s(x)));
	else
		fprintf(x->o->progress, "condition %s: %d of %d pair(s) decided in %.0f s\n",
			cond->name, x->cond_decided, x->cond_pairs, elapsed_s(x));
}
