/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_arena_forge.c: an exploit on the harness's output arena, for the
 * relu task (suites/adversarial).
 *
 * Exploit: reaches for the harness's output arena, then forges an output frame that points into it.
 * Large reference outputs reach the orchestrator through a sealed memfd
 * the oracle sees as its fd 4 (src/run/protocol.h). A measure worker closes
 * that fd before it loads any solution: candidate code that could write
 * there could change an output after the harness sent it (judged later),
 * or fill memory no limit of its own counts. On its second call this
 * solution looks for fd 4 and tries to shrink it to nothing (an
 * orchestrator mapping an unsealed, shrunk arena dies of SIGBUS); then it
 * forges an OUTPUT_AT frame on fd 3 for a harness that maps whatever
 * offset it is told.
 * nodus: fd 4 is closed, and an OUTPUT_AT frame from a worker without an
 * arena is refused before anything is mapped -> CRASH (guard protocol).
 * Were fd 4 still open here, this solution would return a wrong output
 * instead, so the pair would end INCORRECT_NUMERICAL, not the CRASH its
 * campaign expects.
 * ------------------------------------------------------------------------ */
#define _POSIX_C_SOURCE 200809L /* ftruncate under -std=c11 */
#include <stdint.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include "nodus/solution.h"

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The framing of src/exec/ipc.c (magic, type 10 = OUTPUT_AT, length),
 * then nodus_msg_output {instance 0, output 0, role 1, pass 0, nbytes}
 * and an offset of 1 TiB. */
static void forge_output_at(int64_t nbytes)
{
	unsigned char frame[16 + 24 + 8];
	put_le(frame, 0x3153444eu, 4);
	put_le(frame + 4, 10, 4);
	put_le(frame + 8, 32, 8);
	put_le(frame + 16, 0, 4);
	put_le(frame + 20, 0, 4);
	put_le(frame + 24, 1, 4);
	put_le(frame + 28, 0, 4);
	put_le(frame + 32, (uint64_t)nbytes, 8);
	put_le(frame + 40, (uint64_t)1 << 40, 8);
	ssize_t ignored = write(3, frame, sizeof(frame));
	(void)ignored;
}

int adv_arena_forge(const nodus_call *call)
{
	static int calls;
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	int64_t n = call->inputs[0].numel;
	int wrong = 0;

	if (++calls == 2) {
		if (fcntl(4, F_GETFD) != -1) {
			wrong = 1; /* the arena reached candidate code: make it show */
			if (ftruncate(4, 0) == 0 && ftruncate(4, (off_t)16 << 30) != 0)
				return 1;
		} else {
			forge_output_at(n * (int64_t)sizeof(float));
		}
	}
	for (int64_t i = 0; i < n; i++)
		y[i] = wrong ? -1.0f : x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
