/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fuzz-spec.c: libFuzzer target for the spec parser and validators.
 *
 * Each input is handled exactly as `nodus check` handles a file's bytes:
 * parsed strictly, dispatched on its "kind", validated with every fault
 * located, and (for campaigns) linked with the files it names. Relative
 * paths resolve against the mini fixture, so fuzzed campaigns and
 * solutions reach real tasks, workloads and sources. Every fault is also
 * formatted, as the CLI would print it. The bytes are copied into a
 * NUL-terminated buffer first, as nodus_buf_read_file gives the CLI.
 * ------------------------------------------------------------------------ */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec-internal.h"

#ifndef NODUS_FUZZ_DIR
#define NODUS_FUZZ_DIR "tests/fixtures/mini"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	nodus_diags d = NODUS_DIAGS_INIT;
	nodus__spec_check_text("fuzz.json", text, size, NODUS_FUZZ_DIR, &d);
	for (size_t k = 0; k < d.count; k++) {
		char line[2048];
		nodus_error_format(&d.items[k], line, sizeof(line));
		if (!line[0] || d.items[k].code >= 0)
			abort(); /* every fault has a message and a negative code */
	}
	nodus_diags_release(&d);
	free(text);
	return 0;
}
