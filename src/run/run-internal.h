/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * run-internal.h: what the orchestrator's files share (run.c and its
 * rooms: see run.c's header for the list). Not an interface to other
 * modules: nothing outside src/run/ includes it.
 *
 * The structures of a run (run_ctx), of a worker process (worker_proc) and
 * of one attempt (attempt), then, per file, the functions the others call,
 * each with a line on what it does (the comment above its definition says
 * more). They were static functions of one run.c and keep their names so
 * that `git log -M -C` and blame follow them; they are hidden (visibility
 * below), so none is exported from the nodus executable, whose symbols a
 * solution's shared object would otherwise bind to by name.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_RUN_INTERNAL_H
#define NODUS_RUN_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "backend/nvml.h"
#include "contention/contention.h"
#include "exec/exec.h"
#include "judge/judge.h"
#include "measure/stats.h"
#include "plan/plan.h"
#include "run/build.h"
#include "run/protocol.h"
#include "run/run.h"
#include "run/timed_checks.h"
#include "store/store.h"

#pragma GCC visibility push(hidden)

#define MAX_INSTANCES 64

struct worker_proc {
	nodus_child child;
	int running;
	int warm;                      /* a spare that has said WARM */
	uint64_t deadline_ns;          /* watchdog, from the job's hand-over */
	uint64_t started_ns;           /* when the job was handed over */
	char startup[192];             /* its WARM frame: what its start-up cost */
	int64_t base_rss;              /* its resident bytes before its job (WARM), 0 unknown */
	int has_arena;                 /* arena_fd is its output arena (protocol.h) */
	int arena_fd;
};

#define MAX_EXITING 8
/* A pair takes three workers (oracle, measure, timer), or two when an
 * earlier pair's oracle computed its reference outputs. Nothing of ours may start
 * while a pair is timed, so every worker's start-up (a CUDA context: 0.2-0.3
 * s on an H200, and the driver creates contexts one at a time, about
 * 0.125 s each when several start together: bench/ctx-parallel.cu) must end
 * before the next timing gate. Spares are therefore started at the start of
 * an attempt, as many as its untimed work (drawing, moving and comparing
 * its data) will hide by a cautious estimate, up to NODUS_SPARES; a pair of
 * small tensors starts none beyond the workers it takes itself, and lives on
 * the spares a larger pair left. Each idle spare holds a context (device
 * memory: about 0.5 GB on an H200). */
#define NODUS_SPARES 8
#define HIDDEN_S_PER_GB 1.0      /* untimed work per GB moved (measured: 1.4-1.7 s) */
#define SPARE_FIRST_S 0.3        /* one context on its own */
#define SPARE_NEXT_S 0.15        /* each further one started with it */

