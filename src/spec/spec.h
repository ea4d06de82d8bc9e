/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * spec.h: the files a user writes (task, workload, solution, campaign),
 * parsed with jansson and validated strictly into C structs.
 *
 * Every parse function reports *all* faults of a file into a nodus_diags
 * list, each located as FILE:LINE:COLUMN with the JSON path of the bad
 * field, and returns 0 only when the list stayed empty. Unknown fields,
 * wrong types, missing fields, undefined axes, duplicate names, absolute or
 * ".." source paths, unknown dtypes or distributions and references to
 * missing files are errors. docs/formats.md is the user's reference.
 *
 * Life cycle: nodus_campaign_load() loads a campaign and every file it
 * names; nodus_campaign_free() frees it. The *_from_json() functions parse
 * one object already in memory (the runner re-reads the specs embedded in a
 * sealed plan with them); "file" is used only to locate errors.
 *
 * Limits are fixed (NODUS_MAX_*) and exceeding one is a validation error,
 * not a truncation.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_SPEC_H
#define NODUS_SPEC_H

#include <jansson.h>
#include <stdint.h>

#include "common/common.h"
#include "nodus/solution.h"

#define NODUS_NAME_MAX 64       /* names of tasks, axes, tensors, solutions, conditions */
#define NODUS_MAX_AXES 16
#define NODUS_MAX_INPUTS 16
#define NODUS_MAX_OUTPUTS 8
#define NODUS_MAX_SOURCES 16
#define NODUS_MAX_FLAGS 32
/* python.params: at most this many entries, and their text (solution.py_params) */
#define NODUS_PY_PARAMS_N 1024
#define NODUS_PY_PARAMS_MAX 16384
#define NODUS_PAIR_ID_MAX 200   /* "WORKLOAD/CANDIDATE/REFERENCE": 3 names and 2 slashes */

/* Input value distributions (explicit, never inferred from a name). */
typedef enum nodus_dist_kind {
	NODUS_DIST_NORMAL = 1,   /* a=mean, b=std (>0) */
	NODUS_DIST_UNIFORM,      /* [a, b), a < b */
	NODUS_DIST_AFFINE_SCALE, /* 1 + u, 0.1*a <= |u| <= a: near but never equal to 1; a=spread in (0,1) */
	NODUS_DIST_AFFINE_SHIFT, /* u, 0.1*a <= |u| <= a: near but never equal to 0; a=spread > 0 */
	NODUS_DIST_POSITIVE,     /* [a, b), 0 < a < b */
	NODUS_DIST_INT_RANGE,    /* integers in [a, b] */
	NODUS_DIST_INDEX,        /* integers in [0, value of axis) */
	NODUS_DIST_CONSTANT,     /* every element a: a naive judge, flagged by nodus audit */
	NODUS_DIST_FILE          /* a workload's input: the values of a safetensors tensor, as they are */
} nodus_dist_kind;

typedef struct nodus_dist {
	int kind;                   /* a nodus_dist_kind */
	double a;                   /* first parameter, see nodus_dist_kind */
	double b;                   /* second parameter, see nodus_dist_kind */
	int axis;                   /* NODUS_DIST_INDEX: index into task->axes, else -1 */
	/* NODUS_DIST_FILE: the tensor's bytes in the input's dtype, row-major,
	 * owned by the workload (nodus_workload.file_data); NULL until loaded */
	const void *data;
	int64_t bytes;
} nodus_dist;

/* Variants of an input's distribution the judge may also draw. */
#define NODUS_VARIANT_SCALE_3 0x1u    /* values times 3 */
#define NODUS_VARIANT_SCALE_001 0x2u  /* values times 0.01 */
#define NODUS_VARIANT_NEGATE 0x4u     /* values negated */

