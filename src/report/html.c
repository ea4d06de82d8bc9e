/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * html.c: the report as one self-contained HTML page (no scripts, no
 * external files): the per-pair labels under every condition (a cell that
 * disagrees with a baseline label marked, one that contradicts the pair's
 * expect marked, the deciding attempt when there were several records, a
 * failure's message as its tooltip), every final record's message, and
 * per condition its agreement, kappa, the matrix as a heatmap, the
 * false-fast pairs with both intervals, the cost of every attempt, the A/A
 * noise against the tie margin and a figure -
 * each pair's speedup interval under the condition beside its interval in
 * the baseline, on a log axis, with the tie band shaded. Everything comes
 * from the report document (docs/report.md), nothing is recomputed.
 * ------------------------------------------------------------------------ */
#include <math.h>
#include <string.h>

#include "report/report.h"

static const char *sget(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void esc(nodus_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			nodus_buf_adds(b, "&lt;");
			break;
		case '>':
			nodus_buf_adds(b, "&gt;");
			break;
		case '&':
			nodus_buf_adds(b, "&amp;");
			break;
		case '"':
			nodus_buf_adds(b, "&quot;");
			break;
		default:
			nodus_buf_add(b, s, 1);
		}
	}
}

static const char *outcome_class(const char *o)
{
	/* a preset's verdicts take the colours of the labels they stand beside */
	if (strcmp(o, "FASTER") == 0 || strcmp(o, "BINARY_FASTER") == 0)
		return "f";
	if (strcmp(o, "SLOWER") == 0)
		return "s";
	if (strcmp(o, "BINARY_NOT_FASTER") == 0)
		return "t";
	if (strcmp(o, "TIED") == 0)
		return "t";
	if (strcmp(o, "AMBIGUOUS") == 0)
		return "a";
	return "x";
}

/* 1 if the document marks pair p's outcome under condition name as
 * contradicting the pair's expect; report.c decides, by the one rule of
 * nodus__report_expect_missed() (docs/formats.md). */
static int expect_missed(const json_t *p, const char *name)
{
	return json_is_true(json_object_get(json_object_get(p, "expect_mismatch"), name));
}

/* " attempt 2 of 3" (pairs[].decided_by) after a cell, unless one record
 * decides as attempt 1: a retry, or records a db merge kept beside it. */
static void decided_by_html(nodus_buf *b, const json_t *p, const char *name)
{
	const json_t *d = json_object_get(json_object_get(p, "decided_by"), name);
	json_int_t att = json_integer_value(json_object_get(d, "attempt"));
	json_int_t atts = json_integer_value(json_object_get(d, "attempts"));
	if (atts < 1 || (atts == 1 && att == 1))
		return;
	if (att > 0)
		nodus_buf_addf(b, " <span class=\"n\">attempt %" JSON_INTEGER_FORMAT " of %"
			       JSON_INTEGER_FORMAT "</span>", att, atts);
	else
		nodus_buf_addf(b, " <span class=\"n\">no final record of %" JSON_INTEGER_FORMAT
			       "</span>", atts);
}

