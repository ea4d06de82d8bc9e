/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * protocol.h: what the orchestrator and its workers say to each other, and
 * the input instances both sides must generate bit for bit alike.
 *
 * The orchestrator sends one JOB frame (JSON) on the worker's stdin; the
 * worker answers with frames on its fd 3. Timing is driven from here one
 * command at a time (CMD frames, nodus_msg_cmd, on stdin): each solution is
 * timed in a worker of its own (the reference's "timer", the candidate's
 * "measure" worker), and the orchestrator alternates them batch by batch,
 * so that no candidate code shares a process with the reference's timing
 * or its clock, samples stay time-adjacent, and the order of the sides,
 * the stop rule, which timed call is checked and the window of copies each
 * sample uses are chosen in the trusted orchestrator, the check only once
 * the calls it concerns have run.
 *
 * Commands during timing (op):
 *   'c'  the correctness gate is open: run on CPU batch (-1: any), size
 *        (a measure worker after its trials; a timer at once)
 *   'z'  the batch is chosen (batch): make the timing copies
 *   'w'  one warm-up batch (answered by a BATCH with sample -1) on the
 *        window at `window` (-1: 0)
 *   'b'  timed batch: sample, window, perturbation (START, then BATCH)
 *   'k'  send the outputs of the last batch's call on copy (as instance)
 *   'e'  timing is over: check the copies (measure: then the final trial),
 *        then DONE
 *   's'  stop at once
 *
 * An instance is one set of inputs: drawn from (seed, variant) at the
 * workload's axes or at the probe axes, or - for timing copies - drawn from
 * a copy seed and then perturbed for sample k, so that no two timed samples
 * see the same input contents (content-keyed output caches never hit) yet
 * the oracle can rebuild exactly the inputs of any sample it is asked to
 * check.
 *
 * Frames (worker -> orchestrator):
 *   READY     JSON {fingerprint, ...} after loading, before any solution call
 *   OUTPUT    nodus_msg_output header + the output's bytes
 *   OUTPUT_AT nodus_msg_output header + u64 offset: the output's bytes are
 *             in the worker's output arena (below) at that offset
 *   CHECKSUM  nodus_msg_checksum header + u64 per input (after the call)
 *   SIZED     nodus_msg_sized: one call of the solution, timed after its
 *             first (the orchestrator chooses one batch for both sides)
 *   START     nodus_msg_batch (times 0): a timed batch starts now; the
 *             orchestrator reads its own clock when it arrives
 *   BATCH     nodus_msg_batch: that batch is over, with the times the
 *             worker measured (checked against the orchestrator's clock)
 *   FAIL      JSON {status, guard, stage, message}: the worker stops
 *   DONE      JSON {device_s, batch, ...}
 *   WARM      JSON {exec_s, open_s, context_s, setup_s, fingerprint_s}: a
 *             worker started ahead has its backend open and waits for its
 *             job (its first frame, before any JOB; only the first counts)
 *
 * The output arena is a memfd the orchestrator creates for each worker,
 * sized NODUS_ARENA_BYTES and sealed against shrinking and growing, which
 * the worker sees as its fd 4. The oracle writes an output of at least
 * NODUS_ARENA_MIN_BYTES there, at page-aligned offsets that only grow, and
 * sends OUTPUT_AT; what does not fit goes through the pipe as OUTPUT. The
 * pipe copies every byte twice and makes the oracle wait while the
 * orchestrator judges; the arena is written once and mapped. A measure
 * worker closes fd 4 before it loads any solution: candidate code holding
 * the arena could rewrite an output after sending it, or fill memory no
 * limit counts; its outputs come through the pipe, and an OUTPUT_AT frame
 * from it is refused. The seals mean a read of ours can never fault.
 * ------------------------------------------------------------------------ */
#ifndef NODUS_PROTOCOL_H
#define NODUS_PROTOCOL_H

#include <stdint.h>

#include "spec/spec.h"
#include "store/store.h"

enum nodus_msg_type {
	NODUS_MSG_JOB = 1,      /* orchestrator -> worker: the job, JSON */
	NODUS_MSG_READY = 2,
	NODUS_MSG_OUTPUT = 3,
	NODUS_MSG_CHECKSUM = 4,
	/* 5 was ROUND: a measure worker's samples; the orchestrator now builds
	 * them from each side's BATCH frames */
	NODUS_MSG_FAIL = 6,
	NODUS_MSG_DONE = 7,
	NODUS_MSG_CMD = 8,      /* orchestrator -> worker: 'c' continue, 's' stop */
	NODUS_MSG_WARM = 9,
	NODUS_MSG_OUTPUT_AT = 10,
	NODUS_MSG_SIZED = 11,
	NODUS_MSG_START = 12,
	NODUS_MSG_BATCH = 13,
	NODUS_MSG_SETTLED = 14  /* after BATCH: the batch's by-value outputs are in place */
};

/* A CMD frame. op: 'c' continue, 's' stop, 'n' next (after a batch that
 * is not checked), 'k' check: send the outputs of the call on copy `copy`
 * of the batch just timed as instance `instance`. Every CMD also says
 * where the next sample's window of copies starts (`next_window`): sample
 * k's calls use copies next_window, next_window + 1, ... (mod the copy
 * count), one call each; and which perturbation its copies get. A CMD of one byte (op only) is still read. */
typedef struct nodus_msg_cmd {
	char op;
	char pad[3];
	int32_t instance;           /* 'k': the instance the outputs are sent as */
	int32_t copy;               /* 'k': the copy whose call is sent */
	int32_t window;             /* 'b', 'w': the first copy of the batch's window */
	uint64_t perturbation;      /* 'b': the sample's perturbation: any value, so
				     * a checked sample's is told from no other's */
	int64_t sample;             /* 'b': k */
	int32_t batch;              /* 'z': calls per timed batch; 'c': the CPU, -1 any;
				     * 'w': at most this many calls, 0: the whole batch */
	int32_t fresh;              /* 'b': 1: the window's copies are drawn afresh
				     * (nodus__fresh_seed), not perturbed */
} nodus_msg_cmd;

/* SIZED: one call's time (the second of two) and the job's copy count. */
typedef struct nodus_msg_sized {
	int64_t call_ns;
	int32_t copies;
	int32_t status;    /* the entry's first non-zero return, else 0 */
} nodus_msg_sized;

/* START and BATCH of one timed batch. */
typedef struct nodus_msg_batch {
	int64_t sample;    /* k, or -1 for a warm-up batch */
	int32_t role;      /* NODUS_ROLE_* */
	int32_t status;    /* the entry's first non-zero return, else 0 */
	int64_t event_ns;  /* the whole batch, as nodus_timing */
	int64_t host_ns;
	int64_t wall_ns;   /* the worker's clock from sending START to sending BATCH,
			    * which the kernel's stamps of the two must agree with */
	int32_t sm_clock_mhz; /* at the batch's end, 0 unknown */
	int32_t settles;   /* 1: outputs left by value are copied now, a SETTLED mark follows */
} nodus_msg_batch;

#define NODUS_MAX_BATCH 100000 /* calls per timed batch, at most */

/* START and BATCH travel on the clock socket, the worker's fd 5: an
 * AF_UNIX SOCK_SEQPACKET pair whose receiving end has SO_TIMESTAMPNS, so
 * the kernel stamps each when the worker sends it. The orchestrator's view
 * of a batch is then the kernel's, not the time it got round to reading
 * the frames: on a busy machine it read START only after the batch had
 * ended, which made a long batch look short (exec.h, want_clock_socket).
 * One message per mark; a worker without fd 5 sends them on fd 3. */
#define NODUS_CLOCK_FD 5
#define NODUS_CLOCK_MAGIC 0x6b6c636eu
typedef struct nodus_clock_mark {
	uint32_t magic;
	uint32_t type;         /* NODUS_MSG_START or NODUS_MSG_BATCH */
	nodus_msg_batch batch;
} nodus_clock_mark;

#define NODUS_ARENA_FD 4
#define NODUS_ARENA_BYTES ((int64_t)16 << 30) /* sparse: pages exist once written */
#define NODUS_ARENA_MIN_BYTES ((int64_t)256 << 10)

#define NODUS_ROLE_REFERENCE 0
#define NODUS_ROLE_CANDIDATE 1

/* Header of an OUTPUT frame; the output bytes follow. */
typedef struct nodus_msg_output {
	int32_t instance;  /* instance id the output belongs to */
	int32_t output;    /* output index in the task */
	int32_t role;      /* NODUS_ROLE_* */
	int32_t pass;      /* 0 first run, 1 repeated run (determinism check) */
	int64_t nbytes;    /* bytes that follow */
} nodus_msg_output;

/* Header of a CHECKSUM frame; n u64 checksums follow (one per input). */
typedef struct nodus_msg_checksum {
	int32_t instance;
	int32_t n;
} nodus_msg_checksum;

/* One input instance. */
typedef struct nodus_instance {
	int32_t id;         /* index in the job's instance list */
	int32_t probe;      /* 1: use the probe axes (shape generalisation check) */
	uint32_t variant;   /* NODUS_VARIANT_* applied to inputs that allow it */
	int32_t copy;       /* timing copy index, -1 for a correctness trial */
	uint64_t seed;      /* draw seed (the copy's seed for timing copies) */
	int64_t sample;     /* perturbation that applies (a timed sample's), -1 none */
	uint64_t perturb_seed; /* seed of that perturbation (its pair's: an oracle
				* job may hold the instances of several pairs) */
	uint64_t copy_base; /* copy > 0: the pair's copy seed, whose rotations
			     * (nodus__copy_shift) make the copy from copy 0 */
	int32_t timed_check; /* the orchestrator's: a check of a timed call,
			      * left out of the measure worker's job */
} nodus_instance;

/* Elements perturbed per input per timed sample. */
#define NODUS_PERTURB_ELEMENTS 4

/* The most copies (and so calls per timed batch) a timing set holds. */
#define NODUS_MAX_TIMING_CALLS 128

/* How many timing copies a pair's worker makes: enough for the longest
 * batch it may need (min_sample_ns over the fastest a call moving its
 * bytes could be, at a bandwidth above any the backend's devices have),
 * at least input_copies, within NODUS_MAX_TIMING_CALLS and a memory
 * budget per backend. Known before the job, so the oracle can compute the
 * reference outputs of any copy a checked call may use. */
/* Bytes of one call's inputs and outputs at the workload's shape. */
double nodus__call_bytes(const nodus_task *t, const nodus_workload *w);

int nodus__timing_copies(const nodus_task *t, const nodus_workload *w, int cuda,
			 int64_t min_sample_ns, int input_copies);

/* Timed calls to check in an attempt (timed_checks.c draws them): the
 * judge's recheck_reps, and more where a call's tensors are small, up to
 * NODUS_TIMED_CHECKS_MAX (instance.c). 0 stays 0. */
int nodus__timed_checks_for(const nodus_task *t, const nodus_workload *w, int recheck_reps);

/* Copy c > 0 of input i is copy 0 rotated left by this many elements
 * (numel > 0): element e of copy c is element (e + shift) mod numel of
 * copy 0. The worker makes its timing copies so, and the oracle rebuilds
 * the copy of a checked timed call the same way. */
int64_t nodus__copy_shift(uint64_t copy_base, int input, int copy, int64_t numel);
/* nodus__copy_shift for input `input` of w: 0 for a file input, which
 * every copy holds as its file has it. */
int64_t nodus__input_shift(const nodus_workload *w, uint64_t copy_base, int input, int copy,
			   int64_t numel);

/* The seed of copy `copy`'s inputs in a fresh sample of perturbation q
 * (timed_checks.h: a share of the samples draw their window's copies
 * anew, so that a candidate that remembers what it saw at an address and
 * recomputes only what changed is slower there, and is seen). The oracle
 * draws a checked call of such a sample from the same seed, as copy 0 is
 * drawn: no rotation, no perturbation. */
uint64_t nodus__fresh_seed(uint64_t copy_base, int copy, uint64_t q);

/* The axes an instance uses: the workload's, or its probe shape (each var
 * axis v becomes max(1, v - 1 - v/8): odd, smaller, still valid). */
void nodus__instance_axes(const nodus_task *t, const nodus_workload *w, int probe,
			  int64_t axes_out[NODUS_MAX_AXES]);

/* Element count of tensor spec ts at the given axes. */
int64_t nodus__tensor_numel(const nodus_tensor_spec *ts, const int64_t *axes);

/* Fills host buffers inputs[i] (numel from the axes) for instance in.
 * perturb_seed is the job's; when in->sample >= 0 the perturbation of that
 * sample is applied. Large tensors are drawn by up to `threads` threads
 * (1 in a sandboxed cpu worker, which may not create threads); the bits
 * do not depend on it. Returns 0 or NODUS_EINVAL. */
int nodus__instance_fill(const nodus_task *t, const nodus_workload *w, const nodus_instance *in,
			 uint64_t perturb_seed, int threads, void *const *inputs);

/* Input i of nodus__instance_fill alone, into data (the perturbation with
 * in->perturb_seed when in->sample >= 0). */
int nodus__instance_fill_one(const nodus_task *t, const nodus_workload *w,
			     const nodus_instance *in, int i, int threads, void *data);

/* Draws input i of instance in straight into the device buffer dev_data
 * with the backend's fill op, bit for bit what nodus__instance_fill draws
 * (with in->perturb_seed's perturbation when in->sample >= 0): elements
 * the device cannot promise are drawn here and written over (patch), then
 * the perturbation. Returns 0 with *done = 1, 0 with
 * *done = 0 when the host must draw it (no fill op, not float32, or more
 * such elements than fit in the list), or an error of the backend. */
struct nodus_backend_ops;
int nodus__instance_fill_device(const nodus_task *t, const nodus_workload *w,
				const nodus_instance *in, int i,
				const struct nodus_backend_ops *ops, void *dev, void *dev_data,
				int *done, nodus_error *err);

/* nodus__instance_fill_device for n draws at once (instance in[k]'s input
 * input[k] into dev_data[k], *done as done[k]), with one synchronisation
 * for all of them where the backend has fill_many: a fresh sample's
 * window of 128 small copies paid one per copy (ab-61). */
int nodus__instance_fill_device_many(const nodus_task *t, const nodus_workload *w,
				     const nodus_instance *in, const int *input,
				     void *const *dev_data, int n,
				     const struct nodus_backend_ops *ops, void *dev, int *done,
				     nodus_error *err);

/* The perturbation of sample k on copy inputs: for input i, positions and
 * values. Positions are < numel; values are drawn from that input's
 * distribution. Used by the measure worker to modify device copies in
 * place (and undo it afterwards) without regenerating whole inputs. */
typedef struct nodus_perturbation {
	int64_t index[NODUS_MAX_INPUTS][NODUS_PERTURB_ELEMENTS];
	unsigned char value[NODUS_MAX_INPUTS][NODUS_PERTURB_ELEMENTS][8]; /* element bytes */
} nodus_perturbation;
int nodus__perturbation(const nodus_task *t, const nodus_workload *w, const nodus_instance *in,
			uint64_t perturb_seed, nodus_perturbation *p);

#endif
