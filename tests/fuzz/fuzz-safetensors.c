/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * fuzz-safetensors.c: libFuzzer target for the strict safetensors reader
 * (src/spec/safetensors.c), which reads files a workload names.
 *
 * Each input is a whole file. The reader must either refuse it with a
 * sentence or return a tensor whose bytes lie inside the input; both keys
 * the corpus uses are asked for. ASan and UBSan catch a read outside the
 * bytes or an overflow in the offset and size arithmetic.
 * ------------------------------------------------------------------------ */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {"x", "index"};
	/* a copy of exactly size bytes: ASan flags any read past them */
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		nodus_st_tensor t;
		char why[512] = "";
		if (nodus_safetensors_find(copy, size, keys[k], &t, why, sizeof(why)) == 0) {
			if (t.data < copy || t.bytes > size || t.data + t.bytes > copy + size)
				abort(); /* a tensor outside the file */
			volatile unsigned char sum = 0;
			for (uint64_t b = 0; b < t.bytes; b++)
				sum ^= t.data[b];
			(void)sum;
		} else if (!why[0]) {
			abort(); /* every refusal says why */
		}
	}
	free(copy);
	return 0;
}
