# SPDX-License-Identifier: MIT
# p88_gelu_triton: KernelBench level 1 problem 88 (minGPT's tanh GELU of an
# 8192 x 8192 float32 input) as one Triton kernel: each program reads a
# block of x, computes the formula in registers and writes the block. The
# reference makes about eight elementwise passes over 256 MiB; this makes
# one, so it should be several times faster. 0.5 x (1 + tanh(u)) is
# written x / (1 + exp(-2u)), the same function without tanh's
# cancellation near -1 (exp overflows to inf for very negative x, giving
# -0.0 where the reference gives 0.5 x 0): within a few ulp of the
# reference, far inside 1e-4. Plain Triton (3.x) and torch; the kernel
# runs on torch's current stream, as Triton launches do.
# expect: FASTER
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tl.store(y_ptr + offs, x / (1.0 + tl.exp(-2.0 * u)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
