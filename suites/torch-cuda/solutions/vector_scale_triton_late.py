# SPDX-License-Identifier: MIT
# vector_scale_triton_late: a Triton kernel whose block size changes after
# its first calls, so the worker needs a kernel the build's warm step never
# compiled (it calls run once per shape). A worker may not compile: the
# call must fail as the solution's RUNTIME_ERROR, saying why, and neither
# crash the worker nor compile anything.
import torch
import triton
import triton.language as tl

calls = [0]


@triton.jit
def scale_kernel(x_ptr, a_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    a = tl.load(a_ptr)
    tl.store(y_ptr + i, a * tl.load(x_ptr + i, mask=m), mask=m)


def run(x, alpha, y):
    calls[0] += 1
    block = 1024 if calls[0] <= 2 else 512
    n = x.numel()
    scale_kernel[(triton.cdiv(n, block),)](x, alpha, y, n, BLOCK=block)
