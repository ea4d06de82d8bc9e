# SPDX-License-Identifier: MIT
# p1_matmul_mm: KernelBench level 1 problem 1 (C = A @ B, 4096 x 4096) as
# torch.mm instead of torch.matmul. Both reach the same cuBLAS call for two
# 2-D float32 tensors, so the outputs are bit for bit the reference's and
# there is no speed difference to find: a pair whose truth is TIED but whose
# files differ (unlike the A/A copy, which only renames the class).
# expect: TIED
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.mm(A, B)