static double num(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void interval_cell(nodus_buf *b, const json_t *sp, double delta)
{
	if (!sp || json_is_null(sp))
		return;
	if (isfinite(num(sp, "lo")) && isfinite(num(sp, "hi")))
		nodus_buf_addf(b, " %.3g [%.3g, %.3g]", num(sp, "estimate"), num(sp, "lo"),
			       num(sp, "hi"));
	else /* a preset's ratio: no interval */
		nodus_buf_addf(b, " %.3g", num(sp, "estimate"));
	double tie = num(sp, "tie_margin");
	if (isfinite(tie) && tie != delta) /* not the plan's: a short call */
		nodus_buf_addf(b, " &delta;=%.3g%%", 100 * tie);
}

/* "0.600 [0.400, 0.800]", the point alone when there is no interval, or
 * the document's reason when there is no estimate. */
static void stat_text(nodus_buf *b, const json_t *iv, const json_t *cond)
{
	double e = num(iv, "estimate"), lo = num(iv, "lo"), hi = num(iv, "hi");
	if (!isfinite(e)) {
		esc(b, sget(cond, "not_enough_data"));
		return;
	}
	nodus_buf_addf(b, "%.3f", e);
	if (isfinite(lo) && isfinite(hi))
		nodus_buf_addf(b, " [%.3f, %.3f]", lo, hi);
}

/* The compared pairs left out of the agreement, with the reason. */
static void left_out_html(nodus_buf *b, const json_t *c)
{
	size_t i, j;
	json_t *l, *id;
	json_array_foreach(json_object_get(c, "left_out"), i, l) {
		nodus_buf_addf(b, "<p class=\"note\">left out of the agreement: %" JSON_INTEGER_FORMAT
			       " pair(s), ", json_integer_value(json_object_get(l, "count")));
		esc(b, sget(l, "reason"));
		nodus_buf_adds(b, ":");
		json_array_foreach(json_object_get(l, "pairs"), j, id) {
			nodus_buf_adds(b, j ? ", " : " ");
			esc(b, json_string_value(id));
		}
		nodus_buf_adds(b, "</p>");
	}
}

/* Every final record's message in full (a compiler's errors, the tolerance
 * detail, the signal), escaped, one row per pair and condition. */
static void messages_html(nodus_buf *b, const json_t *rep)
{
	size_t i, k;
	json_t *p, *c;
	int any = 0;
	json_array_foreach(json_object_get(rep, "pairs"), i, p) {
		json_array_foreach(json_object_get(rep, "conditions"), k, c) {
			const char *name = sget(c, "name");
			const char *msg = sget(json_object_get(p, "messages"), name);
			const char *o = sget(json_object_get(p, "labels"), name);
			if (!*msg)
				continue;
			if (!any++)
				nodus_buf_adds(b, "<h2>Messages of the final records</h2><table><tr>"
						  "<th>pair</th><th>condition</th><th>outcome</th>"
						  "<th>guard</th><th>message</th></tr>");
			nodus_buf_adds(b, "<tr><td>");
			esc(b, sget(p, "id"));
			nodus_buf_adds(b, "</td><td>");
			esc(b, name);
			nodus_buf_addf(b, "</td><td class=\"%s\">", outcome_class(o));
			esc(b, o);
			nodus_buf_adds(b, "</td><td>");
			esc(b, sget(json_object_get(p, "guards"), name));
			nodus_buf_adds(b, "</td><td><pre>");
			esc(b, msg);
			nodus_buf_adds(b, "</pre></td></tr>");
		}
	}
	if (any)
		nodus_buf_adds(b, "</table>");
}

/* The matrix as a heatmap: cell shade by count, the diagonal (agreement)
 * green, the rest red; rows are the baseline's outcomes. */
static void heatmap_html(nodus_buf *b, const json_t *c, const char *base)
{
	const json_t *m = json_object_get(c, "matrix");
	const json_t *cats = json_object_get(m, "categories"), *rows = json_object_get(m, "counts");
	size_t i, j;
	json_t *row, *x;
	json_int_t max = 1;
	json_array_foreach(rows, i, row)
		json_array_foreach(row, j, x)
			if (json_integer_value(x) > max)
				max = json_integer_value(x);
	nodus_buf_adds(b, "<table class=\"hm\"><tr><th>");
	esc(b, base);
	nodus_buf_adds(b, " &darr; / ");
	esc(b, sget(c, "name"));
	nodus_buf_adds(b, " &rarr;</th>");
	json_array_foreach(cats, i, x) {
		nodus_buf_adds(b, "<th>");
		esc(b, json_string_value(x));
		nodus_buf_adds(b, "</th>");
	}
	nodus_buf_adds(b, "</tr>");
	json_array_foreach(rows, i, row) {
		nodus_buf_adds(b, "<tr><th>");
		esc(b, json_string_value(json_array_get(cats, i)));
		nodus_buf_adds(b, "</th>");
		json_array_foreach(row, j, x) {
			json_int_t n = json_integer_value(x);
			double a = n ? 0.15 + 0.85 * (double)n / (double)max : 0;
			nodus_buf_addf(b, "<td style=\"background:rgba(%s,%.2f)\">%" JSON_INTEGER_FORMAT
				       "</td>", i == j ? "40,160,60" : "200,40,40", a, n);
		}
		nodus_buf_adds(b, "</tr>");
	}
	nodus_buf_adds(b, "</table><p class=\"n\">pairs by outcome: green cells agree, red cells "
			  "disagree; darker means more pairs</p>");
}

static void interval_text(nodus_buf *b, const json_t *sp)
{
	if (!json_is_object(sp)) {
		nodus_buf_adds(b, "no interval");
		return;
	}
	if (isfinite(num(sp, "lo")) && isfinite(num(sp, "hi")))
		nodus_buf_addf(b, "%.3g [%.3g, %.3g]", num(sp, "estimate"), num(sp, "lo"),
			       num(sp, "hi"));
	else /* a preset's ratio: no interval */
		nodus_buf_addf(b, "%.3g", num(sp, "estimate"));
}

/* The false-fast pairs (and those whose baseline has no label) with both
 * intervals. */
static void false_fast_html(nodus_buf *b, const json_t *c, const char *base)
{
	const char *keys[2] = {"false_fast", "fast_unchecked"};
	const int preset = *sget(c, "judge_preset") != '\0';
	const char *titles[2] = {preset ? "False fast: BINARY_FASTER here, not FASTER in "
					: "False fast: FASTER here, not FASTER in ",
				 preset ? "BINARY_FASTER here, no label in " : "FASTER here, no label in "};
	for (int k = 0; k < 2; k++) {
		const json_t *list = json_object_get(c, keys[k]);
		size_t i;
		json_t *f;
		if (json_array_size(list) == 0)
			continue;
		nodus_buf_addf(b, "<h3>%s", titles[k]);
		esc(b, base);
		nodus_buf_addf(b, " (%zu)</h3><table><tr><th>pair</th><th>here</th><th>", json_array_size(list));
		esc(b, base);
		nodus_buf_adds(b, "</th></tr>");
		json_array_foreach(list, i, f) {
			nodus_buf_adds(b, "<tr><td>");
			esc(b, sget(f, "pair"));
			nodus_buf_adds(b, "</td><td class=\"f\">");
			esc(b, sget(f, "label"));
			nodus_buf_adds(b, " ");
			interval_text(b, json_object_get(f, "speedup"));
			nodus_buf_addf(b, "</td><td class=\"%s\">", outcome_class(sget(f, "baseline")));
			esc(b, sget(f, "baseline"));
			nodus_buf_adds(b, " ");
			interval_text(b, json_object_get(f, "baseline_speedup"));
			nodus_buf_adds(b, "</td></tr>");
		}
		nodus_buf_adds(b, "</table>");
	}
}

/* "12.5", or "unknown" for a null. */
static void num_or_unknown(nodus_buf *b, const json_t *o, const char *k, const char *fmt)
{
	double v = num(o, k);
	if (isfinite(v))
		nodus_buf_addf(b, fmt, v);
	else
		nodus_buf_adds(b, "unknown");
}

/* Where the condition's money went, every attempt counted; an unknown
 * stays unknown, with its reason. */
static void cost_html(nodus_buf *b, const json_t *c)
{
	const json_t *cost = json_object_get(c, "cost");
	nodus_buf_addf(b, "<table><tr><th>attempts</th><th>retries</th><th>failures</th>"
			  "<th>device [s]</th><th>compile [s]</th><th>validation [s]</th>"
			  "<th>USD</th></tr><tr><td>%" JSON_INTEGER_FORMAT "</td><td>%"
			  JSON_INTEGER_FORMAT "</td><td>%" JSON_INTEGER_FORMAT "</td><td>",
		       json_integer_value(json_object_get(cost, "attempts")),
		       json_integer_value(json_object_get(cost, "retries")),
		       json_integer_value(json_object_get(cost, "failures")));
	num_or_unknown(b, cost, "device_s", "%.4g");
	nodus_buf_adds(b, "</td><td>");
	num_or_unknown(b, cost, "compile_s", "%.4g");
	nodus_buf_adds(b, "</td><td>");
	num_or_unknown(b, cost, "validation_s", "%.4g");
	nodus_buf_adds(b, "</td><td>");
	num_or_unknown(b, cost, "usd", "%.4g");
	if (*sget(cost, "usd_reason")) {
		nodus_buf_adds(b, " (");
		esc(b, sget(cost, "usd_reason"));
		nodus_buf_adds(b, ")");
	}
	nodus_buf_adds(b, "</td></tr></table>");
}

/* The A/A noise floor against the tie margin: an interval half-width at
 * or above ln(1+delta) means the condition cannot tell TIED apart. */
static void aa_html(nodus_buf *b, const json_t *c, double delta)
{
	const json_t *aa = json_object_get(c, "aa_noise");
	double w = num(aa, "median_log_half_width");
	if (!isfinite(w)) {
		nodus_buf_addf(b, "<p>A/A noise: no A/A pair with an interval (%" JSON_INTEGER_FORMAT
			       " A/A pairs)</p>", json_integer_value(json_object_get(aa, "aa_pairs")));
		return;
	}
	double margin = log1p(delta);
	nodus_buf_addf(b, "<p>A/A noise: median half-width &plusmn;%.2f%% over %" JSON_INTEGER_FORMAT
		       " pair(s), against &delta; = %.2f%%: <b class=\"%s\">%s</b></p>",
		       100 * expm1(w), json_integer_value(json_object_get(aa, "with_interval")),
		       100 * delta, w < margin ? "t" : "s",
		       w < margin ? "below the tie margin" : "not below the tie margin");
}

/* x position of speedup v on a log axis from lo to hi over width w */
static double xpos(double v, double lo, double hi, double w)
{
	return 160 + (log(v) - log(lo)) / (log(hi) - log(lo)) * w;
}

static void figure(nodus_buf *b, const json_t *rep, const char *cond, const char *base,
		   double delta)
{
	double lo = 1e300, hi = 0;
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rep, "pairs"), i, p)
	{
		const char *names[2] = {cond, base};
		for (int k = 0; k < 2; k++) {
			json_t *sp = json_object_get(json_object_get(p, "speedups"), names[k]);
			if (sp && !json_is_null(sp)) {
				lo = fmin(lo, num(sp, "lo"));
				hi = fmax(hi, num(sp, "hi"));
				double tie = num(sp, "tie_margin");
				if (isfinite(tie)) {
					lo = fmin(lo, 1 / (1 + tie));
					hi = fmax(hi, 1 + tie);
				}
			}
		}
	}
	if (!(hi > 0) || !(lo > 0))
		return;
	lo = fmin(lo, 1 / (1 + delta)) / 1.2;
	hi = fmax(hi, 1 + delta) * 1.2;
	size_t n = json_array_size(json_object_get(rep, "pairs"));
	double w = 560, h = 18.0 * (double)n + 30;
	nodus_buf_addf(b, "<svg width=\"760\" height=\"%.0f\" font-size=\"10\">", h);
	nodus_buf_addf(b, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\" fill=\"#eee\"/>",
		       xpos(1 / (1 + delta), lo, hi, w),
		       xpos(1 + delta, lo, hi, w) - xpos(1 / (1 + delta), lo, hi, w), h - 20);
	nodus_buf_addf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\" stroke=\"#999\"/>",
		       xpos(1, lo, hi, w), xpos(1, lo, hi, w), h - 20);
	for (double t = pow(10, floor(log10(lo))); t <= hi; t *= 10)
		if (t >= lo)
			nodus_buf_addf(b, "<text x=\"%.1f\" y=\"%.0f\">%g</text>", xpos(t, lo, hi, w),
				       h - 5, t);
	json_array_foreach(json_object_get(rep, "pairs"), i, p)
	{
		double y = 18.0 * (double)i + 12;
		nodus_buf_addf(b, "<text x=\"0\" y=\"%.0f\">", y + 3);
		esc(b, sget(p, "candidate"));
		nodus_buf_adds(b, "</text>");
		const char *names[2] = {base, cond};
		const char *colour[2] = {"#888", "#c33"};
		for (int k = 0; k < 2; k++) {
			json_t *sp = json_object_get(json_object_get(p, "speedups"), names[k]);
			if (!sp || json_is_null(sp))
				continue;
			double yy = y + (k ? 3 : -3);
			double tie = num(sp, "tie_margin");
			if (isfinite(tie) && tie != delta) /* labelled with its own band */
				nodus_buf_addf(b,
					       "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					       "height=\"5\" fill=\"#ccd\"/>",
					       xpos(1 / (1 + tie), lo, hi, w), yy - 2.5,
					       xpos(1 + tie, lo, hi, w) - xpos(1 / (1 + tie), lo, hi, w));
			nodus_buf_addf(b,
				       "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				       "stroke=\"%s\" stroke-width=\"2\"/>"
				       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
				       xpos(num(sp, "lo"), lo, hi, w), xpos(num(sp, "hi"), lo, hi, w), yy,
				       yy, colour[k], xpos(num(sp, "estimate"), lo, hi, w), yy,
				       colour[k]);
		}
	}
	nodus_buf_adds(b, "</svg><p class=\"n\">grey: baseline, red: this condition; shaded: the tie "
			  "band [1/(1+&delta;), 1+&delta;] of the plan's &delta; (a darker strip "
			  "behind an interval: the band of the &delta; that labelled it, where that "
			  "differs, as for short calls); log scale of reference time / candidate "
			  "time</p>");
}