typedef struct nodus_tensor_spec {
	char name[NODUS_NAME_MAX];  /* unique among the task's inputs and outputs */
	int dtype;                  /* a nodus_dtype */
	int ndim;                   /* 0 = scalar */
	int axis[NODUS_MAX_DIMS];   /* index into task->axes per dimension */
	nodus_dist init;            /* inputs only: how values are drawn */
	unsigned variants;          /* inputs only: NODUS_VARIANT_* bits allowed */
} nodus_tensor_spec;

typedef struct nodus_axis {
	char name[NODUS_NAME_MAX];  /* unique within the task */
	int is_const;               /* 1: value fixed by the task; 0: set by workloads */
	int64_t value;              /* the constant's value when is_const */
} nodus_axis;

typedef struct nodus_tolerance {
	double atol;                /* absolute tolerance, >= 0 */
	double rtol;                /* relative tolerance, >= 0 */
	double matched_ratio;       /* share of elements that must be within tolerance, (0,1] */
	double max_error_cap;       /* no element may differ by more than this; <0 = no cap */
} nodus_tolerance;

typedef struct nodus_task {
	char name[NODUS_NAME_MAX];  /* unique in a campaign */
	int n_axes;                 /* entries in axes */
	nodus_axis axes[NODUS_MAX_AXES]; /* in declaration order (the ABI's axis order) */
	int n_inputs;               /* entries in inputs */
	nodus_tensor_spec inputs[NODUS_MAX_INPUTS];  /* in ABI order */
	int n_outputs;              /* entries in outputs */
	nodus_tensor_spec outputs[NODUS_MAX_OUTPUTS]; /* in ABI order */
	nodus_tolerance tolerance;  /* defaults: matched_ratio 1, no cap */
	int deterministic;          /* 1 (default): same inputs must give the same bits */
	char *roofline_flops;       /* expression of the axes, or NULL; heap */
	char *roofline_bytes;       /* expression of the axes, or NULL; heap */
	json_t *json;               /* the validated object, owned (a reference) */
	char file[512];             /* where it was read from, "" if from a plan */
} nodus_task;

typedef struct nodus_workload {
	char name[NODUS_NAME_MAX];  /* unique in a campaign */
	char task_name[NODUS_NAME_MAX]; /* the task it instantiates, by name */
	int task;                   /* index into the campaign's tasks, -1 until linked */
	int64_t axis_value[NODUS_MAX_AXES]; /* per task axis (constants copied in) */
	int has_init[NODUS_MAX_INPUTS];     /* 1 where init_override applies */
	nodus_dist init_override[NODUS_MAX_INPUTS]; /* per task input */
	/* a "file" input's values (docs/formats.md, "File inputs"): read from
	 * its safetensors file when the workload is loaded from a file, from the
	 * job in a worker (nodus_workload_set_file); heap, freed by
	 * nodus_workload_release */
	void *file_data[NODUS_MAX_INPUTS];
	int has_tolerance;          /* 1 if tolerance overrides the task's */
	nodus_tolerance tolerance;  /* the task's, overridden field by field; valid when has_tolerance */
	json_t *json;               /* the validated object, owned (a reference) */
	char file[512];             /* where it was read from */
} nodus_workload;

typedef enum nodus_backend_kind {
	NODUS_BACKEND_CPU = 1,
	NODUS_BACKEND_CUDA = 2
} nodus_backend_kind;

/* What a solution's sources are (docs/formats.md, "Python solutions"). */
typedef enum nodus_language {
	NODUS_LANG_NATIVE = 0, /* C or CUDA sources built into the shared object */
	NODUS_LANG_PYTHON = 1  /* a Python module run by nodus's torch adapter */
} nodus_language;

/* How a Python solution is called. */
typedef enum nodus_py_style {
	NODUS_PY_DESTINATION = 1, /* ENTRY(*inputs, *outputs) writes the outputs */
	NODUS_PY_MODULE = 2       /* ENTRY is an nn.Module class; forward(*inputs) returns them */
} nodus_py_style;

