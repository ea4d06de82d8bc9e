/* SPDX-License-Identifier: MIT */
/* ------------------------------------------------------------------------
 * test-safetensors.c: the strict safetensors reader (src/spec/safetensors.c)
 * takes a well-formed file and finds its tensor's bytes, and refuses every
 * malformed one in words: a file shorter than its length field, a header
 * past the file or past 100 MB, a header that is not one JSON object, an
 * unknown dtype, a size that is not product(shape) x itemsize, offsets
 * outside the data, overlapping, leaving a hole or trailing bytes, a
 * missing key. Then a file input's values are copied by the judge's fill
 * exactly, whatever the seed and the variant, and never past the file.
 * ------------------------------------------------------------------------ */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/judge.h"
#include "spec/safetensors.h"
#include "spec/spec.h"

/* A file: the length field, header text and data bytes as given. */
static size_t build(unsigned char *out, size_t cap, uint64_t len_field, const char *header,
		    const void *data, size_t data_len)
{
	size_t h = strlen(header);
	assert_true(8 + h + data_len <= cap);
	for (int k = 0; k < 8; k++)
		out[k] = (unsigned char)(len_field >> (8 * k));
	memcpy(out + 8, header, h);
	if (data_len)
		memcpy(out + 8 + h, data, data_len);
	return 8 + h + data_len;
}

static const int32_t IDX[4] = {3, -1, 7, 2};
static const float VAL[2] = {0.5f, -2.25f};

static size_t good(unsigned char *buf, size_t cap, const char *header)
{
	unsigned char data[24];
	memcpy(data, IDX, 16);
	memcpy(data + 16, VAL, 8);
	return build(buf, cap, strlen(header), header, data, sizeof(data));
}

static const char GOOD[] = "{\"i\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
			   "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
			   "\"__metadata__\":{\"format\":\"pt\"}}   ";

static void test_reads_a_good_file(void **state)
{
	(void)state;
	unsigned char buf[512];
	size_t n = good(buf, sizeof(buf), GOOD);
	nodus_st_tensor t;
	char why[512] = "";
	assert_int_equal(nodus_safetensors_find(buf, n, "i", &t, why, sizeof(why)), 0);
	assert_string_equal(t.dtype, "I32");
	assert_int_equal(t.nodus_dtype, NODUS_DTYPE_INT32);
	assert_int_equal(t.ndim, 2);
	assert_int_equal(t.shape[0], 2);
	assert_int_equal(t.bytes, 16);
	assert_memory_equal(t.data, IDX, 16);
	assert_int_equal(nodus_safetensors_find(buf, n, "v", &t, why, sizeof(why)), 0);
	assert_int_equal(t.nodus_dtype, NODUS_DTYPE_FLOAT32);
	assert_memory_equal(t.data, VAL, 8);
}

/* Refused, with why containing `words`. */
static void refused(const unsigned char *buf, size_t n, const char *key, const char *words)
{
	nodus_st_tensor t;
	char why[512] = "";
	assert_int_equal(nodus_safetensors_find(buf, n, key, &t, why, sizeof(why)), -1);
	if (!strstr(why, words))
		fail_msg("expected \"%s\" in \"%s\"", words, why);
}

static void test_refuses_truncation_and_overruns(void **state)
{
	(void)state;
	unsigned char buf[512];
	size_t n = good(buf, sizeof(buf), GOOD);
	refused(buf, 5, "i", "expected at least the 8-byte header length");
	refused(buf, n - 3, "i", "lie outside the 21 data bytes");
	/* the header length past the file, and past the format's bound */
	unsigned char over[512];
	memcpy(over, buf, n);
	over[1] = 0x10; /* + 4096 */
	refused(over, n, "i", "after the length, got a file of");
	for (int k = 0; k < 8; k++)
		over[k] = 0xff;
	refused(over, n, "i", "expected a header of at most 100000000 bytes");
	/* a header cut inside its JSON */
	size_t hl = strlen(GOOD);
	unsigned char cut[512];
	build(cut, sizeof(cut), hl - 10, GOOD, NULL, 0);
	refused(cut, 8 + hl - 10, "i", "expected the header to be one JSON object");
	build(cut, sizeof(cut), 4, "[1] ", NULL, 0);
	refused(cut, 12, "i", "expected the header to be a JSON object starting at byte 8");
}

