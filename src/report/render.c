/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * render.c: draws a report document (report.c) as text for a terminal, as
 * indented JSON, or as CSV with one row per pair x condition. Renderers
 * only read the document, so every format shows the same numbers and the
 * same expect marks (pairs[].expect_mismatch, decided in report.c).
 * ------------------------------------------------------------------------ */
#include "report/report.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static int num(const json_t *o, const char *key, double *v)
{
	json_t *x = json_object_get(o, key);
	if (!json_is_number(x))
		return 0;
	*v = json_number_value(x);
	return 1;
}

/* "1.52 [1.40, 1.66]", "n/a" when null; parts may be null separately. */
static void add_interval(nodus_buf *b, const json_t *iv, const char *fmt)
{
	double e, lo, hi;
	if (!json_is_object(iv) || !num(iv, "estimate", &e)) {
		nodus_buf_adds(b, "n/a");
		return;
	}
	nodus_buf_addf(b, fmt, e);
	if (num(iv, "lo", &lo) && num(iv, "hi", &hi)) {
		nodus_buf_adds(b, " [");
		nodus_buf_addf(b, fmt, lo);
		nodus_buf_adds(b, ", ");
		nodus_buf_addf(b, fmt, hi);
		nodus_buf_adds(b, "]");
	}
}

/* 1 if the document marks pair p's outcome under condition name as
 * contradicting the pair's expect (report.c decides, by
 * nodus__report_expect_missed()). */
static int expect_missed(const json_t *p, const char *name)
{
	return json_is_true(json_object_get(json_object_get(p, "expect_mismatch"), name));
}

/* pairs[].decided_by of one condition: the deciding attempt (0 for none)
 * and the pair-condition's records; 1 when they are worth showing, i.e.
 * anything but one record that decides as attempt 1. */
static int decided_by(const json_t *p, const char *name, json_int_t *attempt,
		      json_int_t *attempts)
{
	const json_t *d = json_object_get(json_object_get(p, "decided_by"), name);
	*attempt = json_integer_value(json_object_get(d, "attempt"));
	*attempts = json_integer_value(json_object_get(d, "attempts"));
	return *attempts > 1 || (*attempts == 1 && *attempt != 1);
}

/* ---- text ---- */

static void text_header(const json_t *rep, nodus_buf *b)
{
	const json_t *plan = json_object_get(rep, "plan");
	double price;
	nodus_buf_addf(b, "nodus report: plan %.12s (%s), baseline %s\n", str(plan, "digest"),
		       str(plan, "name"), str(rep, "baseline"));
	nodus_buf_addf(b, "%" JSON_INTEGER_FORMAT " pairs, %" JSON_INTEGER_FORMAT
		       " conditions, %" JSON_INTEGER_FORMAT " records; ",
		       json_integer_value(json_object_get(plan, "pairs")),
		       json_integer_value(json_object_get(plan, "conditions")),
		       json_integer_value(json_object_get(plan, "records")));
	if (num(plan, "price_per_device_hour_usd", &price))
		nodus_buf_addf(b, "price $%g per device-hour\n", price);
	else
		nodus_buf_addf(b, "price unknown: %s\n", str(plan, "price_reason"));
	double psd;
	if (num(plan, "process_sd", &psd) && psd > 0)
		nodus_buf_addf(b, "intervals widened for the offset between two processes: judge "
			       "process_sd %g (docs/statistics.md, \"Between processes\")\n", psd);
	const char *task;
	json_t *tj;
	json_object_foreach(json_object_get(plan, "task_judges"), task, tj) {
		double m, sd;
		nodus_buf_addf(b, "task %s judged with its own", task);
		if (num(tj, "tie_margin", &m))
			nodus_buf_addf(b, " tie_margin %g", m);
		if (num(tj, "process_sd", &sd))
			nodus_buf_addf(b, " process_sd %g", sd);
		nodus_buf_adds(b, " (the judge's \"tasks\")\n");
	}
	nodus_buf_adds(b, "\n");
}

/* One cell of the pair table: "!" when the outcome contradicts the pair's
 * expect, the outcome, its interval, "d=5%" for a margin other than the
 * plan's, "#A/N" for the deciding attempt of N records; *missed and
 * *decided are set when a mark that the legend explains was used. */
