/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * adv_unwritten_output.c: exploit (a) for the vector_poly task (suites/adversarial).
 *
 * Exploit: returns 0 without writing y. A naive harness runs the
 * reference and the candidate into the same (or a recycled) output
 * buffer, so y still holds the reference's correct values and the
 * candidate looks both correct and infinitely fast.
 * Naive harness reports: correct, enormous speedup.
 * nodus: outputs are poisoned before every call and every element is
 * checked -> INCORRECT_SHAPE (guard unwritten_output).
 * ------------------------------------------------------------------------ */
#include "nodus/solution.h"

int adv_unwritten_output(const nodus_call *call)
{
	(void)call;
	return 0;
}
