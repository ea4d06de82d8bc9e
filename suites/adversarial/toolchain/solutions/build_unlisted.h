/* SPDX-License-Identifier: MIT */
/* build_unlisted.h: the header build_header_unlisted.c uses without listing it. */
#define CLAMP(v) ((v) > 0.0f ? (v) : 0.0f)