typedef struct nodus_solution {
	char name[NODUS_NAME_MAX];  /* not part of the hash */
	char task_name[NODUS_NAME_MAX]; /* the task it computes; not part of the hash */
	int backend;                /* a nodus_backend_kind */
	int n_sources;              /* entries in sources */
	char sources[NODUS_MAX_SOURCES][256]; /* relative to dir; no "..", not absolute */
	char entry[NODUS_NAME_MAX]; /* exported entry symbol (python: the module's function or class) */
	int language;               /* a nodus_language */
	int py_style;               /* a nodus_py_style when language is python, else 0 */
	char py_init[512];          /* module style: python.init as compact JSON ("[]" if none) */
	/* module style: python.params, the reference's declared floating
	 * parameters and buffers in torch's order, as "name:D0xD1:dtype"
	 * entries joined by ';' ("" if none: the adapter redraws by position) */
	char py_params[NODUS_PY_PARAMS_MAX];
	int n_flags;                /* entries in flags */
	char flags[NODUS_MAX_FLAGS][128];     /* compiler flags */
	int n_libs;                 /* entries in libs */
	char libs[8][NODUS_NAME_MAX];         /* libraries to link, e.g. "cublas" */
	char author[128];           /* free text, "" if not given; not hashed */
	int n_tags;                 /* entries in tags */
	char tags[16][NODUS_NAME_MAX];        /* free labels; not hashed */
	char dir[512];              /* directory the sources are relative to */
	char hash[NODUS_SHA256_HEX];/* over sources' bytes, entry, backend, flags, libs (docs/formats.md) */
	char build_hash[NODUS_SHA256_HEX]; /* the same without the entry for a native solution,
				     * whose shared object does not depend on it: the build cache's */
	json_t *json;               /* the validated object, owned (a reference) */
	char file[512];             /* where it was read from */
} nodus_solution;

typedef enum nodus_condition_kind {
	NODUS_COND_ISOLATED = 1,
	NODUS_COND_CPU_STRESS,
	NODUS_COND_TIMESLICE,
	NODUS_COND_MPS,
	NODUS_COND_STREAMS,
	NODUS_COND_REPLAY
} nodus_condition_kind;

typedef enum nodus_load_kind {
	NODUS_LOAD_NONE = 0,
	NODUS_LOAD_MEMBW,           /* streaming copies over a buffer far larger than the cache */
	NODUS_LOAD_COMPUTE,         /* FMA chains */
	NODUS_LOAD_MIXED            /* alternating both */
} nodus_load_kind;

/* Another harness's protocol, run by nodus's workers under nodus's guards
 * (docs/protocol.md, "Presets"): its fixed schedule and statistic, and a
 * binary verdict in place of an interval label. */
typedef enum nodus_judge_preset {
	NODUS_PRESET_NODUS = 0,     /* rounds, sequential looks, an interval label */
	NODUS_PRESET_KERNELBENCH,   /* 5 trials; 3 + 100 single calls per side; mean; > 1 */
	NODUS_PRESET_KERNELBENCH_P, /* the same, "faster" only above 1.1 (fast_p, p = 1.1) */
	NODUS_PRESET_FLASHINFER     /* 3 x (10 + 50) per side; mean of medians; > 1 */
} nodus_judge_preset;

typedef struct nodus_condition {
	char name[NODUS_NAME_MAX];  /* unique in a campaign; "isolated" by convention */
	int kind;                   /* a nodus_condition_kind */
	int tenants;                /* co-tenants / stressors / streams / co-scheduled pairs */
	int load;                   /* a nodus_load_kind (not for isolated, replay) */
	double duty_cycle;          /* share of time a stressor is busy, (0,1] */
	int active_thread_pct;      /* mps: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, 0 = unset */
	int judge_preset;           /* a nodus_judge_preset: whose protocol times and labels */
} nodus_condition;

/* A task's own tie margin and process offset (the judge's "tasks"): the
 * kind of work sets how far two processes drift apart (host-bound launch
 * sequences by about 2% on the H200, GPU-bound kernels by 0.1%), so one
 * campaign may hold both. A field below 0 is the judge's own. */