void nodus__report_render_html(const json_t *rep, nodus_buf *b)
{
	const char *base = sget(rep, "baseline");
	const json_t *plan = json_object_get(rep, "plan");
	double delta = num(plan, "tie_margin");
	if (!isfinite(delta))
		delta = 0.01;
	nodus_buf_adds(b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>nodus report");
	nodus_buf_adds(b, "</title><style>body{font-family:sans-serif;margin:2em}"
			  "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
			  "padding:2px 6px}.f{background:#cfc}.s{background:#fcc}.t{background:#eef}"
			  ".a{background:#ffc}.x{background:#ddd}.n{color:#666;font-size:11px}"
			  "pre{margin:0;white-space:pre-wrap;max-width:60em}"
			  ".d{outline:2px solid #c00;outline-offset:-2px}.m{color:#c00;font-weight:bold}.hm td{text-align:center;"
			  "min-width:3em}"
			  "</style></head><body><h1>nodus report</h1><p>plan ");
	esc(b, sget(plan, "digest"));
	nodus_buf_adds(b, " (");
	esc(b, sget(plan, "name"));
	nodus_buf_adds(b, "), baseline <b>");
	esc(b, base);
	nodus_buf_adds(b, "</b></p>");
	double psd = num(plan, "process_sd");
	if (isfinite(psd) && psd > 0)
		nodus_buf_addf(b, "<p class=\"n\">intervals widened for the offset between two "
			       "processes: judge process_sd %g (docs/statistics.md, \"Between "
			       "processes\")</p>", psd);
	nodus_buf_adds(b, "<h2>Labels by pair</h2>");
	json_int_t missed_pairs = json_integer_value(json_object_get(rep, "expect_mismatches"));
	if (missed_pairs > 0)
		nodus_buf_addf(b, "<p class=\"m\">%" JSON_INTEGER_FORMAT " pair(s) contradict "
			       "their expect: &#10007; marks each outcome that does; an expect "
			       "after &ne; is one its baseline contradicts</p>", missed_pairs);
	nodus_buf_adds(b, "<table><tr><th>pair</th><th>expect</th>");
	size_t i, k;
	json_t *p, *c;
	json_array_foreach(json_object_get(rep, "conditions"), k, c)
	{
		nodus_buf_adds(b, "<th>");
		esc(b, sget(c, "name"));
		nodus_buf_adds(b, "</th>");
	}
	nodus_buf_adds(b, "</tr>");
	json_array_foreach(json_object_get(rep, "pairs"), i, p)
	{
		nodus_buf_adds(b, "<tr><td>");
		esc(b, sget(p, "id"));
		const char *bo = sget(json_object_get(p, "labels"), base);
		/* the baseline not as the pair was constructed: marked, with why */
		int missed = expect_missed(p, base);
		nodus_buf_adds(b, missed ? "</td><td class=\"m\" title=\"the baseline is " : "</td><td>");
		if (missed) {
			esc(b, bo);
			nodus_buf_adds(b, ", not as declared\">&ne; ");
		}
		esc(b, sget(p, "expect"));
		nodus_buf_adds(b, "</td>");
		json_array_foreach(json_object_get(rep, "conditions"), k, c)
		{
			const char *name = sget(c, "name");
			const char *o = sget(json_object_get(p, "labels"), name);
			const char *msg = sget(json_object_get(p, "messages"), name);
			/* a disagreement with a baseline label is marked, as the report
			 * decides it (pairs[].agrees: a preset's verdict against the
			 * baseline's label binarized) */
			int differs = json_is_false(json_object_get(json_object_get(p, "agrees"), name));
			nodus_buf_addf(b, "<td class=\"%s%s\"", outcome_class(o), differs ? " d" : "");
			if (*msg) {
				nodus_buf_adds(b, " title=\"");
				esc(b, msg);
				nodus_buf_adds(b, "\"");
			}
			nodus_buf_adds(b, ">");
			if (differs)
				nodus_buf_adds(b, "&ne; ");
			/* this condition's outcome not as the pair was constructed */
			if (expect_missed(p, name)) {
				nodus_buf_adds(b, "<b class=\"m\" title=\"not as declared: expect ");
				esc(b, sget(p, "expect"));
				nodus_buf_adds(b, "\">&#10007;</b> ");
			}
			esc(b, o);
			interval_cell(b, json_object_get(json_object_get(p, "speedups"), sget(c, "name")),
				      delta);
			decided_by_html(b, p, name);
			nodus_buf_adds(b, "</td>");
		}
		nodus_buf_adds(b, "</tr>");
	}
	nodus_buf_adds(b, "</table>");
	messages_html(b, rep);
	json_array_foreach(json_object_get(rep, "conditions"), k, c)
	{
		const json_t *ag = json_object_get(c, "agreement"), *ka = json_object_get(c, "kappa");
		nodus_buf_adds(b, "<h2>");
		esc(b, sget(c, "name"));
		nodus_buf_adds(b, " (");
		esc(b, sget(c, "kind"));
		nodus_buf_adds(b, ")</h2>");
		if (*sget(c, "judge_preset")) {
			nodus_buf_adds(b, "<p>judged by the ");
			esc(b, sget(c, "judge_preset"));
			nodus_buf_adds(b, " preset (docs/protocol.md, &ldquo;Presets&rdquo;): binary "
					  "verdicts with no interval, compared with the baseline's labels "
					  "binarized (FASTER is faster; SLOWER and TIED are not; AMBIGUOUS "
					  "is left out)</p>");
		}
		nodus_buf_adds(b, "<p>agreement with ");
		esc(b, base);
		nodus_buf_adds(b, ": ");
		stat_text(b, ag, c);
		nodus_buf_adds(b, ", &kappa; ");
		stat_text(b, ka, c);
		if (isfinite(num(ag, "estimate")) && *sget(c, "not_enough_data")) {
			nodus_buf_adds(b, " (");
			esc(b, sget(c, "not_enough_data"));
			nodus_buf_adds(b, ")");
		}
		json_int_t checked = json_integer_value(json_object_get(c, "expect_checked"));
		if (checked > 0)
			nodus_buf_addf(b, "; contradicting their expect: %" JSON_INTEGER_FORMAT
				       " of %" JSON_INTEGER_FORMAT,
				       json_integer_value(json_object_get(c, "expect_mismatches")),
				       checked);
		nodus_buf_addf(b, "; false-fast pairs: %zu; agreeing records per dollar: ",
			       json_array_size(json_object_get(c, "false_fast")));
		json_t *apu = json_object_get(c, "agreeing_per_usd");
		if (json_is_number(apu))
			nodus_buf_addf(b, "%.4g", json_number_value(apu));
		else {
			nodus_buf_adds(b, "unknown (");
			esc(b, sget(c, "agreeing_per_usd_reason"));
			nodus_buf_adds(b, ")");
		}
		nodus_buf_adds(b, "</p>");
		left_out_html(b, c);
		heatmap_html(b, c, base);
		false_fast_html(b, c, base);
		cost_html(b, c);
		aa_html(b, c, delta);
		figure(b, rep, sget(c, "name"), base, delta);
	}
	nodus_buf_adds(b, "</body></html>\n");
}
