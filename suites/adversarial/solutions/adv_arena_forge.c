/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_arena_forge.c: an exploit on the harness's output arena, for the
 * relu task (suites/adversarial).
 *
 * Exploit: shrinks the harness's output arena, then forges an output frame past its end.
 * Large outputs reach the orchestrator through a memfd the worker sees as
 * its fd 4 (src/run/protocol.h). On its second call this solution tries
 * to shrink that file to nothing: an orchestrator that then maps an output
 * there dies of SIGBUS, and the whole campaign with it. The arena is
 * sealed, so the shrink fails; the solution then forges an OUTPUT_AT frame
 * on fd 3 that points past the arena's end, for a harness that maps
 * whatever offset it is told.
 * nodus: the offset is checked against the arena before anything is
 * mapped -> CRASH (guard protocol), and the campaign goes on.
 * Were the seal missing, the shrink would succeed and this solution
 * would grow the file back and return a wrong output instead, so the
 * pair would end INCORRECT_NUMERICAL, not the CRASH its campaign expects.
 * ------------------------------------------------------------------------ */
#define _POSIX_C_SOURCE 200809L /* ftruncate under -std=c11 */
#include <stdint.h>
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
 * and an offset of 1 TiB, far past the 16 GiB arena. */
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
		if (ftruncate(4, 0) == 0) {
			wrong = 1; /* unsealed: make it show, and put the size back */
			if (ftruncate(4, (off_t)16 << 30) != 0)
				return 1;
		} else {
			forge_output_at(n * (int64_t)sizeof(float));
		}
	}
	for (int64_t i = 0; i < n; i++)
		y[i] = wrong ? -1.0f : x[i] > 0.0f ? x[i] : 0.0f;
	return 0;
}