#define NODUS_MAX_TASK_JUDGES 64
typedef struct nodus_task_judge {
	char task[NODUS_NAME_MAX];
	double tie_margin;          /* < 0: the judge's (tie_margin or tie_margin_short) */
	double process_sd;          /* < 0: the judge's */
} nodus_task_judge;

typedef struct nodus_judge {
	uint64_t seed;              /* master seed; per-trial seeds derive from it */
	int trials;                 /* correctness trials before timing */
	int recheck_reps;           /* timed repetitions whose outputs are re-checked */
	int determinism;            /* 1: run one trial twice and compare bits */
	int warmup_calls;           /* minimum warm-up calls per solution */
	double warmup_ms;           /* minimum warm-up time per solution */
	int min_rounds;             /* rounds before the first look */
	int max_rounds;             /* rounds at most */
	int max_rounds_short;       /* rounds at most for a pair whose reference call is short */
	double min_timed_s;         /* measured kernel time (both sides) before the first look; 0 = none */
	int look_every;             /* rounds between looks */
	int samples_per_round;      /* candidate/reference sample pairs per round */
	int input_copies;           /* input sets rotated during timing */
	int flush_cache;            /* 1: flush LLC / L2 before each sample */
	int64_t min_sample_ns;      /* batch calls so one sample lasts at least this */
	double tie_margin;          /* delta: TIED inside [1/(1+d), 1+d] */
	double tie_margin_short;    /* delta for pairs whose reference call is short */
	double process_sd;          /* sd (log scale) of the offset between two processes; 0 = none */
	int64_t short_kernel_ns;    /* "short": reference median below this per call */
	double confidence;          /* e.g. 0.95, over all looks together */
	int bootstrap_resamples;    /* resamples for the interval */
	double timeout_s;           /* wall-clock watchdog per worker */
	int64_t address_space_mb;   /* RLIMIT_AS for cpu workers; 0 = none */
	int cpu_time_s;             /* RLIMIT_CPU */
	int open_files;             /* RLIMIT_NOFILE */
	int processes;              /* RLIMIT_NPROC (per user, so generous) */
	int max_attempts;           /* attempts per pair-condition, >= 1 */
	int oracle_group;           /* pairs whose reference outputs one oracle computes */
	unsigned retry_on;          /* bit (1u << status) for each retried status */
	double isolation_max_busy_cores; /* cpu isolated: other load above this fails */
	int n_task_judges;          /* entries in task_judge */
	nodus_task_judge task_judge[NODUS_MAX_TASK_JUDGES]; /* by task, in declaration order */
} nodus_judge;

/* The judge's own entry for a task, or NULL. */
const nodus_task_judge *nodus_judge_task(const nodus_judge *j, const char *task);

typedef struct nodus_target {
	int backend;                /* a nodus_backend_kind */
	int has_price;              /* 0: price unknown (null) */
	double price_per_device_hour_usd; /* declared price, valid when has_price */
	char profile[128];          /* declared profile, e.g. "H200 full GPU", "cpu" */
	double ceiling_bytes_per_s; /* measured memory-bandwidth ceiling [bytes/s], 0 = unknown */
	double ceiling_flops_per_s; /* measured arithmetic ceiling [flop/s], 0 = unknown */
	char python[512];           /* interpreter of python solutions (absolute), "" = none */
} nodus_target;

typedef struct nodus_pair_spec {
	char id[NODUS_PAIR_ID_MAX]; /* "WORKLOAD/CANDIDATE/REFERENCE", unique in a campaign */
	int workload;               /* index into campaign->workloads */
	int candidate;              /* index into campaign->solutions */
	int reference;              /* index into campaign->solutions */
	char expect[32];            /* declared truth for tests: a label (FASTER, SLOWER, TIED,
				     * AMBIGUOUS), EQUIVALENT, FAIL, a status name, or "" */
	int has_effect;             /* 1: effect was declared (sealed in the plan only then) */
	double effect;              /* declared true speedup, reference time / candidate time,
				     * in (0, 1e6]; > 1 for FASTER, < 1 for SLOWER */
} nodus_pair_spec;

