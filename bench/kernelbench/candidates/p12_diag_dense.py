# SPDX-License-Identifier: MIT
# p12_diag_dense: KernelBench level 1 problem 12 (diag(A) @ B, N = M = 4096)
# written as the formula reads: the diagonal matrix materialised and a dense
# matmul. The problem's own Model already scales the rows (A.unsqueeze(1) *
# B, one memory-bound pass of 128 MiB); this one adds a 64 MiB N x N matrix
# and a 137 GFLOP float32 GEMM (about 2.7 ms on an H200 against about
# 0.05 ms). Exact: each output is one product plus zeros (TF32 is off for
# float32 matmuls by default, else the rounding of A and B would show).
# expect: SLOWER
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.diag(A) @ B
