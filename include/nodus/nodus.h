/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * nodus.h: the public vocabulary of the nodus library.
 *
 * Error codes (what went wrong with a call) and record statuses (what
 * happened to a candidate) are two different lists: a failing candidate is a
 * result stored as data, never an error of the harness. Both lists come from
 * X-macros so that names, messages and stored strings cannot drift apart.
 * Append to them; never renumber or rename (statuses are stored).
 * ------------------------------------------------------------------------ */
#ifndef NODUS_NODUS_H
#define NODUS_NODUS_H

#include <stddef.h>
#include <stdint.h>

#define NODUS_VERSION "0.1.0"

/* Error codes: 0 is success, failures are negative. */
#define NODUS_ERRNO_MAP(X)                                                  \
	X(NOMEM, "out of memory")                                           \
	X(IO, "input/output error")                                         \
	X(PARSE, "malformed input")                                         \
	X(INVAL, "invalid value")                                         \
	X(NOTFOUND, "not found")                                            \
	X(CHANGED, "content changed since sealing")                        \
	X(STORE, "record store error")                                      \
	X(CUDA, "cuda error")                                               \
	X(UNAVAILABLE, "not available on this machine")                     \
	X(CHILD, "worker process failed")                                   \
	X(TIMEOUT, "timed out")                                             \
	X(USAGE, "bad usage")                                               \
	X(INTERNAL, "internal error")

typedef enum nodus_errno {
	NODUS_OK = 0,
#define X(name, msg) NODUS_E##name,
	NODUS_ERRNO_FIRST_ = -100,
	NODUS_ERRNO_MAP(X)
#undef X
} nodus_errno;

/* Name ("NODUS_EIO") and message for an error code; never NULL. */
const char *nodus_err_name(int code);
const char *nodus_strerror(int code);

/* A located error. Filled only on failure; file/line/column/json_path are
 * empty or 0 when they do not apply. */
typedef struct nodus_error {
	int code;                /* a negative NODUS_E* code */
	char message[768];       /* what was expected, what was found */
	char file[512];          /* input file the fault is in, or "" */
	int line;                /* 1-based line in file, 0 = unknown */
	int column;              /* 1-based column in file, 0 = unknown */
	char json_path[256];     /* e.g. "$.inputs[2].dtype", or "" */
	const char *src_file;    /* C file of the failing check (debug aid) */
	int src_line;            /* C line of the failing check */
} nodus_error;

/* Formats err as "FILE:LINE:COLUMN: PATH: MESSAGE" (parts that are unknown
 * are left out) into out, at most out_size bytes, NUL-terminated. */
void nodus_error_format(const nodus_error *err, char *out, size_t out_size);

/* Record statuses: what one attempt at one pair under one condition ended
 * as. The strings are what the store and the reports hold. */
#define NODUS_STATUS_MAP(X)                                                   \
	X(OK, "correct; timed and labelled")                                  \
	X(COMPILE_ERROR, "a solution did not compile")                        \
	X(LOAD_ERROR, "a solution did not load or lacks its entry")           \
	X(RUNTIME_ERROR, "a solution returned an error")                     \
	X(TIMEOUT, "the watchdog ended the worker")                          \
	X(CRASH, "the worker died from a signal or exited early")            \
	X(INCORRECT_SHAPE, "outputs not fully written")                      \
	X(INCORRECT_NUMERICAL, "outputs outside tolerance")                  \
	X(INPUT_MUTATED, "the candidate wrote its inputs")                   \
	X(REWARD_HACK, "a guard caught an exploit")                          \
	X(INVALID_REFERENCE, "the reference failed its own checks")          \
	X(NOT_ISOLATED, "the isolation check failed")                        \
	X(OUT_OF_MEMORY, "the worker ran out of memory")

typedef enum nodus_status {
#define X(name, msg) NODUS_STATUS_##name,
	NODUS_STATUS_MAP(X)
#undef X
	NODUS_STATUS_COUNT_
} nodus_status;

const char *nodus_status_name(int status);   /* "CRASH"; "?" if out of range */
int nodus_status_from_name(const char *name); /* -1 if unknown */

/* Labels of a correct candidate. */
#define NODUS_LABEL_MAP(X)                                                  \
	X(FASTER, "interval entirely above 1+delta")                        \
	X(SLOWER, "interval entirely below 1/(1+delta)")                    \
	X(TIED, "interval inside [1/(1+delta), 1+delta]")                   \
	X(AMBIGUOUS, "interval straddles a margin")

typedef enum nodus_label {
	NODUS_LABEL_NONE = -1,
#define X(name, msg) NODUS_LABEL_##name,
	NODUS_LABEL_MAP(X)
#undef X
	NODUS_LABEL_COUNT_
} nodus_label;

const char *nodus_label_name(int label);      /* "FASTER"; "NONE" for -1 */
int nodus_label_from_name(const char *name);  /* -1 if unknown */

/* Verdicts of a binary judge (a condition's judge_preset: another
 * harness's protocol). They have no interval and are never labels, so a
 * record has one or the other (docs/protocol.md, "Presets"). */
#define NODUS_VERDICT_MAP(X)                                                \
	X(BINARY_FASTER, "the preset's ratio is above its threshold")       \
	X(BINARY_NOT_FASTER, "the preset's ratio is at or below its threshold")

/* NONE is 0, unlike NODUS_LABEL_NONE: a record zeroed by memset has no
 * verdict, where it would otherwise claim one. */
typedef enum nodus_verdict {
	NODUS_VERDICT_NONE = 0,
#define X(name, msg) NODUS_VERDICT_##name,
	NODUS_VERDICT_MAP(X)
#undef X
	NODUS_VERDICT_COUNT_
} nodus_verdict;

const char *nodus_verdict_name(int verdict);     /* "BINARY_FASTER"; "NONE" for 0 */
int nodus_verdict_from_name(const char *name);   /* NODUS_VERDICT_NONE if unknown */

#endif