/* A check of `nodus audit` the campaign waives for a task (and, when
 * workload is set, only for that workload); recorded in the plan. */
#define NODUS_MAX_WAIVERS 64
typedef struct nodus_waiver {
	char task[NODUS_NAME_MAX];
	char workload[NODUS_NAME_MAX]; /* "" = every workload of the task */
	char check[128];               /* e.g. "constant_input:weight" */
	char reason[256];
} nodus_waiver;

typedef struct nodus_campaign {
	char name[NODUS_NAME_MAX];  /* the campaign's name */
	char file[512];             /* the campaign file as given to nodus_campaign_load */
	int n_tasks, n_workloads, n_solutions, n_pairs, n_conditions; /* array sizes */
	nodus_task *tasks;          /* heap arrays, counts above */
	nodus_workload *workloads;  /* each linked to its task */
	nodus_solution *solutions;  /* each hashed, sources relative to its file */
	nodus_pair_spec *pairs;     /* in campaign order, ids unique */
	nodus_condition *conditions;/* exactly one isolated */
	nodus_judge judge;          /* defaults filled in */
	nodus_target target;        /* as declared */
	int n_waivers;              /* audit.waive entries */
	nodus_waiver waivers[NODUS_MAX_WAIVERS];
	json_t *json;               /* the campaign object, owned */
} nodus_campaign;

/* Parses and validates one file of any kind; the file's own "kind" field
 * decides which (a missing or unknown kind is a fault). A campaign is
 * checked with every file it names; a lone workload only as far as it can be
 * without its task. Every fault goes to diags. Returns 0 when the file is
 * valid, NODUS_EINVAL/EPARSE when it has faults, NODUS_EIO/ENOTFOUND when it
 * cannot be read, NODUS_ENOMEM. Used by `nodus check`. */
int nodus_spec_check_file(const char *path, nodus_diags *diags);

/* Validate one parsed object into *out (which they fill as far as the
 * object allows, even when it has faults; release it either way). text is
 * the file's NUL-terminated raw text, used to locate faults (NULL: faults
 * carry no line and column). Each returns 0 or NODUS_EINVAL with every
 * fault in diags. nodus_workload_from_json links the workload to one of
 * tasks[0..n_tasks) by name (n_tasks = 0: structure only, out->task = -1);
 * nodus_solution_from_json reads and hashes the sources relative to dir
 * (NULL: sources neither checked nor hashed, hash ""). */
int nodus_task_from_json(json_t *obj, const char *file, const char *text,
			 nodus_task *out, nodus_diags *diags);
int nodus_workload_from_json(json_t *obj, const char *file, const char *text,
			     const nodus_task *tasks, int n_tasks,
			     nodus_workload *out, nodus_diags *diags);
int nodus_solution_from_json(json_t *obj, const char *file, const char *text,
			     const char *dir, nodus_solution *out, nodus_diags *diags);
void nodus_task_release(nodus_task *t);
void nodus_workload_release(nodus_workload *w);

/* 1 when input i of w takes its values from a file (NODUS_DIST_FILE). */
int nodus_workload_file_input(const nodus_workload *w, int i);

/* Gives file input i of w (parsed without its file: a worker's job) its
 * bytes, copied; NODUS_EINVAL when i is no file input or bytes is not the
 * tensor's size (numel of the workload's shape times the dtype's size). */
int nodus_workload_set_file(nodus_workload *w, const nodus_task *t, int i, const void *data,
			    size_t bytes);
void nodus_solution_release(nodus_solution *s);

/* ---- python.params as text (params.c) ---- */

/* One entry of python.params as the adapter gets it, "name:D0xD1:dtype". */
typedef struct nodus_py_param {
	char name[256];             /* a torch name ("fc.weight") */
	char dims[160];             /* the sizes joined by 'x' ("32x24"; "" for a scalar) */
	char dtype[16];             /* "float32", "float64", "float16", "bfloat16" (or torch's) */
} nodus_py_param;