struct run_ctx {
	const nodus_run_opts *o;
	/* Workers started ahead of their jobs (CUDA context: 0.3 s on an
	 * H200), oldest first; see spares_fill and spares_wait_warm. */
	struct worker_proc spare[NODUS_SPARES];
	int n_spares;
	nodus_child exiting[MAX_EXITING]; /* workers that sent DONE and are still ending */
	int n_exiting;
	uint64_t reaped_ns;            /* when exiting_reap last reaped workers */
	int reaped_n;                  /* how many it reaped then */
	nodus_plan *plan;
	nodus_campaign *c;
	nodus_store *store;
	nodus_build_opts bopts;
	char include_dir[1024];
	char cache_dir[1024];
	const nodus_condition *cond;   /* condition being run */
	/* the judge in force: the campaign's, or as the condition's
	 * judge_preset sets it (preset_judge), from run_condition on */
	const nodus_judge *judge;
	nodus_judge preset_judge;
	nodus_stressors stress;        /* its stressors, if any */
	nodus_mps mps;                 /* its MPS daemon (mps condition) */
	const char *const *worker_env; /* environment of workers, NULL = inherit */
	nodus_nvml *nvml;              /* cuda targets: NVML, NULL when unavailable */
	char nvml_why[256];            /* why NVML is unavailable */
	nodus_run_summary *sum;
	/* The condition's queue, for oracle groups (oracle_group_form):
	 * pairs queue[queue_head..queue_tail) are still to run, each at
	 * attempt next_attempt[pair]; prepared[pair], when set, is that
	 * attempt with its reference outputs already computed. */
	const int *queue;
	int queue_head, queue_tail;
	const int *next_attempt;
	struct attempt **prepared;
	int group_off;                 /* the next attempt gets an oracle of its own */
	unsigned char *no_group;       /* per solution: a reference whose group's oracle failed */
	/* NODUS_EXPERIMENT_SPARES_DURING_TIMING=1: spares start as a pair's
	 * timing starts (the schedule issue 4 proposed), for bench/ to compare
	 * against the quiet schedule; every record says which one it had */
	int spares_during_timing;
	/* NODUS_TEST_NOT_ISOLATED_ONCE (tests only, docs/protocol.md): pair
	 * ids, comma-separated, whose first attempt is refused at its
	 * isolation_before check as if the machine were busy */
	const char *test_not_isolated_once;
	const char *test_memo_alarm_once; /* NODUS_TEST_MEMO_ALARM_ONCE (sample_guards.c) */
	/* progress of the condition being run: pairs to decide, decided, since when */
	int cond_pairs, cond_decided;
	uint64_t cond_started_ns;
	/* Which invocation of `nodus run` wrote a record and where: every
	 * record's detail.run, so that `nodus db merge` can say whose
	 * measurement two records of one pair-condition are (docs/store.md) */
	char run_id[33];               /* 32 random hex digits, one per invocation */
	char host[256];                /* gethostname(), "" when it fails */
};

/* An output held by the orchestrator: the frame that brought it through
 * the pipe, or a mapping of the worker's output arena where it was
 * written (which outlives the worker and its arena's fd). */
struct output_view {
	const char *bytes;
	size_t nbytes;
	void *map;                     /* the mapping, NULL for a pipe frame */
	size_t map_len;
};

struct kept_output {
	int present;
	nodus_buf frame;               /* a pipe frame, header in front */
	struct output_view view;
};

/* Everything one attempt produces. */
struct attempt {
	const nodus_pair_spec *pair;
	const nodus_task *task;
	const nodus_workload *wl;
	const nodus_solution *cand, *ref;
	const nodus_judge *judge;
	int attempt;
	uint64_t stream;               /* seed stream of this pair-condition-attempt */
	nodus_instance inst[MAX_INSTANCES];
	int n_inst;
	int trial_ids[16], n_trials;
	int det_id;                    /* instance repeated for determinism, -1 none */
	int final_id;
	nodus_timed_plan timed;        /* checked timed calls, windows, clock (timed_checks.h) */
	int timing_copies;             /* each timing worker's copies */
	int timed_plan_ok;             /* timed was drawn (getrandom worked) */
	uint64_t copy_seed, perturb_seed, order_seed;
	struct kept_output oracle[MAX_INSTANCES][NODUS_MAX_OUTPUTS];  /* reference outputs */
	nodus_buf cand_first[NODUS_MAX_OUTPUTS];            /* det instance, pass 0 */
	nodus_follow follow[NODUS_MAX_OUTPUTS];  /* an earlier instance's outputs, sampled */
	uint64_t input_sum[MAX_INSTANCES][NODUS_MAX_INPUTS]; /* inputs as the oracle drew them */
	int has_input_sum[MAX_INSTANCES];
	/* results */
	int status;
	char guard[64];
	char message[8192];
	double max_abs_err, max_rel_err, matched_ratio;
	nodus_sample *samples;
	int n_samples, cap_samples;
	int rounds, looks;
	int short_call;                /* -1 until the first look, then 1 if the reference call is short */
	int first_look;                /* -1 until min_rounds rounds, then the round of the first look */
	int isolation_after_checked;   /* 1 once checked, right after the last timed round */
	int isolation_after_ok;
	nodus_interval ci;
	nodus_interval ci_rounds;  /* the rounds' own, before process_sd widened it */
	int undecidable;           /* stopped AMBIGUOUS: process_sd leaves no label reachable */
	int label;
	int verdict;                   /* a preset's (verdict.c); NODUS_VERDICT_NONE otherwise */
	double device_s, compile_s, validation_s;
	json_t *phases;                /* where the attempt's wall time went (detail.phases) */
	json_t *startup;               /* its workers' start-ups (detail.startup) */
	json_t *timing;                /* what drive_timing chose (merged into detail.timing) */
	struct worker_proc *timer;     /* the reference's timing worker while it lives */
	struct worker_proc *timer_slot; /* where it goes once the gate opens */
	double compare_s;              /* orchestrator time in output comparisons */
	double round_nvml_s;           /* between rounds, while the worker waits: NVML snapshots */
	double round_decide_s;         /* and the sequential looks */
	uint64_t validation_from_ns;   /* the oracle's job hand-over */
	int trial_frames;              /* candidate trial frames judged so far */
	int early_judged;              /* of which while the oracle still worked */
	int oracle_progress;           /* highest instance the oracle has sent a frame for */
	int oracle_ready;              /* the oracle's READY frame has been handled */
	int cache_hits;
	char target_hash[NODUS_SHA256_HEX];
	json_t *detail;
	char ref_so[1024], cand_so[1024]; /* the built solutions */
	/* Oracle groups (oracle_group_form): a leader's oracle job holds its
	 * own n_own instances, then each follower's, from follower_first[k]. */
	struct attempt *follower[16];
	int follower_first[16];
	int n_followers;
	int followers_reached;         /* followers whose instances the oracle has reached */
	int n_own;
	int oracle_prepared;           /* a follower: its reference outputs are here */
	int regroup;                   /* the group's oracle failed: run again alone */
	int memo_confirming;           /* an earlier attempt raised input_memo: this one confirms */
};