static void text_cell(nodus_buf *cell, const json_t *p, const char *name, double plan_tie,
		      int *missed, int *decided)
{
	json_int_t att, atts;
	double tie;
	int m = expect_missed(p, name);
	*missed |= m;
	nodus_buf_addf(cell, "%s%s", m ? "!" : "", str(json_object_get(p, "labels"), name));
	json_t *sp = json_object_get(json_object_get(p, "speedups"), name);
	if (json_is_object(sp)) {
		nodus_buf_adds(cell, " ");
		add_interval(cell, sp, "%.3g");
	}
	/* labelled with another margin than the plan's (a short call) */
	if (json_is_object(sp) && num(sp, "tie_margin", &tie) && tie != plan_tie)
		nodus_buf_addf(cell, " d=%.3g%%", 100 * tie);
	if (!decided_by(p, name, &att, &atts))
		return;
	*decided = 1;
	if (att > 0)
		nodus_buf_addf(cell, " #%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT, att, atts);
	else
		nodus_buf_addf(cell, " #-/%" JSON_INTEGER_FORMAT, atts);
}

static void text_pairs(const json_t *rep, nodus_buf *b)
{
	const json_t *pairs = json_object_get(rep, "pairs"), *conds = json_object_get(rep, "conditions");
	double plan_tie = NAN;
	num(json_object_get(rep, "plan"), "tie_margin", &plan_tie);
	size_t i, k;
	json_t *p, *c;
	int w = 4;
	json_array_foreach(pairs, i, p)
		if ((int)strlen(str(p, "id")) > w)
			w = (int)strlen(str(p, "id"));
	nodus_buf_addf(b, "%-*s  %-10s", w, "pair", "expect");
	json_array_foreach(conds, k, c)
		nodus_buf_addf(b, "  %-36s", str(c, "name"));
	nodus_buf_adds(b, "\n");
	int any_missed = 0, any_decided = 0;
	json_array_foreach(pairs, i, p) {
		const char *expect = str(p, "expect");
		nodus_buf_addf(b, "%-*s  %-10s", w, str(p, "id"), *expect ? expect : "-");
		json_array_foreach(conds, k, c) {
			nodus_buf cell = NODUS_BUF_INIT;
			text_cell(&cell, p, str(c, "name"), plan_tie, &any_missed, &any_decided);
			nodus_buf_addf(b, "  %-36s", cell.data);
			nodus_buf_release(&cell);
		}
		nodus_buf_adds(b, "\n");
	}
	if (any_missed)
		nodus_buf_adds(b, "!OUTCOME: contradicts the pair's expect (docs/formats.md)\n");
	if (any_decided)
		nodus_buf_adds(b, "#A/N: decided by attempt A (-: no final one yet) of the pair's N "
			       "records under that condition (retries, or records db merge "
			       "--keep-both kept)\n");
}

/* How many pairs contradict their expect, then one line per such pair
 * with the conditions whose outcome does. */
static void text_expect(const json_t *rep, nodus_buf *b)
{
	size_t i, k;
	json_t *p, *c;
	int declared = 0;
	json_array_foreach(json_object_get(rep, "pairs"), i, p)
		declared += *str(p, "expect") != '\0';
	if (!declared) {
		nodus_buf_adds(b, "\nno pair declares an expect\n");
		return;
	}
	json_int_t n = json_integer_value(json_object_get(rep, "expect_mismatches"));
	nodus_buf_addf(b, "\n%" JSON_INTEGER_FORMAT " pair(s) contradict their expect (%d of %zu "
		       "pairs declare one)%s\n", n, declared,
		       json_array_size(json_object_get(rep, "pairs")), n ? ":" : "");
	json_array_foreach(json_object_get(rep, "pairs"), i, p) {
		int first = 1;
		json_array_foreach(json_object_get(rep, "conditions"), k, c) {
			const char *name = str(c, "name");
			if (!expect_missed(p, name))
				continue;
			if (first)
				nodus_buf_addf(b, "  %s: expect %s;", str(p, "id"), str(p, "expect"));
			nodus_buf_addf(b, "%s %s %s", first ? "" : ",", name,
				       str(json_object_get(p, "labels"), name));
			first = 0;
		}
		if (!first)
			nodus_buf_adds(b, "\n");
	}
}

/* Every final record's message in full, a line per record, the text's own
 * lines indented under it. */
static void text_messages(const json_t *rep, nodus_buf *b)
{
	size_t i, k;
	json_t *p, *c;
	int any = 0;
	json_array_foreach(json_object_get(rep, "pairs"), i, p) {
		json_array_foreach(json_object_get(rep, "conditions"), k, c) {
			const char *name = str(c, "name");
			const char *msg = str(json_object_get(p, "messages"), name);
			const char *guard = str(json_object_get(p, "guards"), name);
			if (!*msg)
				continue;
			if (!any++)
				nodus_buf_adds(b, "\nmessages of the final records:\n");
			nodus_buf_addf(b, "  %s under %s: %s%s%s:\n", str(p, "id"), name,
				       str(json_object_get(p, "labels"), name), *guard ? ", guard " : "",
				       guard);
			nodus_buf_adds(b, "    ");
			for (const char *m = msg; *m; m++) {
				nodus_buf_add(b, m, 1);
				if (*m == '\n' && m[1])
					nodus_buf_adds(b, "    ");
			}
			if (msg[strlen(msg) - 1] != '\n')
				nodus_buf_adds(b, "\n");
		}
	}
}

static void text_matrix(const json_t *c, const char *base, nodus_buf *b)
{
	const json_t *m = json_object_get(c, "matrix");
	const json_t *cats = json_object_get(m, "categories"), *rows = json_object_get(m, "counts");
	size_t i, j;
	json_t *x, *row;
	int w = 6;
	json_array_foreach(cats, i, x)
		if ((int)strlen(json_string_value(x)) > w)
			w = (int)strlen(json_string_value(x));
	nodus_buf_addf(b, "  matrix (rows: %s, columns: %s)\n    %-*s", base, str(c, "name"), w, "");
	json_array_foreach(cats, i, x)
		nodus_buf_addf(b, " %*s", w, json_string_value(x));
	nodus_buf_adds(b, "\n");
	json_array_foreach(rows, i, row) {
		nodus_buf_addf(b, "    %-*s", w, json_string_value(json_array_get(cats, i)));
		json_array_foreach(row, j, x)
			nodus_buf_addf(b, " %*" JSON_INTEGER_FORMAT, w, json_integer_value(x));
		nodus_buf_adds(b, "\n");
	}
}

static void text_cost(const json_t *c, nodus_buf *b)
{
	const json_t *cost = json_object_get(c, "cost"), *aa = json_object_get(c, "aa_noise");
	double v;
	nodus_buf_addf(b, "  cost: %" JSON_INTEGER_FORMAT " attempts (%" JSON_INTEGER_FORMAT
		       " retries, %" JSON_INTEGER_FORMAT " failures)",
		       json_integer_value(json_object_get(cost, "attempts")),
		       json_integer_value(json_object_get(cost, "retries")),
		       json_integer_value(json_object_get(cost, "failures")));
	if (num(cost, "device_s", &v))
		nodus_buf_addf(b, ", device %.4g s", v);
	if (num(cost, "compile_s", &v))
		nodus_buf_addf(b, ", compile %.4g s", v);
	if (num(cost, "validation_s", &v))
		nodus_buf_addf(b, ", validation %.4g s", v);
	if (num(cost, "usd", &v))
		nodus_buf_addf(b, ", $%.4g", v);
	else
		nodus_buf_addf(b, ", dollars unknown: %s", str(cost, "usd_reason"));
	if (num(cost, "device_s_per_attempt", &v))
		nodus_buf_addf(b, "; device %.4g s per attempt", v);
	if (num(cost, "device_s_per_agreeing", &v))
		nodus_buf_addf(b, ", %.4g s per agreeing label", v);
	nodus_buf_adds(b, "\n");
	if (num(c, "agreeing_per_usd", &v))
		nodus_buf_addf(b, "  agreeing records per dollar: %.4g\n", v);
	else
		nodus_buf_addf(b, "  agreeing records per dollar: unknown: %s\n",
			       str(c, "agreeing_per_usd_reason"));
	if (num(aa, "median_log_half_width", &v))
		nodus_buf_addf(b, "  A/A noise: median log half-width %.4g over %" JSON_INTEGER_FORMAT
			       " pairs", v, json_integer_value(json_object_get(aa, "with_interval")));
	else
		nodus_buf_adds(b, "  A/A noise: no A/A pair with an interval");
	if (json_integer_value(json_object_get(aa, "aa_pairs")) > 0)
		nodus_buf_addf(b, "; called faster %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT,
			       json_integer_value(json_object_get(aa, "called_faster")),
			       json_integer_value(json_object_get(aa, "aa_pairs")));
	double hw;
	if (num(aa, "rms_log_estimate", &v)) {
		nodus_buf_addf(b, "; their estimates' rms log %.4g over %" JSON_INTEGER_FORMAT
			       " (0 is the truth", v,
			       json_integer_value(json_object_get(aa, "with_estimate")));
		/* said only where it holds: the estimates spread more than their
		 * own intervals allow */
		if (num(aa, "median_log_half_width", &hw) && v > 2 * hw)
			nodus_buf_adds(b, "; far above the half-widths: an offset between processes, "
					  "the judge's process_sd");
		nodus_buf_adds(b, ")");
	}
	nodus_buf_adds(b, "\n");
	const json_t *es = json_object_get(c, "effect_scale");
	double lo, hi;
	if (num(es, "estimate", &v)) {
		nodus_buf_addf(b, "  effect sizes against the baseline's: median log ratio %.3g", v);
		if (num(es, "lo", &lo) && num(es, "hi", &hi))
			nodus_buf_addf(b, " [%.3g, %.3g]", lo, hi);
		nodus_buf_addf(b, " over %" JSON_INTEGER_FORMAT " pairs the baseline decided, %"
			       JSON_INTEGER_FORMAT " tasks (1 keeps an effect, 0.5 halves it)\n",
			       json_integer_value(json_object_get(es, "pairs")),
			       json_integer_value(json_object_get(es, "tasks")));
	}
}

/* The resolution curve: pairs that declare their true effect, by its size
 * and direction, and how many met their expect. */
static void text_resolution(const json_t *c, nodus_buf *b)
{
	const json_t *res = json_object_get(c, "resolution");
	if (json_array_size(res) == 0)
		return;
	nodus_buf_adds(b, "  resolution (pairs declaring their true effect): effect: met/pairs "
			  "(AMBIGUOUS, wrong, failed[, not run])\n   ");
	size_t i;
	json_t *r;
	json_array_foreach(res, i, r) {
		double pct = 0;
		num(r, "effect_pct", &pct);
		const char *dir = str(r, "direction");
		nodus_buf_addf(b, " %s%.3g%%: %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
			       strcmp(dir, "faster") == 0 ? "+" : strcmp(dir, "slower") == 0 ? "-" : "",
			       pct,
			       json_integer_value(json_object_get(r, "met")),
			       json_integer_value(json_object_get(r, "pairs")));
		json_int_t a = json_integer_value(json_object_get(r, "ambiguous")),
			   w = json_integer_value(json_object_get(r, "wrong")),
			   f = json_integer_value(json_object_get(r, "failed")),
			   m = json_integer_value(json_object_get(r, "missing"));
		if (m)
			nodus_buf_addf(b, " (%" JSON_INTEGER_FORMAT ", %" JSON_INTEGER_FORMAT
				       ", %" JSON_INTEGER_FORMAT ", %" JSON_INTEGER_FORMAT ")", a, w, f, m);
		else if (a || w || f)
			nodus_buf_addf(b, " (%" JSON_INTEGER_FORMAT ", %" JSON_INTEGER_FORMAT
				       ", %" JSON_INTEGER_FORMAT ")", a, w, f);
		nodus_buf_adds(b, (i + 1) % 6 == 0 && i + 1 < json_array_size(res) ? "\n   " : "");
	}
	nodus_buf_adds(b, "\n");
}

/* The compared pairs whose baseline has no label, by baseline outcome. */
static void text_left_out(const json_t *c, nodus_buf *b)
{
	size_t i, j;
	json_t *l, *id;
	json_array_foreach(json_object_get(c, "left_out"), i, l) {
		nodus_buf_addf(b, "  left out of the agreement: %" JSON_INTEGER_FORMAT " pair(s), %s:",
			       json_integer_value(json_object_get(l, "count")), str(l, "reason"));
		json_array_foreach(json_object_get(l, "pairs"), j, id)
			nodus_buf_addf(b, "%s %s", j ? "," : "", json_string_value(id));
		nodus_buf_adds(b, "\n");
	}
}

static void text_condition(const json_t *c, const char *base, nodus_buf *b)
{
	size_t i;
	json_t *f;
	nodus_buf_addf(b, "\ncondition %s (%s)%s: %" JSON_INTEGER_FORMAT
		       " pairs compared, %" JSON_INTEGER_FORMAT " excluded; %" JSON_INTEGER_FORMAT
		       " scored, %" JSON_INTEGER_FORMAT " agree with %s\n", str(c, "name"),
		       str(c, "kind"), json_is_true(json_object_get(c, "baseline")) ? " [baseline]" : "",
		       json_integer_value(json_object_get(c, "pairs")),
		       json_integer_value(json_object_get(c, "excluded")),
		       json_integer_value(json_object_get(c, "scored")),
		       json_integer_value(json_object_get(c, "agreeing")), base);
	const char *preset = str(c, "judge_preset");
	if (*preset)
		nodus_buf_addf(b, "  judged by the %s preset (docs/protocol.md, \"Presets\"): binary "
			       "verdicts, no interval; %s's FASTER is faster, its SLOWER and TIED "
			       "are not faster\n", preset, base);
	text_left_out(c, b);
	json_int_t checked = json_integer_value(json_object_get(c, "expect_checked"));
	if (checked > 0)
		nodus_buf_addf(b, "  contradict their expect: %" JSON_INTEGER_FORMAT " of %"
			       JSON_INTEGER_FORMAT " pairs that declare one\n",
			       json_integer_value(json_object_get(c, "expect_mismatches")), checked);
	const char *why = str(c, "not_enough_data");
	if (!json_is_number(json_object_get(json_object_get(c, "agreement"), "estimate"))) {
		nodus_buf_addf(b, "  agreement and kappa: %s\n", why);
	} else {
		nodus_buf_adds(b, "  agreement ");
		add_interval(b, json_object_get(c, "agreement"), "%.3f");
		nodus_buf_adds(b, "   kappa ");
		add_interval(b, json_object_get(c, "kappa"), "%.3f");
		nodus_buf_adds(b, "\n");
		if (*why)
			nodus_buf_addf(b, "  %s\n", why);
	}
	text_matrix(c, base, b);
	const json_t *ff = json_object_get(c, "false_fast");
	nodus_buf_addf(b, "  false fast (%s here, not in %s): %zu\n",
		       *preset ? "BINARY_FASTER" : "FASTER", base, json_array_size(ff));
	json_array_foreach(ff, i, f) {
		nodus_buf_addf(b, "    %s: %s ", str(f, "pair"), str(f, "label"));
		add_interval(b, json_object_get(f, "speedup"), "%.3g");
		nodus_buf_addf(b, "; %s %s ", base, str(f, "baseline"));
		add_interval(b, json_object_get(f, "baseline_speedup"), "%.3g");
		nodus_buf_adds(b, "\n");
	}
	const json_t *fu = json_object_get(c, "fast_unchecked");
	if (json_array_size(fu) > 0)
		nodus_buf_addf(b, "  FASTER here with no label in %s (unchecked): %zu\n", base,
			       json_array_size(fu));
	json_array_foreach(fu, i, f) {
		nodus_buf_addf(b, "    %s: %s ", str(f, "pair"), str(f, "label"));
		add_interval(b, json_object_get(f, "speedup"), "%.3g");
		nodus_buf_addf(b, "; %s %s\n", base, str(f, "baseline"));
	}
	text_cost(c, b);
	text_resolution(c, b);
}

static void render_text(const json_t *rep, nodus_buf *b)
{
	size_t i;
	json_t *c, *e;
	text_header(rep, b);
	text_pairs(rep, b);
	text_expect(rep, b);
	text_messages(rep, b);
	json_array_foreach(json_object_get(rep, "conditions"), i, c)
		text_condition(c, str(rep, "baseline"), b);
	const json_t *ex = json_object_get(rep, "excluded");
	nodus_buf_addf(b, "\nexcluded (target differs from the baseline's): %zu\n",
		       json_array_size(ex));
	json_array_foreach(ex, i, e)
		nodus_buf_addf(b, "  %s under %s: %s\n", str(e, "pair"), str(e, "condition"),
			       str(e, "reason"));
}

/* ---- CSV ---- */

static void csv_field(nodus_buf *b, const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n")) {
		nodus_buf_adds(b, "\"");
		for (; *s; s++)
			nodus_buf_adds(b, *s == '"' ? "\"\"" : (char[2]){*s, '\0'});
		nodus_buf_adds(b, "\"");
	} else {
		nodus_buf_adds(b, s);
	}
	nodus_buf_adds(b, last ? "\n" : ",");
}