/* Splits a python.params text into *out (returned, freed with free();
 * NULL for none). Returns the number of entries, or -1 out of memory. */
int nodus__py_params_split(const char *text, nodus_py_param **out);

/* Writes "fc.weight [32, 24] float32" into buf. */
void nodus__py_param_describe(const nodus_py_param *e, char *buf, size_t size);

/* A candidate's declaration against its reference's: they agree only
 * entry for entry (docs/formats.md, "python"). Returns 0, or the number
 * of differences with the first three in detail (size bytes) and *index,
 * the first entry that differs. */
int nodus__py_params_pair_diff(const char *candidate, const char *reference, char *detail,
			       size_t size, int *index);

/* A module's own floating tensors (own, the adapter's ENTRY_params)
 * against its declaration: the same names, shapes and dtypes, in torch's
 * order (docs/audit.md, "params"). Returns 0, or the number of
 * differences, described as above; *index is the first declared entry
 * involved, -1 when only undeclared tensors differ. */
int nodus__py_params_module_diff(const char *declared, const char *own, char *detail,
				 size_t size, int *index);

/* Loads a campaign file and every file it names; 0 or NODUS_EINVAL/EIO with
 * every fault in diags. *out is NULL on failure. */
int nodus_campaign_load(const char *path, nodus_campaign **out, nodus_diags *diags);
void nodus_campaign_free(nodus_campaign *c);

/* Name lookups; -1 when absent. */
int nodus_campaign_find_task(const nodus_campaign *c, const char *name);
int nodus_campaign_find_solution(const nodus_campaign *c, const char *name);
int nodus_campaign_find_workload(const nodus_campaign *c, const char *name);

/* Canonical JSON (sorted keys, compact, no floats reformatted) of obj;
 * caller frees with free(). NULL on OOM. */
char *nodus_json_canonical(const json_t *obj);

/* Evaluates a task's roofline expression (as validated: axes, integers,
 * + - * / and parentheses) at the given axis values. Returns 0, or
 * NODUS_EINVAL for an expression that does not evaluate (division by
 * zero, an unknown axis). */
int nodus_roofline_eval(const char *expr, const nodus_task *t, const int64_t *axes, double *out);

/* The campaign spelling of a condition kind ("cpu-stress") and of a load
 * kind ("membw"); "?" and "none" when out of range. */
const char *nodus_condition_kind_name(int kind);
const char *nodus_load_name(int load);
/* A preset's campaign spelling ("kernelbench-p"); "?" when out of range. */
const char *nodus_judge_preset_name(int preset);

/* What a preset fixes (preset.c): per side, timing_trials blocks of
 * warmup_calls untimed and timed_calls timed single calls; the statistic
 * of each side; "faster" iff reference / candidate > faster_above. */
typedef enum nodus_preset_statistic {
	NODUS_PRESET_MEAN_3SIG = 1,      /* the mean, rounded to 3 significant digits */
	NODUS_PRESET_MEAN_OF_MEDIANS     /* the mean over trials of each trial's median */
} nodus_preset_statistic;

typedef struct nodus_preset_protocol {
	int correctness_trials;
	int timing_trials;
	int warmup_calls;
	int timed_calls;
	int statistic;                   /* a nodus_preset_statistic */
	double faster_above;
} nodus_preset_protocol;

/* 0 and *p for a preset with a fixed schedule, -1 for nodus's own. */
int nodus_judge_preset_protocol(int preset, nodus_preset_protocol *p);

/* The judge a condition with this preset runs under: base, with the
 * preset's correctness trials and warm-up, an L2 flush before each call,
 * one call per sample and nothing that widens an interval. */
void nodus_judge_for_preset(const nodus_judge *base, int preset, nodus_judge *out);

/* Element size in bytes of a nodus_dtype; 0 if unknown. */
size_t nodus_dtype_size(int dtype);
const char *nodus_dtype_name(int dtype);
int nodus_dtype_from_name(const char *name); /* -1 if unknown */

#endif