enum job_role { JOB_ORACLE, JOB_MEASURE, JOB_TIMER };

struct early_frame {
	uint32_t type;
	int rc;                        /* nonzero: how reading failed (the last entry) */
	nodus_buf payload;
};

struct early_queue {
	struct early_frame *f;
	int head, n, cap;              /* n entries from f[head] */
	size_t bytes;
	int closed;                    /* a read failed: read no more */
	/* a candidate failure found while the oracle worked: applied only
	 * once the oracle is done, so that a fault of the reference, found
	 * later, still decides the attempt as it would have in sequence */
	int failed_status;
	char failed_guard[64];
	char failed_message[8192];
	/* the buffer of the last frame judged, read into again: a fresh one
	 * for every frame of a large output costs a page fault per page */
	nodus_buf recycled;
};

/* How the timing of a pair ended (drive_timing, drive.c). */
enum drive_end {
	DRIVE_OK = 0,    /* timing is over: the measure worker checks its copies, runs its final trial */
	DRIVE_STOPPED,   /* a status is set; the measure worker is told to stop */
	DRIVE_FAILED,    /* the measure worker sent FAIL (status set) */
	DRIVE_DEAD,      /* the measure worker's pipe ended: it died */
	DRIVE_TIMEOUT    /* the measure worker passed its deadline */
};

/* ---- isolation.c: is the machine quiet enough to time a pair ---- */

/* 1 when the comma-separated list names pair_id (a test hook's pairs). */
int test_list_names(const char *list, const char *pair_id);
/* 1 when NODUS_TEST_NOT_ISOLATED_ONCE names a's pair and this is its first attempt (tests only) */
int test_refuses_isolation(struct run_ctx *x, struct attempt *a);

/* *ok: whether the machine is quiet enough (isolated condition only; always 1 otherwise); what
 * was seen goes into detail[when] */
int isolation_check(struct run_ctx *x, const char *when, int own_alive, json_t *detail,
		    int *ok);

/* ---- target.c: what the record's target is ---- */

/* A READY frame: its fingerprint names the record's target, its sandbox report goes into the
 * detail */
void on_ready(struct run_ctx *x, struct attempt *a, const nodus_buf *payload);

/* ---- sample_guards.c: guards read from the samples after timing ---- */

/* REWARD_HACK when most candidate samples (not the reference's) did work outside the timed
 * stream */
void check_host_gap(struct attempt *a);

/* REWARD_HACK when the candidate's median is below the roofline floor of the target's declared
 * ceilings */
