/* SPDX-License-Identifier: MIT */
/* build_nested.h: listed by build_header_nested, it includes the unlisted build_unlisted.h. */
#include "build_unlisted.h"
