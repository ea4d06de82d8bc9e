/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * build_log.c: which lines of the compiler's output a record may carry
 * (build-internal.h).
 *
 * A COMPILE_ERROR record quotes the compiler. Diagnostics quote source
 * lines, so a solution that makes the compiler read another file
 * (#include "/etc/passwd", an assembler .include) would have that file's
 * lines in its record. Landlock keeps the compiler from reading such files
 * at all; this filter is the second layer: it keeps
 *   - diagnostics located in the solution's listed sources, in nodus's
 *     include directory or in the build's own temporaries (the assembler
 *     names the .s made of a source), and the lines that continue them (indented: the
 *     quoted source line, the caret, nvcc's context);
 *   - "In file included from" lines naming those files;
 *   - nodus's own notes ("nodus: ...") and the tool chain's summary lines
 *     (cc1:, collect2:, ld:, nvcc ..., "N errors detected in ..."), which
 *     carry no file's content;
 * and drops everything else, with a count. nodus's notes and the count
 * come first, each once: a record keeps only the start of a long message. The solution's directory and
 * the build directory are shown relative, so a record does not carry the
 * machine's paths either.
 * ------------------------------------------------------------------------ */
#include "run/build-internal.h"

#include <stdio.h>
#include <string.h>

/* 1 when s starts with dir + "/" and a file the build owns; when dir is a
 * file (a source), s must start with it followed by ':' or '('. */
static int starts_with_own(const build_paths *p, const char *s)
{
	for (int k = 0; k < p->n_sources; k++) {
		size_t n = strlen(p->sources[k]);
		if (strncmp(s, p->sources[k], n) == 0 && (s[n] == ':' || s[n] == '(' || s[n] == ','))
			return 1;
	}
	/* the include directory, and the build's own temporaries (the
	 * assembler's messages name the .s the compiler made of a source) */
	const char *dirs[2] = {p->include_dir, p->build_dir};
	for (int k = 0; k < 2; k++) {
		size_t n = strlen(dirs[k]);
		if (n && strncmp(s, dirs[k], n) == 0 && s[n] == '/')
			return 1;
	}
	return 0;
}

static int is_tool_line(const char *s)
{
	static const char *const tools[] = {
		"cc1: ", "cc1plus: ", "collect2: ", "cc: ", "gcc: ", "g++: ", "as: ", "ld: ",
		"/usr/bin/ld: ", "/usr/bin/as: ", "nvcc ", "nvcc: ", "ptxas ", "ptxas: ", "nvlink ",
		"nvlink: ", "cicc: ", "fatbinary", "compilation terminated", "nodus: ", "nodus __jail: ",
	};
	for (size_t k = 0; k < NODUS_ARRAY_SIZE(tools); k++)
		if (strncmp(s, tools[k], strlen(tools[k])) == 0)
			return 1;
	return strstr(s, " detected in the compilation of ") != NULL;
}

/* Appends line to out, with the solution's and the build's directories
 * cut from the paths it names. */
static void add_line(const build_paths *p, nodus_buf *out, const char *line, size_t len)
{
	const char *cut[2] = {p->sol_dir, p->build_dir};
	const char *s = line, *end = line + len;
	while (s < end) {
		const char *best = NULL;
		size_t best_n = 0;
		for (int k = 0; k < 2; k++) {
			size_t n = strlen(cut[k]);
			const char *at = n ? strstr(s, cut[k]) : NULL;
			if (at && at < end && at[n] == '/' && (!best || at < best)) {
				best = at;
				best_n = n + 1;
			}
		}
		if (!best) {
			nodus_buf_add(out, s, (size_t)(end - s));
			break;
		}
		nodus_buf_add(out, s, (size_t)(best - s));
		s = best + best_n;
	}
	nodus_buf_adds(out, "\n");
}

void nodus__build_log_filter(const build_paths *p, const char *raw, char *out, size_t size)
{
	nodus_buf kept = NODUS_BUF_INIT, notes = NODUS_BUF_INIT;
	int keeping = 0, dropped = 0;
	char line[4096];
	for (const char *s = raw; *s;) {
		size_t n = strcspn(s, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), s);
		s += n + (s[n] == '\n');
		const char *from = strstr(line, "from ");
		int include_line = strncmp(line, "In file included from ", 22) == 0 ||
				   (line[0] == ' ' && from && strspn(line, " ") == (size_t)(from - line));
		int keep;
		if (strncmp(line, "nodus: ", 7) == 0) {
			/* nodus's own notes (each step repeats them) come first, once */
			keeping = 0;
			if (!strstr(notes.data, line))
				nodus_buf_addf(&notes, "%s\n", line);
			continue;
		}
		if (include_line) {
			keeping = starts_with_own(p, from + 5);
			keep = keeping;
		} else if (line[0] == ' ' || line[0] == '\t') {
			keep = keeping;
		} else if (starts_with_own(p, line)) {
			keep = keeping = 1;
		} else {
			keeping = 0;
			keep = is_tool_line(line);
		}
		if (keep)
			add_line(p, &kept, line, strlen(line));
		else if (line[0])
			dropped++;
	}
	/* first what a reader must not miss when the record cuts the message */
	if (dropped)
		nodus_buf_addf(&notes, "nodus: %d line(s) of compiler output about files other than "
				       "the solution's left out\n", dropped);
	snprintf(out, size, "%s%s", notes.data, kept.data);
	nodus_buf_release(&kept);
	nodus_buf_release(&notes);
}