void check_speed_of_light(struct run_ctx *x, struct attempt *a);

/* REWARD_HACK when the candidate is slower, against the reference, on samples whose inputs were
 * drawn afresh than on the others (it reuses work across calls); the test is kept in the
 * timing detail */
void check_input_memo(struct run_ctx *x, struct attempt *a);

/* ---- looks.c: samples and the sequential looks that decide a label ---- */

/* The most rounds any attempt may take: the worker's own limit */
int max_rounds_any(const nodus_judge *j);

/* Appends one timed sample to the attempt; -1 when out of memory */
int push_sample(struct attempt *a, const nodus_sample *smp);

/* verdict.c: a preset condition's statistic, ratio (a->ci.estimate, no
 * bounds) and verdict from the attempt's samples; 0, or -1 when a side has
 * no samples for a trial. */
int decide_preset(struct attempt *a, const nodus_preset_protocol *pp);

/* The median time per call of one side's samples (NODUS_ROLE_*), NaN without any */
double median_of_role(const struct attempt *a, int role);

/* The tie margin of the attempt's duration class (fixed at its first look) */
double tie_margin_for(const nodus_judge *j, struct attempt *a);
double process_sd_for(const nodus_judge *j, const struct attempt *a);

/* The most rounds of the attempt's duration class (before its first look, the larger) */
int max_rounds_for(const nodus_judge *j, const struct attempt *a);

/* After a round: 'c' to go on, 's' to stop (label decided or last round) */
char decide_after_round(struct run_ctx *x, struct attempt *a);

/* ---- outputs.c: the trial frames: reference outputs kept, candidate outputs judged ---- */

/* Elements of output o of one instance */
int64_t output_numel(const struct attempt *a, int instance, int o);

/* Gives back a kept reference output (its frame or its mapping) */
void kept_release(struct kept_output *k);

/* An OUTPUT, OUTPUT_AT or CHECKSUM frame of a trial, from the oracle (kept) or the measure
 * worker (judged) */
void on_trial_frame(struct attempt *a, uint32_t type, nodus_buf *payload,
		    int from_oracle, const struct worker_proc *sender);

/* 1 for the frame types on_trial_frame takes */
int is_trial_frame(uint32_t type);

/* The instance a trial frame is about, or -1 */
int frame_instance(uint32_t type, const nodus_buf *payload);

/* ---- early.c: the measure worker's frames queued while the oracle works ---- */

/* Frees the queue and the frames still in it */
void early_release(struct early_queue *q);

/* Hands the oldest queued frame over (payload is replaced); returns its read status */
int early_pop(struct early_queue *q, uint32_t *type, nodus_buf *payload);

/* Judges the queued candidate frames whose instance the oracle has finished, in order */
void early_judge(struct run_ctx *x, struct attempt *a, struct worker_proc *wm,
		 struct early_queue *q);

/* The oracle's next frame; the measure worker's frames are queued in q meanwhile */
int oracle_read(struct run_ctx *x, struct attempt *a, struct worker_proc *w,
		struct worker_proc *side, struct early_queue *q, uint32_t *type,
		nodus_buf *payload);

/* ---- pool.c: the worker processes: spares, jobs, how a worker ended ---- */

/* 1 when NODUS_CUDA_SANDBOX=0 turns the cuda workers' filter and Landlock off */
int cuda_sandbox_off(void);

/* Closes the worker's output arena, if it has one */
void arena_close(struct worker_proc *w);

/* Waits for the workers that reported DONE and were left to exit on their own */
void exiting_reap(struct run_ctx *x);

/* Kills the spares (the condition changed, or the run ends) */
void spare_drop(struct run_ctx *x);

/* Starts spares up to NODUS_SPARES (only where nothing is timed) */
void spares_top_up(struct run_ctx *x);

/* Bytes the attempt's workers draw and move before its timing gate */
double attempt_bytes(const struct attempt *a, int workers);

/* At the start of an attempt: the workers it takes, plus the spares its untimed work hides */
void spares_fill(struct run_ctx *x, const struct attempt *a);

/* Keeps a worker's WARM frame: what its start-up cost, its resident bytes before its job */
void keep_startup(struct worker_proc *w, const nodus_buf *frame);