static void csv_number(nodus_buf *b, const json_t *o, const char *key, int last)
{
	double v;
	if (num(o, key, &v))
		nodus_buf_addf(b, "%.10g", v);
	nodus_buf_adds(b, last ? "\n" : ",");
}

static int is_excluded(const json_t *rep, const char *pair, const char *cond)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(rep, "excluded"), i, e)
		if (strcmp(str(e, "pair"), pair) == 0 && strcmp(str(e, "condition"), cond) == 0)
			return 1;
	return 0;
}

static void render_csv(const json_t *rep, nodus_buf *b)
{
	const char *base = str(rep, "baseline");
	size_t i, k;
	json_t *p, *c;
	nodus_buf_adds(b, "plan_digest,pair_id,task,candidate,reference,expect,condition,kind,"
		       "baseline,outcome,baseline_outcome,agrees,excluded,expect_mismatch,attempt,"
		       "attempts,speedup,ci_lo,ci_hi,tie_margin,guard,message\n");
	json_array_foreach(json_object_get(rep, "pairs"), i, p) {
		const json_t *labels = json_object_get(p, "labels");
		json_array_foreach(json_object_get(rep, "conditions"), k, c) {
			const char *name = str(c, "name");
			const char *out = str(labels, name), *bout = str(labels, base);
			int excl = is_excluded(rep, str(p, "id"), name);
			csv_field(b, str(json_object_get(rep, "plan"), "digest"), 0);
			csv_field(b, str(p, "id"), 0);
			csv_field(b, str(p, "task"), 0);
			csv_field(b, str(p, "candidate"), 0);
			csv_field(b, str(p, "reference"), 0);
			csv_field(b, str(p, "expect"), 0);
			csv_field(b, name, 0);
			csv_field(b, str(c, "kind"), 0);
			csv_field(b, base, 0);
			csv_field(b, out, 0);
			csv_field(b, bout, 0);
			/* report.c decides agreement; null: not scored (excluded, or no
			 * baseline label) */
			const json_t *ag = json_object_get(json_object_get(p, "agrees"), name);
			csv_field(b, json_is_boolean(ag) ? json_is_true(ag) ? "1" : "0" : "", 0);
			csv_field(b, excl ? "1" : "0", 0);
			const json_t *m = json_object_get(json_object_get(p, "expect_mismatch"), name);
			csv_field(b, json_is_boolean(m) ? json_is_true(m) ? "1" : "0" : "", 0);
			const json_t *d = json_object_get(json_object_get(p, "decided_by"), name);
			csv_number(b, d, "attempt", 0);
			csv_number(b, d, "attempts", 0);
			json_t *sp = json_object_get(json_object_get(p, "speedups"), name);
			csv_number(b, sp, "estimate", 0);
			csv_number(b, sp, "lo", 0);
			csv_number(b, sp, "hi", 0);
			csv_number(b, sp, "tie_margin", 0);
			csv_field(b, str(json_object_get(p, "guards"), name), 0);
			csv_field(b, str(json_object_get(p, "messages"), name), 1);
		}
	}
}

int nodus_report_render(const json_t *report, nodus_report_format format, nodus_buf *out,
			nodus_error *err)
{
	size_t before = out->len;
	if (format == NODUS_REPORT_JSON) {
		char *s = json_dumps(report, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		if (!s)
			return NODUS_ERR(err, NODUS_ENOMEM, "out of memory rendering the report");
		int rc = nodus_buf_adds(out, s);
		free(s);
		if (rc == 0)
			rc = nodus_buf_adds(out, "\n");
		return rc ? NODUS_ERR(err, NODUS_ENOMEM, "out of memory rendering the report") : 0;
	}
	if (format == NODUS_REPORT_TEXT)
		render_text(report, out);
	else if (format == NODUS_REPORT_CSV)
		render_csv(report, out);
	else if (format == NODUS_REPORT_HTML)
		nodus__report_render_html(report, out);
	else
		return NODUS_ERR(err, NODUS_EINVAL, "unknown report format %d", (int)format);
	/* The renderers do not check every append; nodus_buf keeps its
	 * content when one fails, so memory running out shows here only when
	 * nothing could be written at all (a known limit). */
	if (out->len == before)
		return NODUS_ERR(err, NODUS_ENOMEM, "out of memory rendering the report");
	return 0;
}