static void test_refuses_bad_entries(void **state)
{
	(void)state;
	unsigned char buf[512];
	size_t n;
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"Q7\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
		 "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}");
	refused(buf, n, "v", "tensor 'i': expected a safetensors dtype");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[2,3],\"data_offsets\":[0,16]},"
		 "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}");
	refused(buf, n, "i", "expected 24 bytes (6 elements of I32, 4 bytes each)");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[2,-2],\"data_offsets\":[0,16]}}");
	refused(buf, n, "i", "non-negative integers");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[4],\"data_offsets\":[0,16]},"
		 "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[12,20]}}");
	refused(buf, n, "i", "tensors 'i' and 'v' overlap");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]},"
		 "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}");
	refused(buf, n, "i", "without a hole, got bytes 12 to 16");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[4],\"data_offsets\":[0,16]}}");
	refused(buf, n, "i", "got 8 bytes after it");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[4],\"data_offsets\":[16,0]}}");
	refused(buf, n, "i", "lie outside");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[4],\"data_offsets\":[0,16],\"x\":1}}");
	refused(buf, n, "i", "expected only dtype, shape and data_offsets");
	n = good(buf, sizeof(buf),
		 "{\"i\":{\"dtype\":\"I32\",\"shape\":[4],\"data_offsets\":[0,16]},"
		 "\"i\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}");
	refused(buf, n, "i", "expected the header to be one JSON object");
	n = good(buf, sizeof(buf),
		 "{\"__metadata__\":{\"a\":1},"
		 "\"i\":{\"dtype\":\"I32\",\"shape\":[6],\"data_offsets\":[0,24]}}");
	refused(buf, n, "i", "__metadata__ to be an object of strings");
	n = good(buf, sizeof(buf), GOOD);
	refused(buf, n, "w", "expected a tensor 'w' in the file, got none of that key (2 tensor(s))");
}

/* A file input's fill copies its bytes, whatever seed and variant. */
static void test_file_fill_is_exact(void **state)
{
	(void)state;
	nodus_dist d = {NODUS_DIST_FILE, 0, 0, -1, IDX, (int64_t)sizeof(IDX)};
	int32_t out[4] = {0};
	int64_t axes[1] = {4};
	assert_int_equal(nodus_judge_fill(out, NODUS_DTYPE_INT32, 4, &d, axes,
					  NODUS_VARIANT_NEGATE | NODUS_VARIANT_SCALE_3, 12345, 1),
			 0);
	assert_memory_equal(out, IDX, sizeof(IDX));
	assert_int_equal(nodus_judge_fill(out, NODUS_DTYPE_INT32, 4, &d, axes, 0, 99, 2), 0);
	assert_memory_equal(out, IDX, sizeof(IDX));
	int32_t one = 0;
	assert_int_equal(nodus_judge_fill_at(&one, NODUS_DTYPE_INT32, 2, &d, axes,
					     NODUS_VARIANT_NEGATE, 7, 0),
			 0);
	assert_int_equal(one, 7);
	/* never past the file, never without it, never varied */
	int32_t big[8];
	assert_int_equal(nodus_judge_fill(big, NODUS_DTYPE_INT32, 8, &d, axes, 0, 1, 0),
			 NODUS_EINVAL);
	assert_int_equal(nodus_judge_fill_at(&one, NODUS_DTYPE_INT32, 4, &d, axes, 0, 1, 0),
			 NODUS_EINVAL);
	nodus_dist none = {NODUS_DIST_FILE, 0, 0, -1, NULL, 0};
	assert_int_equal(nodus_judge_fill(out, NODUS_DTYPE_INT32, 4, &none, axes, 0, 1, 0),
			 NODUS_EINVAL);
	assert_int_equal(nodus_judge_input_variants(NODUS_VARIANT_NEGATE | NODUS_VARIANT_SCALE_3, &d),
			 0u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_a_good_file),
		cmocka_unit_test(test_refuses_truncation_and_overruns),
		cmocka_unit_test(test_refuses_bad_entries),
		cmocka_unit_test(test_file_fill_is_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