/* Waits until every spare has said WARM; drops those that do not within 10 s */
void spares_wait_warm(struct run_ctx *x);

/* Hands a job to the oldest spare, or to a new worker; starts its watchdog */
int worker_start(struct run_ctx *x, struct worker_proc *w, json_t *job, nodus_error *err);

/* Sends a worker a CMD frame with op cmd alone */
void send_cmd(struct worker_proc *w, char cmd);

/* Sends a worker a CMD frame of the timing (protocol.h) */
void send_timing_cmd(struct worker_proc *w, const nodus_msg_cmd *c);

/* Ends a worker; classifies an unexpected death into the attempt's status (who: oracle, measure,
 * timer) */
void worker_end(struct run_ctx *x, struct worker_proc *w, struct attempt *a, int timed_out, int got_done,
		const char *who);

/* A worker's FAIL frame into the attempt's status (ref_fault: the reference's side) */
void apply_fail_frame(struct attempt *a, const nodus_buf *payload, int ref_fault);

/* ---- jobs.c: an attempt's instances and the job each worker gets ---- */

/* Draws every seed and instance of the attempt */
void choose_instances(struct run_ctx *x, struct attempt *a);

/* The job of one worker of the attempt (a new reference: json_decref it) */
json_t *job_json(struct run_ctx *x, struct attempt *a, enum job_role role);

/* ---- drive.c: the timing of one pair by its two timing workers ---- */

/* The whole timing of a pair whose gate is open; returns a drive_end */
int drive_timing(struct run_ctx *x, struct attempt *a, struct worker_proc *wm,
		 struct worker_proc *wt);

/* ---- oracle_group.c: one oracle for several pairs of one reference ---- */

/* Frees the followers of a group and gives a its own instances back */
void oracle_group_dissolve(struct attempt *a);

/* Appends later pairs of the same reference and workload to a's oracle job */
int oracle_group_form(struct run_ctx *x, struct attempt *a, nodus_error *err);

/* After the group's oracle succeeded: each follower takes its outputs into x->prepared */
void oracle_group_hand_over(struct run_ctx *x, struct attempt *a, double oracle_s);

/* ---- record.c: one attempt's record ---- */

/* Stores the attempt's record (final: no retry follows) and prints its progress line */
int write_record(struct run_ctx *x, struct attempt *a, int final, double started,
		 nodus_error *err);

/* ---- progress.c: what the run says while it runs ---- */

void progress_condition_start(const struct run_ctx *x, const nodus_condition *cond, int pairs);
/* after the attempt's record is stored (x->cond_decided counts it) */
void progress_record(const struct run_ctx *x, const struct attempt *a, int final);
void progress_replay(const struct run_ctx *x, const nodus_condition *cond, int orchestrators);
void progress_condition_end(const struct run_ctx *x, const nodus_condition *cond);

/* ---- replay.c: a replay condition: orchestrators side by side ---- */

/* Runs a replay condition as tenants + 1 orchestrators on shards of the pairs */
int run_replay(struct run_ctx *x, const nodus_condition *cond, nodus_error *err);

/* ---- attempt.c: one attempt, from the builds to the end of timing ---- */

/* Sets the attempt's status, guard and message, unless an earlier failure set them */
void set_status(struct attempt *a, int status, const char *guard, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Records in the attempt's phases the seconds since t0 under name */
void phase_since(struct attempt *a, const char *name, uint64_t t0);

/* Initialises attempt n of pair p in the condition being run */
void attempt_init(struct run_ctx *x, struct attempt *a, const nodus_pair_spec *p, int n);

/* Frees what an attempt holds (not a itself) */
void attempt_release(struct attempt *a);

/* Builds the reference and the candidate; a failed build sets the status, an error returns
 * nonzero */
int build_both(struct run_ctx *x, struct attempt *a, char *ref_so, char *cand_so,
	       nodus_error *err);

/* Runs one attempt from its builds to the end of its timing; nothing of it outlives the call */
int run_attempt(struct run_ctx *x, struct attempt *a, nodus_error *err);

#pragma GCC visibility pop

#endif
