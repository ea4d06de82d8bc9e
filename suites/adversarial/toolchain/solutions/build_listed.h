/* SPDX-License-Identifier: MIT */
/* build_listed.h: the header build_header_listed.c uses, listed in its sources. */
#define CLAMP(v) ((v) > 0.0f ? (v) : 0.0f)
