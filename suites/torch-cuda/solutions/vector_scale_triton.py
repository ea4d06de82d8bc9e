# SPDX-License-Identifier: MIT
# vector_scale_triton: vector_scale as a Triton kernel, destination-passing.
# Triton compiles at a kernel's first call (ptxas and a C compiler for its
# launcher: processes, which a locked-down worker may not start), so nodus
# compiles it at build time: the warm step calls run once per workload
# shape (include/nodus/torch_ext.py) and the worker's Triton reads those
# kernels from nodus's cache; expected correct.
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, a_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    a = tl.load(a_ptr)
    tl.store(y_ptr + i, a * tl.load(x_ptr + i, mask=m), mask=m)


def run(x, alpha, y):
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, alpha, y, n, BLOCK=1024)
